/*
 * clmatch-bench — the report: a markdown page (header, summary, tables) and a CSV with every
 * number, both made from the same bench_report.
 */
#include <inttypes.h>
#include <string.h>

#include "bench.h"
#include "internal.h" /* CLM_FILE_SLAB_MIB */

static const char *variant_name(clm_variant v)
{
    static const char *const names[] = {"auto", "item", "reduce", "subgroup"};
    return (unsigned)v < sizeof names / sizeof names[0] ? names[v] : "?";
}

const char *kind_name(clm_algorithm a, clm_variant v, char *buf, size_t n)
{
    if (a == CLM_ALGO_BITAP && v != CLM_VARIANT_AUTO)
        snprintf(buf, n, "%s/%s", clm_algorithm_name(a), variant_name(v));
    else
        snprintf(buf, n, "%s", clm_algorithm_name(a));
    return buf;
}

/* "dfa/local", "bitap/reduce/local": what a row ran (for auto rows: what auto chose). */
static const char *row_ran(const bench_row *row, char *buf, size_t n)
{
    char k[64];
    if (row->status != ROW_OK)
        snprintf(buf, n, "%s/%s", kind_name(row->algorithm, row->variant, k, sizeof k),
                 clm_table_memory_name(row->table));
    else
        snprintf(buf, n, "%s/%s", kind_name(row->got_algorithm, row->got_variant, k, sizeof k),
                 clm_table_memory_name(row->got_table));
    return buf;
}

static void print_mib(FILE *f, uint64_t bytes)
{
    if (bytes >= GIB && bytes % (GIB / 4) == 0)
        fprintf(f, "%.4g GiB", (double)bytes / (double)GIB);
    else
        fprintf(f, "%.4g MiB", (double)bytes / (double)MIB);
}

/* Bytes in human units for a table cell: "512 B", "48 KiB", "2.13 MiB", "1.5 GiB". */
static const char *human_bytes(uint64_t bytes, char *buf, size_t n)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(buf, n, "%" PRIu64 " B", bytes);
    else
        snprintf(buf, n, v >= 100 ? "%.0f %s" : "%.3g %s", v, unit[u]);
    return buf;
}

static const char *text_name(text_kind t)
{
    return t == TEXT_ALL_A ? "all-a" : t == TEXT_CORPUS ? "corpus" : "genome";
}

/* The bytes a scenario shows: its pattern, or the first of its set. */
static size_t shown_len(const bench_scenario *p)
{
    return p->set ? p->set->lens[0] : p->len;
}

/* Pattern bytes for a table cell: printable ASCII kept, the rest as \xNN, long ones cut. */
static void print_pattern(FILE *f, const bench_scenario *p)
{
    const size_t len = shown_len(p), show = len > 40 ? 40 : len;
    fputc('`', f);
    for (size_t i = 0; i < show; i++) {
        unsigned char c = (unsigned char)p->bytes[i];
        if (c >= 0x20 && c < 0x7f && c != '`' && c != '|')
            fputc(c, f);
        else
            fprintf(f, "\\x%02x", c);
    }
    fputs(show < len ? "...`" : "`", f);
    if (p->set)
        fprintf(f, " and %u more", p->set->count - 1);
}

/* The m column: the length, or a set's shortest-longest. */
static void print_m(FILE *f, const bench_scenario *sc)
{
    if (sc->set && sc->set->min_len != sc->set->max_len)
        fprintf(f, " %zu-%zu |", sc->set->min_len, sc->set->max_len);
    else
        fprintf(f, " %zu |", sc->len);
}

static double row_kernel_gbs(const bench_row *row)
{
    return row->status == ROW_OK ? gbs(row->bytes, row->kernel_med_s) : 0.0;
}

/* The rows of one device and scenario that matter for the summary. */
typedef struct scenario_summary {
    const bench_row *best;          /* fastest explicit row (kernel GB/s), counts right */
    const bench_row *best_algo[8];  /* fastest explicit row of each algorithm */
    const bench_row *auto_row;      /* the automatic choice, if it ran */
    int explicit_rows;              /* explicit rows with a kernel time */
} scenario_summary;

