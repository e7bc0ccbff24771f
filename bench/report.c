/*
 * clmatch-bench — the report: a markdown page (header, summary, table) and a CSV with every
 * number, both made from the same bench_report.
 */
#include <inttypes.h>
#include <string.h>

#include "bench.h"

static void print_mib(FILE *f, uint64_t bytes)
{
    if (bytes >= GIB && bytes % (GIB / 4) == 0)
        fprintf(f, "%.4g GiB", (double)bytes / (double)GIB);
    else
        fprintf(f, "%.4g MiB", (double)bytes / (double)MIB);
}

/* Pattern bytes for a table cell: printable ASCII kept, the rest as \xNN, long ones cut. */
static void print_pattern(FILE *f, const bench_pattern *p)
{
    const size_t show = p->len > 40 ? 40 : p->len;
    fputc('`', f);
    for (size_t i = 0; i < show; i++) {
        unsigned char c = (unsigned char)p->bytes[i];
        if (c >= 0x20 && c < 0x7f && c != '`' && c != '|')
            fputc(c, f);
        else
            fprintf(f, "\\x%02x", c);
    }
    fputs(show < p->len ? "...`" : "`", f);
}

/* "13", or "13 (#3)" when another pattern has the same length. */
static void print_m(FILE *f, const bench_report *r, int pattern)
{
    int same = 0;
    for (int i = 0; i < r->pattern_count; i++)
        same += r->patterns[i].len == r->patterns[pattern].len;
    fprintf(f, "%zu", r->patterns[pattern].len);
    if (same > 1)
        fprintf(f, " (#%d)", pattern + 1);
}

static double row_kernel_gbs(const bench_row *row)
{
    return row->status == ROW_OK ? gbs(row->bytes, row->kernel_med_s) : 0.0;
}

/* DFA vs KMP, kernel-only, best variant of each, for one device and pattern. */
static void print_dfa_vs_kmp(FILE *f, const bench_report *r, int dev, int pat)
{
    const bench_row *best[4] = {NULL, NULL, NULL, NULL};
    for (int i = 0; i < r->row_count; i++) {
        const bench_row *row = &r->rows[i];
        if (row->device != dev || row->pattern != pat || row_kernel_gbs(row) <= 0)
            continue;
        int a = (int)row->algorithm;
        if (a >= 0 && a < 4 && (!best[a] || row_kernel_gbs(row) > row_kernel_gbs(best[a])))
            best[a] = row;
    }
    const bench_device *d = &r->devices[dev];
    fprintf(f, "- %d:%d %s, m = ", d->info.platform_index, d->info.device_index,
            device_type_name(d->info.type));
    print_m(f, r, pat);
    fputs(": ", f);
    const bench_row *dfa = best[CLM_ALGO_DFA], *kmp = best[CLM_ALGO_KMP];
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
    if (best[CLM_ALGO_NAIVE])
        fprintf(f, "; best naive: %s %.2f GB/s",
                clm_table_memory_name(best[CLM_ALGO_NAIVE]->table),
                row_kernel_gbs(best[CLM_ALGO_NAIVE]));
    fputs(")\n", f);
}

static void print_gbs_cell(FILE *f, uint64_t bytes, double seconds)
{
    if (seconds > 0)
        fprintf(f, " %.2f |", gbs(bytes, seconds));
    else
        fputs(" n/a |", f);
}