static void summarize(const bench_report *r, int dev, int sc, scenario_summary *s)
{
    memset(s, 0, sizeof *s);
    for (int i = 0; i < r->row_count; i++) {
        const bench_row *row = &r->rows[i];
        if (row->device != dev || row->scenario != sc || row->data_path != CLM_PATH_AUTO)
            continue; /* the rows on one data path each are compared in their own table */
        if (row->algorithm == CLM_ALGO_AUTO) {
            s->auto_row = row;
            continue;
        }
        if (row_kernel_gbs(row) <= 0 || row->mismatch)
            continue;
        s->explicit_rows++;
        if (!s->best || row_kernel_gbs(row) > row_kernel_gbs(s->best))
            s->best = row;
        unsigned a = (unsigned)row->algorithm;
        if (a < 8 && (!s->best_algo[a] || row_kernel_gbs(row) > row_kernel_gbs(s->best_algo[a])))
            s->best_algo[a] = row;
    }
}

/* auto's kernel GB/s over the best explicit row's; 0 when either is missing. */
static double auto_ratio(const scenario_summary *s)
{
    if (!s->best || !s->auto_row || row_kernel_gbs(s->auto_row) <= 0 || s->auto_row->mismatch)
        return 0.0;
    return row_kernel_gbs(s->auto_row) / row_kernel_gbs(s->best);
}

static int same_variant(const bench_row *a, const bench_row *b)
{
    return a->got_algorithm == b->got_algorithm && a->got_variant == b->got_variant
           && a->got_table == b->got_table;
}

/* "auto is within X% of the best variant in every scenario; worst ratio R (scenario)". */
static void print_auto_line(FILE *f, const bench_report *r, int dev)
{
    double worst = 0;
    int worst_sc = -1, compared = 0, picked_best = 0, missing = 0;
    char missing_ids[256] = "";
    for (int sc = 0; sc < r->scenario_count; sc++) {
        scenario_summary s;
        summarize(r, dev, sc, &s);
        if (!s.auto_row || s.auto_row->status == ROW_UNSUPPORTED) /* not run by design */
            continue;
        double ratio = auto_ratio(&s);
        if (ratio <= 0) {
            if (s.best || s.auto_row->status != ROW_OK) {
                size_t l = strlen(missing_ids);
                snprintf(missing_ids + l, sizeof missing_ids - l, "%s%s", l ? ", " : "",
                         r->scenarios[sc].id);
                missing++;
            }
            continue;
        }
        compared++;
        picked_best += same_variant(s.auto_row, s.best);
        if (worst_sc < 0 || ratio < worst) {
            worst = ratio;
            worst_sc = sc;
        }
    }
    const bench_device *d = &r->devices[dev];
    fprintf(f, "- %d:%d %s: ", d->info.platform_index, d->info.device_index,
            device_type_name(d->info.type));
    if (worst_sc < 0) {
        fprintf(f, "no auto comparison (no scenario has both an auto row and an explicit row "
                   "with a kernel time)");
    } else {
        scenario_summary s;
        char a[64], b[64];
        summarize(r, dev, worst_sc, &s);
        fprintf(f, "**auto is within %.0f%% of the best variant in every scenario; worst ratio "
                   "%.2f (%s)**: auto chose %s at %.2f GB/s, the best was %s at %.2f GB/s. "
                   "auto chose the fastest variant itself in %d of %d scenarios",
                worst < 1 ? 100.0 * (1.0 - worst) : 0.0, worst, r->scenarios[worst_sc].id,
                row_ran(s.auto_row, a, sizeof a), row_kernel_gbs(s.auto_row),
                row_ran(s.best, b, sizeof b), row_kernel_gbs(s.best), picked_best, compared);
    }
    if (missing)
        fprintf(f, "; **auto failed or has no kernel time in %d scenario(s)**: %s", missing,
                missing_ids);
    if (strstr(r->filters, "--algo") || strstr(r->filters, "--variant")
        || strstr(r->filters, "--table"))
        fputs(" (best among the variants this filtered run measured only)", f);
    fputs("\n", f);
}

/* DFA vs KMP, kernel-only, best variant of each (the seed paper's question). */
static void print_dfa_vs_kmp(FILE *f, const bench_report *r, int dev, int sc)
{
    scenario_summary s;
    summarize(r, dev, sc, &s);
    const bench_device *d = &r->devices[dev];
    fprintf(f, "- %d:%d %s, %s: ", d->info.platform_index, d->info.device_index,
            device_type_name(d->info.type), r->scenarios[sc].title);
    const bench_row *dfa = s.best_algo[CLM_ALGO_DFA], *kmp = s.best_algo[CLM_ALGO_KMP];
    if (!dfa || !kmp) {
        fprintf(f, "no comparison (no kernel time for %s)\n", !dfa ? "DFA" : "KMP");
        return;
    }
    double x = row_kernel_gbs(dfa) / row_kernel_gbs(kmp);
    if (x >= 1.0)
        fprintf(f, "**DFA is %.2f× faster than KMP**", x);
    else
        fprintf(f, "**DFA is %.2f× as fast as KMP** (KMP is %.2f× faster)", x, 1.0 / x);
    fprintf(f, " (dfa/%s %.2f GB/s vs kmp/%s %.2f GB/s",
            clm_table_memory_name(dfa->table), row_kernel_gbs(dfa),
            clm_table_memory_name(kmp->table), row_kernel_gbs(kmp));
    if (s.best_algo[CLM_ALGO_NAIVE])
        fprintf(f, "; best naive: %s %.2f GB/s",
                clm_table_memory_name(s.best_algo[CLM_ALGO_NAIVE]->table),
                row_kernel_gbs(s.best_algo[CLM_ALGO_NAIVE]));
    fputs(")\n", f);
}

static void print_gbs_cell(FILE *f, uint64_t bytes, double seconds)
{
    if (seconds > 0)
        fprintf(f, " %.2f |", gbs(bytes, seconds));
    else
        fputs(" n/a |", f);
}

static void print_pct_cell(FILE *f, const bench_device *d, double kernel_gbs)
{
    if (kernel_gbs > 0 && d->bw.ok && d->bw.read_gbs > 0)
        fprintf(f, " %.0f%% |", 100.0 * kernel_gbs / d->bw.read_gbs);
    else
        fputs(" n/a |", f);
}

static void print_scenario_table(FILE *f, const bench_report *r, int dev)
{
    const bench_device *d = &r->devices[dev];
    fprintf(f, "\n### %d:%d %s, by scenario\n\n"
               "| scenario | best variant | kernel GB/s | %% of read BW | DFA ÷ KMP | "
               "auto chose | auto GB/s | auto ÷ best |\n"
               "|---|---|---:|---:|---:|---|---:|---:|\n",
            d->info.platform_index, d->info.device_index, device_type_name(d->info.type));
    for (int sc = 0; sc < r->scenario_count; sc++) {
        scenario_summary s;
        char a[64];
        int any = 0;
        for (int i = 0; i < r->row_count && !any; i++)
            any = r->rows[i].device == dev && r->rows[i].scenario == sc;
        if (!any)
            continue;
        summarize(r, dev, sc, &s);
        fprintf(f, "| %s |", r->scenarios[sc].id);
        if (s.best) {
            fprintf(f, " %s | %.2f |", row_ran(s.best, a, sizeof a), row_kernel_gbs(s.best));
            print_pct_cell(f, d, row_kernel_gbs(s.best));
        } else {
            fputs(" - | - | - |", f);
        }
        const bench_row *dfa = s.best_algo[CLM_ALGO_DFA], *kmp = s.best_algo[CLM_ALGO_KMP];
        if (dfa && kmp)
            fprintf(f, " %.2f× |", row_kernel_gbs(dfa) / row_kernel_gbs(kmp));
        else
            fputs(" - |", f);
        if (!s.auto_row) {
            fputs(" (not run) | - | - |\n", f);
        } else if (s.auto_row->status != ROW_OK) {
            fputs(" **ERROR** | - | - |\n", f);
        } else {
            double ratio = auto_ratio(&s);
            fprintf(f, " %s |", row_ran(s.auto_row, a, sizeof a));
            print_gbs_cell(f, s.auto_row->bytes, s.auto_row->kernel_med_s);
            if (ratio > 0)
                fprintf(f, " %s%.2f%s |\n", ratio < 0.9 ? "**" : "", ratio,
                        ratio < 0.9 ? "**" : "");
            else
                fputs(" - |\n", f);
        }
    }
}

/* End to end per data path: the automatic kernel's clm_count (and clm_scan) GB/s, transfer
 * included, on each path, beside the default row's choice. */