void report_markdown(FILE *f, const bench_report *r)
{
    fprintf(f, "# clmatch bench: %s, %s%s\n\n", r->label, r->date, r->quick ? " (quick)" : "");
    fprintf(f, "- Date: %s\n", r->timestamp);
    fprintf(f, "- Host: %s%s%s\n", r->host, r->cpu[0] ? "; CPU: " : "", r->cpu);
    fprintf(f, "- clmatch %s\n", clm_version());
    fprintf(f, "- Text: `%s` (%zu bytes of FASTA, headers and newlines kept) repeated to ",
            r->genome_path, r->genome_bytes);
    print_mib(f, r->text_bytes);
    fprintf(f, " (%.1f copies), in pageable host memory\n",
            (double)r->text_bytes / (double)(r->genome_bytes ? r->genome_bytes : 1));
    fputs("- Patterns:", f);
    for (int i = 0; i < r->pattern_count; i++) {
        const bench_pattern *p = &r->patterns[i];
        fprintf(f, "%s #%d m = %zu ", i ? ";" : "", i + 1, p->len);
        print_pattern(f, p);
        if (p->from_genome)
            fprintf(f, " (genome offset %zu)", p->genome_offset);
        else
            fputs(" (--pattern)", f);
    }
    fputs("\n", f);
    fprintf(f, "- Method: per row one warm-up call (excluded: it includes first-launch "
               "compilation), then calls until %.2g s and at least %d, cut at %.2g s, for "
               "`clm_count` and again for `clm_scan`; medians shown, best in the CSV. "
               "GB/s = 10^9 bytes of text per second.\n",
            r->time_per_row / 2, r->min_reps, r->max_time_per_row / 2);

    fputs("\n## Devices\n\n"
          "| device | type | name | text scanned | read BW GB/s | H2D pageable GB/s | "
          "H2D pinned GB/s | notes |\n"
          "|---|---|---|---|---|---|---|---|\n", f);
    for (int i = 0; i < r->device_count; i++) {
        const bench_device *d = &r->devices[i];
        char name[160], err[200];
        one_line(name, sizeof name, d->info.name);
        one_line(err, sizeof err, d->bw.error);
        fprintf(f, "| %d:%d | %s | %s | ", d->info.platform_index, d->info.device_index,
                device_type_name(d->info.type), name);
        print_mib(f, d->text_bytes);
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
        fprintf(f, " %s |\n", err);
    }

    fputs("\n## Summary (kernel-only, best table memory of each algorithm)\n\n", f);
    for (int d = 0; d < r->device_count; d++)
        for (int p = 0; p < r->pattern_count; p++)
            print_dfa_vs_kmp(f, r, d, p);
    if (r->mismatches)
        fprintf(f, "\n**MISMATCH: %d row(s) disagree with the host reference count** (see "
                   "notes)\n", r->mismatches);
    else
        fputs("\nEvery row's count agrees with the host reference count.\n", f);
    if (r->errors)
        fprintf(f, "\n**%d row(s) failed** (see notes)\n", r->errors);

    fputs("\n## Results\n\n"
          "| device | algorithm | table memory | m | kernel GB/s | % of read BW | "
          "e2e GB/s count | e2e GB/s scan | matches | notes |\n"
          "|---|---|---|---:|---:|---:|---:|---:|---:|---|\n", f);
    for (int i = 0; i < r->row_count; i++) {
        const bench_row *row = &r->rows[i];
        const bench_device *d = &r->devices[row->device];
        char note[300];
        one_line(note, sizeof note, row->note);
        fprintf(f, "| %d:%d %s | %s | %s | ", d->info.platform_index, d->info.device_index,
                device_type_name(d->info.type), clm_algorithm_name(row->algorithm),
                clm_table_memory_name(row->table));
        print_m(f, r, row->pattern);
        fputs(" |", f);
        if (row->status != ROW_OK) {
            fprintf(f, " - | - | - | - | - | %s%s |\n",
                    row->status == ROW_UNSUPPORTED ? "unsupported: " : "**ERROR**: ", note);
            continue;
        }
        print_gbs_cell(f, row->bytes, row->kernel_med_s);
        if (row->kernel_med_s > 0 && d->bw.ok && d->bw.read_gbs > 0)
            fprintf(f, " %.0f%% |", 100.0 * gbs(row->bytes, row->kernel_med_s) / d->bw.read_gbs);
        else
            fputs(" n/a |", f);
        print_gbs_cell(f, row->bytes, row->count_med_s);
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

static void csv_pattern(FILE *f, const bench_pattern *p)
{
    char buf[200];
    size_t n = 0;
    for (size_t i = 0; i < p->len && n + 5 < sizeof buf; i++) {
        unsigned char c = (unsigned char)p->bytes[i];
        if (c >= 0x20 && c < 0x7f && c != '\\')
            buf[n++] = (char)c;
        else
            n += (size_t)snprintf(buf + n, sizeof buf - n, "\\x%02x", c);
    }
    buf[n] = '\0';
    csv_text(f, buf);
}

void report_csv(FILE *f, const bench_report *r)
{
    fputs("label,date,device,device_type,device_name,read_bw_gbs,h2d_pageable_gbs,"
          "h2d_pinned_gbs,algorithm,table_memory,m,pattern,status,bytes,"
          "kernel_gbs_median,kernel_gbs_best,pct_of_read_bw,count_gbs_median,count_gbs_best,"
          "scan_gbs_median,scan_gbs_best,count_reps,scan_reps,matches,expected,mismatch,"
          "compile_s,warmup_count_s,warmup_scan_s,work_group_size,bytes_per_item,note\n", f);
    for (int i = 0; i < r->row_count; i++) {
        const bench_row *row = &r->rows[i];
        const bench_device *d = &r->devices[row->device];
        const int ok = row->status == ROW_OK;
        double kernel = ok ? gbs(row->bytes, row->kernel_med_s) : 0;
        csv_text(f, r->label);
        fprintf(f, ",%s,%d:%d,%s,", r->date, d->info.platform_index, d->info.device_index,
                device_type_name(d->info.type));
        csv_text(f, d->info.name);
        fprintf(f, ",%.3f,%.3f,%.3f,%s,%s,%zu,", d->bw.ok ? d->bw.read_gbs : 0.0,
                d->bw.h2d_pageable_gbs, d->bw.h2d_pinned_gbs,
                clm_algorithm_name(row->algorithm), clm_table_memory_name(row->table),
                r->patterns[row->pattern].len);
        csv_pattern(f, &r->patterns[row->pattern]);
        fprintf(f, ",%s,%" PRIu64 ",%.4f,%.4f,%.1f,%.4f,%.4f,%.4f,%.4f,%d,%d,",
                ok ? "ok" : row->status == ROW_UNSUPPORTED ? "unsupported" : "error",
                row->bytes, kernel, ok ? gbs(row->bytes, row->kernel_min_s) : 0,
                kernel > 0 && d->bw.ok && d->bw.read_gbs > 0 ? 100.0 * kernel / d->bw.read_gbs
                                                              : 0.0,
                ok ? gbs(row->bytes, row->count_med_s) : 0,
                ok ? gbs(row->bytes, row->count_min_s) : 0,
                ok ? gbs(row->bytes, row->scan_med_s) : 0,
                ok ? gbs(row->bytes, row->scan_min_s) : 0, row->count_reps, row->scan_reps);
        fprintf(f, "%" PRIu64 ",%" PRIu64 ",%d,%.3f,%.3f,%.3f,%u,%u,", row->matches,
                row->expected, row->mismatch, row->compile_s, row->warmup_count_s,
                row->warmup_scan_s, row->work_group_size, row->bytes_per_item);
        char note[512];
        one_line(note, sizeof note, row->note);
        csv_text(f, note);
        fputc('\n', f);
    }
}