static void print_path_table(FILE *f, const bench_report *r, int dev)
{
    const bench_device *d = &r->devices[dev];
    int header = 0;
    for (int sc = 0; sc < r->scenario_count; sc++) {
        const bench_row *by_path[CLM_PATH_SVM + 1] = {NULL};
        int any = 0;
        for (int i = 0; i < r->row_count; i++) {
            const bench_row *row = &r->rows[i];
            if (row->device == dev && row->scenario == sc && row->algorithm == CLM_ALGO_AUTO
                && (unsigned)row->data_path <= CLM_PATH_SVM) {
                by_path[row->data_path] = row;
                any |= row->data_path != CLM_PATH_AUTO;
            }
        }
        if (!any)
            continue;
        if (!header++)
            fprintf(f, "\n### %d:%d %s, end to end by data path (clm_count GB/s; clm_scan GB/s)"
                       "\n\n| scenario | auto chose | copy | pinned | zero-copy | svm |\n"
                       "|---|---|---:|---:|---:|---:|\n",
                    d->info.platform_index, d->info.device_index,
                    device_type_name(d->info.type));
        const bench_row *a = by_path[CLM_PATH_AUTO];
        fprintf(f, "| %s | %s |", r->scenarios[sc].id,
                a && a->status == ROW_OK ? clm_data_path_name(a->got_path) : "-");
        for (int p = CLM_PATH_COPY; p <= CLM_PATH_SVM; p++) {
            const bench_row *row = by_path[p];
            if (!row)
                fputs(" - |", f);
            else if (row->status == ROW_UNSUPPORTED)
                fputs(" unsupported |", f);
            else if (row->status != ROW_OK)
                fputs(" error |", f);
            else if (r->scenarios[sc].count_only)
                fprintf(f, " %.2f |", gbs(row->bytes, row->count_med_s));
            else
                fprintf(f, " %.2f; %.2f |", gbs(row->bytes, row->count_med_s),
                        gbs(row->bytes, row->scan_med_s));
        }
        fputc('\n', f);
    }
}

/* Host read by thread count beside the pinned transfer: which of the two bounds a file
 * streamed by clm_scan_fd (read slab k+1 while slab k is transferred and searched). */
static void print_host_reads(FILE *f, const bench_report *r)
{
    int any = 0;
    for (int i = 0; i < r->device_count; i++)
        any |= r->devices[i].bw.host_read_counts > 0;
    if (!any)
        return;
    fprintf(f,
            "\n### Host read: pread of a cached file into pinned memory\n\n"
            "What `clm_scan_fd` does before a slab can be transferred: `pread` of a file in the "
            "page cache (H2D bytes of it) into the mapped pinned buffer of the H2D row, as a "
            "file scan reads: slabs of %d MiB, the next one queued, in pieces that a pool of "
            "threads takes (the last count is clmatch's default, `CLMATCH_IO_THREADS` sets "
            "it). GB/s median (best).\n\n"
            "| device | threads | host read GB/s | ÷ H2D pinned |\n|---|---:|---:|---:|\n",
            CLM_FILE_SLAB_MIB);
    for (int i = 0; i < r->device_count; i++) {
        const bench_device *d = &r->devices[i];
        for (int c = 0; c < d->bw.host_read_counts; c++) {
            fprintf(f, "| %d:%d | %u | %.2f (%.2f) |", d->info.platform_index,
                    d->info.device_index, d->bw.host_read_threads[c], d->bw.host_read_gbs[c],
                    d->bw.host_read_gbs_best[c]);
            if (d->bw.h2d_pinned_gbs > 0)
                fprintf(f, " %.2f |\n", d->bw.host_read_gbs[c] / d->bw.h2d_pinned_gbs);
            else
                fputs(" n/a |\n", f);
        }
    }
    fputc('\n', f);
    for (int i = 0; i < r->device_count; i++) {
        const bench_device *d = &r->devices[i];
        unsigned threads = 0;
        double host = host_read_best(&d->bw, &threads);
        int last = d->bw.host_read_counts - 1;
        if (host <= 0 || d->bw.h2d_pinned_gbs <= 0)
            continue;
        fprintf(f, "- %d:%d: with %u thread%s (the default) the host reads %.1f GB/s, the bus "
                   "takes %.1f GB/s from pinned memory: on the pinned path, streaming a cached file "
                   "is bound by the %s (at best %.1f GB/s%s).\n",
                d->info.platform_index, d->info.device_index, d->bw.host_read_threads[last],
                d->bw.host_read_threads[last] == 1 ? "" : "s", d->bw.host_read_gbs[last],
                d->bw.h2d_pinned_gbs,
                d->bw.host_read_gbs[last] < d->bw.h2d_pinned_gbs ? "host read" : "transfer",
                d->bw.host_read_gbs[last] < d->bw.h2d_pinned_gbs ? d->bw.host_read_gbs[last]
                                                                 : d->bw.h2d_pinned_gbs,
                threads != d->bw.host_read_threads[last] ? "; fewer threads read faster here"
                                                          : "");
    }
}

/* The multi suite per device: every row of a set with its compile time (kernel builds
 * included unless the program cache had them) and table memory (clm_database_info). */
static void print_multi_table(FILE *f, const bench_report *r, int dev)
{
    const bench_device *d = &r->devices[dev];
    int header = 0;
    for (int i = 0; i < r->row_count; i++) {
        const bench_row *row = &r->rows[i];
        const bench_scenario *sc = &r->scenarios[row->scenario];
        char ran[64];
        if (row->device != dev || !sc->set || row->data_path != CLM_PATH_AUTO)
            continue;
        if (!header++)
            fprintf(f, "\n### %d:%d %s, pattern sets (multi)\n\n"
                       "Compile s: `clm_compile` wall time (kernel builds included, unless "
                       "*cached*: every program came from the cache). Table memory: device "
                       "memory of every engine's pattern tables (`clm_database_info."
                       "table_bytes`); *local*: the local memory a work-group fills with "
                       "tables (`local_table_bytes`, the largest engine's), when any.\n\n"
                       "| scenario | patterns | m | row | kernel GB/s | %% of read BW | e2e GB/s "
                       "count | compile s | table memory | matches | reference |\n"
                       "|---|---:|---|---|---:|---:|---:|---:|---|---:|---|\n",
                    d->info.platform_index, d->info.device_index,
                    device_type_name(d->info.type));
        fprintf(f, "| %s | %u |", sc->id, sc->set->count);
        print_m(f, sc);
        fprintf(f, " %s%s |", row->algorithm == CLM_ALGO_AUTO ? "auto → " : "",
                row_ran(row, ran, sizeof ran));
        if (row->status != ROW_OK) {
            char note[300];
            one_line(note, sizeof note, row->note);
            fprintf(f, " - | - | - | - | - | - | %s%s |\n",
                    row->status == ROW_UNSUPPORTED ? "unsupported: " : "**ERROR**: ", note);
            continue;
        }
        print_gbs_cell(f, row->bytes, row->kernel_med_s);
        print_pct_cell(f, d, row_kernel_gbs(row));
        print_gbs_cell(f, row->bytes, row->count_med_s);
        char tables[32], local[32];
        fprintf(f, " %.2f%s | %s", row->compile_s, row->cache_hit ? " (cached)" : "",
                human_bytes(row->table_bytes, tables, sizeof tables));
        if (row->local_table_bytes)
            fprintf(f, " (local %s)", human_bytes(row->local_table_bytes, local, sizeof local));
        fprintf(f, " | %" PRIu64 " | %s |\n", row->matches,
                row->mismatch ? "**MISMATCH**" : "agrees");
    }
}

void report_markdown(FILE *f, const bench_report *r)
{
    fprintf(f, "# clmatch bench: %s, %s%s\n\n", r->label, r->date, r->quick ? " (quick)" : "");
    fprintf(f, "- Date: %s\n", r->timestamp);
    fprintf(f, "- Host: %s%s%s\n", r->host, r->cpu[0] ? "; CPU: " : "", r->cpu);
    fprintf(f, "- clmatch %s\n", clm_version());
    fprintf(f, "- Suites: %s%s%s%s; %d scenarios, %d rows, measured in %.0f s\n", r->suites,
            r->filters[0] ? " (filtered: `" : "", r->filters, r->filters[0] ? "`)" : "",
            r->scenario_count, r->row_count, r->run_seconds);
    fprintf(f, "- Text: `%s` (%zu bytes of FASTA, headers and newlines kept) repeated to ",
            r->genome_path, r->genome_bytes);
    print_mib(f, r->text_bytes);
    fprintf(f, " (%.1f copies), in pageable host memory; worst cases scan a text of `a` bytes "
               "(sizes per device below)\n",
            (double)r->text_bytes / (double)(r->genome_bytes ? r->genome_bytes : 1));
    if (r->corpus_path)
        fprintf(f, "- Corpus (the multi suite's words): `%s` (%zu bytes of English text) "
                   "repeated to the same size\n", r->corpus_path, r->corpus_bytes);
    fprintf(f, "- Method: per row one warm-up call on a 4 MiB prefix (excluded: it makes the "
               "first launch), then calls over the whole text until %.2g s and at least %d, cut "
               "at %.2g s, for `clm_count` and again for `clm_scan`; medians shown, best in the "
               "CSV. GB/s = 10^9 bytes of text per second.\n",
            r->time_per_row / 2, r->min_reps, r->max_time_per_row / 2);

    fputs("\n## Devices\n\n"
          "| device | type | name | text scanned | all-'a' text | read BW GB/s | "
          "H2D pageable GB/s | H2D pinned GB/s | host read GB/s | notes |\n"
          "|---|---|---|---|---|---|---|---|---|---|\n", f);
    for (int i = 0; i < r->device_count; i++) {
        const bench_device *d = &r->devices[i];
        char name[160], err[200], tuning[1024];
        one_line(name, sizeof name, d->info.name);
        one_line(err, sizeof err, d->bw.error);
        one_line(tuning, sizeof tuning, d->tuning);
        fprintf(f, "| %d:%d | %s | %s | ", d->info.platform_index, d->info.device_index,
                device_type_name(d->info.type), name);
        print_mib(f, d->text_bytes);
        fputs(" | ", f);
        print_mib(f, d->worst_bytes);
        if (d->bw.ok) {
            fprintf(f, " | %.1f (%s, ", d->bw.read_gbs, d->bw.read_kernel);
            print_mib(f, d->bw.read_bytes);
            fputs(")", f);
        } else {
            fputs(" | n/a", f);
        }
        fputs(" |", f);
        print_gbs_cell(f, 1, d->bw.h2d_pageable_gbs > 0 ? 1e-9 / d->bw.h2d_pageable_gbs : 0);
        print_gbs_cell(f, 1, d->bw.h2d_pinned_gbs > 0 ? 1e-9 / d->bw.h2d_pinned_gbs : 0);
        unsigned threads = 0;
        double host = host_read_best(&d->bw, &threads);
        if (host > 0)
            fprintf(f, " %.2f (%u thread%s) |", host, threads, threads == 1 ? "" : "s");
        else
            fputs(" n/a |", f);
        fprintf(f, " %s%s%s |\n", err, err[0] && tuning[0] ? "; " : "", tuning);
    }
    print_host_reads(f, r);

    fputs("\n## Scenarios\n\n"
          "| scenario | what | text | pattern | m | k | from | measured |\n"
          "|---|---|---|---|---:|---:|---|---|\n", f);
    for (int i = 0; i < r->scenario_count; i++) {
        const bench_scenario *sc = &r->scenarios[i];
        fprintf(f, "| %s | %s | %s | ", sc->id, sc->title,
                sc->text == TEXT_ALL_A ? "all `a`" : text_name(sc->text));
        print_pattern(f, sc);
        fputs(" |", f);
        print_m(f, sc);
        fprintf(f, " %u | %s | %s |\n", sc->k, sc->origin,
                sc->count_only ? "clm_count" : "clm_count, clm_scan");
    }

    fputs("\n## Summary (kernel-only)\n\n"
          "The automatic choice against the fastest explicit variant of each scenario "
          "(auto ÷ best = auto's kernel GB/s over the best explicit row's):\n\n", f);
    for (int d = 0; d < r->device_count; d++)
        print_auto_line(f, r, d);
    int any_dfa_kmp = 0;
    for (int sc = 0; sc < r->scenario_count; sc++)
        if (!strcmp(r->scenarios[sc].id, "exact-13") || !strcmp(r->scenarios[sc].id, "exact-32")) {
            if (!any_dfa_kmp++)
                fputs("\nThe seed paper's question, DFA vs KMP (best table memory of each):\n\n",
                      f);
            for (int d = 0; d < r->device_count; d++)
                print_dfa_vs_kmp(f, r, d, sc);
        }
    if (r->mismatches)
        fprintf(f, "\n**MISMATCH: %d row(s) disagree with the host reference count** (see "
                   "notes)\n", r->mismatches);
    else
        fputs("\nEvery row's count agrees with the host reference count.\n", f);
    if (r->errors)
        fprintf(f, "\n**%d row(s) failed** (see notes)\n", r->errors);
    for (int d = 0; d < r->device_count; d++)
        print_scenario_table(f, r, d);
    for (int d = 0; d < r->device_count; d++)
        print_path_table(f, r, d);

    for (int d = 0; d < r->device_count; d++)
        print_multi_table(f, r, d);

    fputs("\n## Results\n\n"
          "| device | scenario | algorithm | variant | table memory | m | k | kernel GB/s | "
          "% of read BW | e2e GB/s count | e2e GB/s scan | matches | notes |\n"
          "|---|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n", f);
    for (int i = 0; i < r->row_count; i++) {
        const bench_row *row = &r->rows[i];
        const bench_device *d = &r->devices[row->device];
        const bench_scenario *sc = &r->scenarios[row->scenario];
        const int ok = row->status == ROW_OK;
        char note[600];
        if (row->algorithm == CLM_ALGO_AUTO && ok && row->choice[0]) {
            char n2[300];
            one_line(n2, sizeof n2, row->note);
            snprintf(note, sizeof note, "%s%s%s", row->choice, n2[0] ? "; " : "", n2);
        } else {
            one_line(note, sizeof note, row->note);
        }
        fprintf(f, "| %d:%d %s | %s | ", d->info.platform_index, d->info.device_index,
                device_type_name(d->info.type), sc->id);
        if (row->algorithm == CLM_ALGO_AUTO && row->data_path != CLM_PATH_AUTO)
            fprintf(f, "**auto**, data path %s → %s | %s | %s |",
                    clm_data_path_name(row->data_path), ok ? clm_algorithm_name(row->got_algorithm) : "?",
                    ok ? variant_name(row->got_variant) : "auto",
                    ok ? clm_table_memory_name(row->got_table) : "auto");
        else if (row->algorithm == CLM_ALGO_AUTO)
            fprintf(f, "**auto** → %s | %s | %s |", ok ? clm_algorithm_name(row->got_algorithm) : "?",
                    ok ? variant_name(row->got_variant) : "auto",
                    ok ? clm_table_memory_name(row->got_table) : "auto");
        else
            fprintf(f, "%s | %s | %s |", clm_algorithm_name(row->algorithm),
                    variant_name(ok ? row->got_variant : row->variant),
                    clm_table_memory_name(row->table));
        print_m(f, sc);
        fprintf(f, " %u |", sc->k);
        if (!ok) {
            fprintf(f, " - | - | - | - | - | %s%s |\n",
                    row->status == ROW_UNSUPPORTED ? "unsupported: " : "**ERROR**: ", note);
            continue;
        }
        print_gbs_cell(f, row->bytes, row->kernel_med_s);
        print_pct_cell(f, d, row_kernel_gbs(row));
        print_gbs_cell(f, row->bytes, row->count_med_s);
        if (sc->count_only)
            fputs(" count only |", f);
        else
            print_gbs_cell(f, row->bytes, row->scan_med_s);
        fprintf(f, " %" PRIu64 " | %s%s |\n", row->matches, row->mismatch ? "**MISMATCH** " : "",
                note);
    }
}

/* A CSV field: quoted when it holds a comma, quote or newline. */
static void csv_text(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
    }
    fputc('"', f);
}

static void csv_pattern(FILE *f, const bench_scenario *p)
{
    char buf[200];
    size_t n = 0;
    for (size_t i = 0; i < shown_len(p) && n + 8 < sizeof buf; i++) {
        unsigned char c = (unsigned char)p->bytes[i];
        if (c >= 0x20 && c < 0x7f && c != '\\')
            buf[n++] = (char)c;
        else
            n += (size_t)snprintf(buf + n, sizeof buf - n, "\\x%02x", c);
    }
    if (n + 8 >= sizeof buf)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "...");
    buf[n] = '\0';
    csv_text(f, buf);
}

void report_csv(FILE *f, const bench_report *r)
{
    fputs("label,date,device,device_type,device_name,read_bw_gbs,h2d_pageable_gbs,"
          "h2d_pinned_gbs,scenario,text,algorithm,variant,table_memory,m,k,mismatches_only,"
          "pattern,status,bytes,kernel_gbs_median,kernel_gbs_best,pct_of_read_bw,"
          "count_gbs_median,count_gbs_best,scan_gbs_median,scan_gbs_best,count_reps,scan_reps,"
          "matches,expected,matches_by_edits,mismatch,compile_s,warmup_count_s,warmup_scan_s,"
          "work_group_size,bytes_per_item,auto_choice,auto_vs_best,choice,note,data_path,"
          "data_path_used,host_read_gbs,host_read_threads,pattern_count,min_m,cache_hit,"
          "table_bytes\n", f);
    for (int i = 0; i < r->row_count; i++) {
        const bench_row *row = &r->rows[i];
        const bench_device *d = &r->devices[row->device];
        const bench_scenario *sc = &r->scenarios[row->scenario];
        const int ok = row->status == ROW_OK;
        const int is_auto = row->algorithm == CLM_ALGO_AUTO;
        double kernel = ok ? gbs(row->bytes, row->kernel_med_s) : 0;
        csv_text(f, r->label);
        fprintf(f, ",%s,%d:%d,%s,", r->date, d->info.platform_index, d->info.device_index,
                device_type_name(d->info.type));
        csv_text(f, d->info.name);
        fprintf(f, ",%.3f,%.3f,%.3f,%s,%s,%s,%s,%s,%zu,%u,%d,", d->bw.ok ? d->bw.read_gbs : 0.0,
                d->bw.h2d_pageable_gbs, d->bw.h2d_pinned_gbs, sc->id,
                text_name(sc->text), clm_algorithm_name(row->algorithm),
                variant_name(ok && !is_auto ? row->got_variant : row->variant),
                clm_table_memory_name(row->table), sc->len, sc->k,
                (sc->flags & CLM_MISMATCHES_ONLY) != 0);
        csv_pattern(f, sc);
        fprintf(f, ",%s,%" PRIu64 ",%.4f,%.4f,%.1f,%.4f,%.4f,%.4f,%.4f,%d,%d,",
                ok ? "ok" : row->status == ROW_UNSUPPORTED ? "unsupported" : "error",
                row->bytes, kernel, ok ? gbs(row->bytes, row->kernel_min_s) : 0,
                kernel > 0 && d->bw.ok && d->bw.read_gbs > 0 ? 100.0 * kernel / d->bw.read_gbs
                                                              : 0.0,
                ok ? gbs(row->bytes, row->count_med_s) : 0,
                ok ? gbs(row->bytes, row->count_min_s) : 0,
                ok ? gbs(row->bytes, row->scan_med_s) : 0,
                ok ? gbs(row->bytes, row->scan_min_s) : 0, row->count_reps, row->scan_reps);
        fprintf(f, "%" PRIu64 ",%" PRIu64 ",", row->matches, row->expected);
        if (sc->k && ok)
            for (unsigned e = 0; e <= sc->k && e <= BENCH_MAX_K; e++)
                fprintf(f, "%s%" PRIu64, e ? "/" : "", row->scan_hist[e]);
        fprintf(f, ",%d,%.3f,%.3f,%.3f,%u,%u,", row->mismatch, row->compile_s,
                row->warmup_count_s, row->warmup_scan_s, row->work_group_size,
                row->bytes_per_item);
        char ran[64] = "";
        double ratio = 0;
        if (is_auto && ok) {
            scenario_summary s;
            summarize(r, row->device, row->scenario, &s);
            row_ran(row, ran, sizeof ran);
            ratio = auto_ratio(&s);
        }
        fprintf(f, "%s,", ran);
        if (ratio > 0)
            fprintf(f, "%.3f", ratio);
        fputc(',', f);
        csv_text(f, row->choice);
        fputc(',', f);
        char note[512];
        one_line(note, sizeof note, row->note);
        csv_text(f, note);
        fprintf(f, ",%s,%s,", clm_data_path_name(row->data_path),
                ok ? clm_data_path_name(row->got_path) : "");
        /* the host read at the default thread count, and "threads:GB/s" for every count */
        int last = d->bw.host_read_counts - 1;
        if (last >= 0)
            fprintf(f, "%.3f", d->bw.host_read_gbs[last]);
        fputc(',', f);
        for (int c = 0; c <= last; c++)
            fprintf(f, "%s%u:%.3f", c ? "/" : "", d->bw.host_read_threads[c],
                    d->bw.host_read_gbs[c]);
        /* table_bytes: clm_database_info.table_bytes of the row's database (empty when the
         * row did not run) */
        fprintf(f, ",%u,%zu,%d,", sc->set ? sc->set->count : 1,
                sc->set ? sc->set->min_len : sc->len, ok ? row->cache_hit : 0);
        if (ok)
            fprintf(f, "%" PRIu64, row->table_bytes);
        fputc('\n', f);
    }
}
