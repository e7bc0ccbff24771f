/*
 * clmatch-mpi — clmatch over MPI ranks: each rank searches a byte range of one shared file on
 * its own device, and rank 0 prints the results in text order, byte for byte what one clmatch
 * process prints.
 *
 *     mpirun -n N clmatch-mpi [OPTIONS] PATTERN FILE
 *
 * The file is cut into N nearly equal parts. When the output is about lines (line output, -c,
 * -n) every cut moves forward to the next line start, so that each line belongs to one rank;
 * otherwise the cuts stay where they are. A rank searches its part plus the context a match
 * needs around it (longest pattern - 1 after it, and for approximate search k more after and
 * 2k before, as the library's device sets do) and keeps the matches that start in its part.
 * Line numbers add the newlines of the earlier parts (a prefix sum over the ranks). Every rank
 * formats its own output and holds it; once every rank has searched, rank 0 writes its own,
 * then the others' in rank order.
 *
 * The text is read through a read-only mapping of the file: the file must not change while it
 * is searched.
 */
#include "clmatch.h"
#include "cli_common.h"
#include "grep_args.h"
#include "grep_db.h"
#include "patterns.h"

#include <mpi.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- each rank's output, held until every rank has searched its part: a failure of any
 * rank leaves nothing printed ---- */

typedef struct {
    char *p;
    size_t len, cap;
    int oom;
} rank_out;

static rank_out ro;

static void ro_bytes(const void *p, size_t n)
{
    if (ro.oom)
        return;
    if (n > ro.cap - ro.len) {
        size_t cap = ro.cap ? ro.cap : 1 << 16;
        while (n > cap - ro.len)
            cap *= 2;
        char *q = realloc(ro.p, cap);
        if (!q) {
            ro.oom = 1;
            return;
        }
        ro.p = q;
        ro.cap = cap;
    }
    memcpy(ro.p + ro.len, p, n);
    ro.len += n;
}

static void ro_char(char ch)
{
    ro_bytes(&ch, 1);
}

static void ro_u64(uint64_t v)
{
    char tmp[20];
    size_t i = u64_digits(v, tmp);
    ro_bytes(tmp + i, sizeof tmp - i);
}

/* Matched bytes of an approximate match: newline as \n, backslash as \\ (as clmatch -o -k). */
static void ro_escaped(const unsigned char *p, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        if (p[i] == '\n' || p[i] == '\\') {
            ro_char('\\');
            ro_char(p[i] == '\n' ? 'n' : '\\');
        } else {
            ro_char((char)p[i]);
        }
    }
}

/* ---- the messages of steps every rank takes alike ---- */

/* "rank R of N on HOST", for the messages of one rank's own failure. */
static const char *rank_name(void)
{
    static char name[MPI_MAX_PROCESSOR_NAME + 64];
    char host[MPI_MAX_PROCESSOR_NAME];
    int rank, size, len = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (MPI_Get_processor_name(host, &len) != MPI_SUCCESS)
        len = 0;
    host[len < MPI_MAX_PROCESSOR_NAME ? len : MPI_MAX_PROCESSOR_NAME - 1] = '\0';
    snprintf(name, sizeof name, "rank %d of %d on %s", rank, size, len ? host : "?");
    return name;
}

/* Parsing, patterns, the file and the device fail on every rank alike (same command line,
 * same file): rank 0 speaks for all. The other ranks hold their stderr in a temporary file
 * (and drop their stdout: --help) and show what they held only when rank 0 did not fail. */
typedef struct {
    int saved_err, saved_out;
    FILE *held;
} hush;

static void hush_begin(hush *h, int rank)
{
    h->held = NULL;
    h->saved_err = h->saved_out = -1;
    if (rank == 0)
        return;
    fflush(stdout);
    fflush(stderr);
    h->held = tmpfile();
    int null = open("/dev/null", O_WRONLY);
    if (h->held && null >= 0) {
        h->saved_err = dup(STDERR_FILENO);
        h->saved_out = dup(STDOUT_FILENO);
        dup2(fileno(h->held), STDERR_FILENO);
        dup2(null, STDOUT_FILENO);
    }
    if (null >= 0)
        close(null);
}

/* The step's end on every rank (collective): bad is this rank's outcome. Returns whether any
 * rank failed. */
static int hush_end(hush *h, int rank, int bad)
{
    int mine[2] = {bad != 0, rank == 0 && bad}, all[2];
    if (h->saved_err >= 0) {
        fflush(stdout);
        fflush(stderr);
        dup2(h->saved_err, STDERR_FILENO);
        dup2(h->saved_out, STDOUT_FILENO);
        close(h->saved_err);
        close(h->saved_out);
    }
    MPI_Allreduce(mine, all, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (h->held) {
        if (bad && !all[1]) { /* a failure of this rank alone: say it, and where */
            char buf[4096];
            size_t n;
            errmsg("%s:", rank_name());
            rewind(h->held);
            while ((n = fread(buf, 1, sizeof buf, h->held)) > 0)
                fwrite(buf, 1, n, stderr);
        }
        fclose(h->held);
    }
    return all[0];
}

/* ---- options this driver does not take ---- */

static int refuse(const config *cfg)
{
    const char *what = cfg->list_devices ? "--list-devices"
                     : cfg->json          ? "--json"
                     : cfg->stats         ? "--stats"
                     : cfg->devices       ? "--devices (start one rank per device instead)"
                     : cfg->word_regexp   ? "-w"
                     : cfg->line_regexp   ? "-x"
                     : cfg->non_overlapping ? "--non-overlapping"
                     : cfg->invert        ? "-v"
                     : cfg->list_files    ? "-l or -L"
                     : cfg->max_count != UINT64_MAX ? "-m"
                     : cfg->before >= 0 || cfg->after >= 0 ? "-A, -B or -C"
                     : cfg->null_after_name ? "-Z"
                     : cfg->null_data     ? "-z"
                     : cfg->recursive     ? "-r or -R"
                     : cfg->label         ? "--label"
                     : cfg->n_file_globs || cfg->n_exclude_dirs
                         ? "--include, --exclude or --exclude-dir"
                     : cfg->color         ? "--color"
                     : cfg->binary_files != BINARY_BINARY ? "--text or -I"
                                            : NULL;
    if (what) {
        errmsg("clmatch-mpi does not take %s", what);
        return -1;
    }
    size_t i;
    for (i = 0; i < cfg->n_pattern_args; i++)
        if (cfg->pattern_is_file[i] && strcmp(cfg->pattern_args[i], "-") == 0) {
            /* mpirun gives standard input to rank 0 alone */
            errmsg("clmatch-mpi does not take -f - (patterns from standard input)");
            return -1;
        }
    if (cfg->n_files != 1 || strcmp(cfg->files[0], "-") == 0) {
        errmsg("clmatch-mpi searches one FILE, a regular file every rank can read");
        return -1;
    }
    return 0;
}

/* ---- device ---- */

/* The device of this rank: -d (or CLMATCH_DEVICE) when given, every rank the same; otherwise
 * the automatic device's platform, its device number local_rank modulo the number of devices
 * of that type there: N ranks on a host of N GPUs take one GPU each. 0, or -1 after a
 * message. */
static int open_rank_device(const cli_device_opts *o, int local_rank, clm_device **dev)
{
    clm_device_info di, *list = NULL;
    size_t n = 0, i, same = 0, nth = 0;
    int want = -1;
    if (cli_open_device(o, dev) != 0)
        return -1;
    if (o->device >= 0 || getenv("CLMATCH_DEVICE") ||
        clm_device_get_info(*dev, &di, sizeof di) != CLM_OK ||
        clm_list_devices(0, sizeof *list, &list, &n) != CLM_OK)
        return 0;
    for (i = 0; i < n; i++)
        if (list[i].platform_index == di.platform_index && list[i].type == di.type)
            same++;
    for (i = 0; i < n && same; i++)
        if (list[i].platform_index == di.platform_index && list[i].type == di.type &&
            nth++ == (size_t)local_rank % same)
            want = list[i].device_index;
    clm_free_device_list(list);
    if (want < 0 || want == di.device_index)
        return 0;
    cli_device_opts mine = *o;
    mine.platform = di.platform_index;
    mine.device = want;
    clm_device_close(*dev);
    return cli_open_device(&mine, dev);
}

typedef struct {
    clm_device *dev;
    clm_database *db;
    clm_scratch *scratch;
    size_t lead, tail; /* context a part needs before and after it */
} engine;

static int compile_patterns(const config *cfg, const pattern_list *pl, int local_rank,
                            engine *e)
{
    const size_t n = pl->count;
    const char **ptrs = malloc(n * sizeof *ptrs);
    size_t *lens = malloc(n * sizeof *lens), i, max_len = 0;
    unsigned *ids = malloc(n * sizeof *ids);
    clm_compile_options opts;
    int st = CLM_E_NOMEM;

    if (open_rank_device(&cfg->dev, local_rank, &e->dev) != 0)
        goto out;
    if (ptrs && lens && ids) {
        for (i = 0; i < n; i++) {
            ptrs[i] = pl->items[i].ptr;
            lens[i] = pl->items[i].len;
            ids[i] = pl->items[i].number;
            if (lens[i] > max_len)
                max_len = lens[i];
        }
        clm_compile_options_init(&opts, sizeof opts);
        opts.algorithm = cfg->dev.algorithm;
        opts.table_memory = cfg->dev.table_memory;
        opts.variant = cfg->dev.variant;
        opts.max_errors = cfg->max_errors;
        if (cfg->caseless)
            opts.flags |= CLM_CASELESS;
        if (cfg->classes)
            opts.flags |= CLM_CLASSES;
        if (cfg->mismatches_only)
            opts.flags |= CLM_MISMATCHES_ONLY;
        st = cli_compile(e->dev, ptrs, lens, ids, (unsigned)n, &opts, &e->db);
    }
    if (st != CLM_OK) {
        e->db = NULL;
        report_clm("cannot compile the patterns", st);
    } else {
        const int indels = cfg->max_errors && !cfg->mismatches_only;
        e->lead = indels ? 2 * (size_t)cfg->max_errors : 0;
        e->tail = max_len - 1 + (indels ? cfg->max_errors : 0);
        if (cli_alloc_scratch(e->db, &cfg->dev, &e->scratch) != 0)
            st = CLM_E_NOMEM;
    }
out:
    free(ptrs);
    free(lens);
    free(ids);
    return st == CLM_OK ? 0 : -1;
}

/* ---- the search of one rank's part ---- */

typedef struct {
    const config *cfg;
    const char *label;        /* -H: the file name */
    const unsigned char *text; /* the whole file, mapped */
    uint64_t size;
    uint64_t win;       /* file offset of the scanned window (the library's offset 0) */
    uint64_t own, end;  /* this rank's part [own, end): the matches it reports */
    uint64_t skip_until; /* matches starting before this lie on a line already selected */
    uint64_t nl_pos, nl_count; /* nl_count newlines lie in [0, nl_pos) */
    uint64_t selected;
} part;

/* Line numbers at pos: count forward from the last place counted. */
static void advance_lines(part *c, uint64_t pos)
{
    if (pos > c->nl_pos) {
        c->nl_count += count_newlines(c->text + c->nl_pos, (size_t)(pos - c->nl_pos));
        c->nl_pos = pos;
    }
}

static void put_prefix(part *c, uint64_t offset)
{
    if (c->label) {
        ro_bytes(c->label, strlen(c->label));
        ro_char(':');
    }
    if (c->cfg->line_numbers) {
        advance_lines(c, offset);
        ro_u64(c->nl_count + 1);
        ro_char(':');
    }
    if (c->cfg->byte_offsets) {
        ro_u64(offset);
        ro_char(':');
    }
}

static void put_fuzzy_fields(const clm_match *m)
{
    ro_u64(m->start);
    ro_char('\t');
    ro_u64(m->end);
    ro_char('\t');
    ro_u64(m->edits);
}

static int on_match(const clm_match *lm, void *vc)
{
    part *c = vc;
    clm_match m = *lm;
    m.start += c->win;
    m.end += c->win;
    if (m.start < c->own || m.start >= c->end)
        return 0; /* context: another rank's */
    switch (c->cfg->mode) {
    case MODE_LINES:
    case MODE_COUNT_LINES: {
        if (m.start < c->skip_until)
            return 0;
        /* parts start at line starts, and so does skip_until */
        uint64_t ls = m.start, lo = c->skip_until > c->own ? c->skip_until : c->own;
        while (ls > lo && c->text[ls - 1] != '\n')
            ls--;
        const unsigned char *nl = memchr(c->text + m.start, '\n', (size_t)(c->size - m.start));
        const uint64_t le = nl ? (uint64_t)(nl - c->text) + 1 : c->size;
        c->selected++;
        c->skip_until = le;
        if (c->cfg->mode == MODE_LINES) {
            put_prefix(c, ls);
            ro_bytes(c->text + ls, (size_t)(le - ls));
            if (!nl)
                ro_char('\n'); /* as grep: the last line gets its newline */
        }
        return 0;
    }
    case MODE_ONLY:
        c->selected++;
        put_prefix(c, m.start);
        if (c->cfg->max_errors) {
            put_fuzzy_fields(&m);
            ro_char('\t');
            ro_escaped(c->text + m.start, (size_t)(m.end - m.start));
        } else {
            ro_bytes(c->text + m.start, (size_t)(m.end - m.start));
        }
        ro_char('\n');
        return 0;
    case MODE_POSITIONS:
        c->selected++;
        if (c->label) {
            ro_bytes(c->label, strlen(c->label));
            ro_char(':');
        }
        if (c->cfg->max_errors)
            put_fuzzy_fields(&m);
        else
            ro_u64(m.start);
        if (c->cfg->numbered) {
            ro_char('\t');
            ro_u64(m.id);
        }
        ro_char('\n');
        return 0;
    default: /* --count-matches, -q */
        c->selected++;
        return 0;
    }
}

/* The first line start at or after x. */
static uint64_t line_start_from(const unsigned char *text, uint64_t size, uint64_t x)
{
    if (x == 0 || x >= size)
        return x < size ? x : size;
    const unsigned char *nl = memchr(text + x - 1, '\n', (size_t)(size - (x - 1)));
    return nl ? (uint64_t)(nl - text) + 1 : size;
}

/* Search this rank's part. 0, or -1 after a message. */
static int search_part(const engine *e, int fd, part *c)
{
    if (c->own >= c->end)
        return 0; /* an empty part: nothing of the file is this rank's */
    const uint64_t w0 = c->own > e->lead ? c->own - e->lead : 0;
    const uint64_t w1 = c->size - c->end > e->tail ? c->end + e->tail : c->size;
    c->win = w0;
    int st = clm_scan_fd_range(e->db, e->scratch, fd, (size_t)w0, (size_t)(w1 - w0), on_match, c);
    if (st < 0) {
        char what[MPI_MAX_PROCESSOR_NAME + 128];
        snprintf(what, sizeof what, "%s, %s", rank_name(), c->cfg->files[0]);
        report_clm(what, st);
        return -1;
    }
    if (ro.oom) {
        errmsg("out of memory for this rank's output");
        return -1;
    }
    return 0;
}

/* Rank 0 writes its output, then the other ranks' in rank order. */
#define SEND_CHUNK ((size_t)1 << 30)

static void gather_output(int rank, int size)
{
    int r;
    if (rank != 0) {
        uint64_t n = ro.len;
        size_t off;
        MPI_Send(&n, 1, MPI_UINT64_T, 0, 0, MPI_COMM_WORLD);
        for (off = 0; off < ro.len; off += SEND_CHUNK) {
            size_t k = ro.len - off < SEND_CHUNK ? ro.len - off : SEND_CHUNK;
            MPI_Send(ro.p + off, (int)k, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
        }
        return;
    }
    char *buf = NULL;
    if (ro.len)
        out_bytes(ro.p, ro.len);
    for (r = 1; r < size; r++) {
        uint64_t n, off;
        MPI_Recv(&n, 1, MPI_UINT64_T, r, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (off = 0; off < n; off += SEND_CHUNK) {
            size_t k = n - off < SEND_CHUNK ? (size_t)(n - off) : SEND_CHUNK;
            if (!buf && !(buf = malloc(SEND_CHUNK < n ? SEND_CHUNK : (size_t)n)))
                MPI_Abort(MPI_COMM_WORLD, EXIT_TROUBLE); /* nothing else keeps the order */
            MPI_Recv(buf, (int)k, MPI_CHAR, r, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            out_bytes(buf, k);
        }
        free(buf);
        buf = NULL;
    }
}

int main(int argc, char **argv)
{
    int rank, size, local_rank = 0, status = EXIT_TROUBLE, bad = 0, fd = -1;
    config cfg;
    pattern_list pl;
    engine e;
    part c;
    hush h;
    struct stat sb;
    const unsigned char *text = NULL;
    uint64_t fsize = 0;
    MPI_Comm node;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* the rank among those of this host: which of its devices to take */
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node) ==
        MPI_SUCCESS) {
        MPI_Comm_rank(node, &local_rank);
        MPI_Comm_free(&node);
    }
    cli_time.start = now_seconds();
    memset(&cfg, 0, sizeof cfg);
    memset(&pl, 0, sizeof pl);
    memset(&e, 0, sizeof e);
    memset(&c, 0, sizeof c);

    /* the command line, the patterns, the file: the same on every rank */
    hush_begin(&h, rank);
    int parsed = grep_parse_args(argc, argv, &cfg);
    if (parsed < 0 && refuse(&cfg) == 0 && grep_build_patterns(&cfg, &pl) == 0) {
        if (cfg.has_empty) {
            errmsg("clmatch-mpi does not take an empty pattern");
            bad = 1;
        } else if (!cfg.no_patterns) {
            fd = open(cfg.files[0], O_RDONLY);
            if (fd < 0 || fstat(fd, &sb) != 0) {
                errmsg("%s: %s", cfg.files[0], strerror(errno));
                bad = 1;
            } else if (!S_ISREG(sb.st_mode)) {
                errmsg("%s: not a regular file", cfg.files[0]);
                bad = 1;
            } else {
                fsize = (uint64_t)sb.st_size;
                if ((uintmax_t)fsize > SIZE_MAX) {
                    errmsg("%s: too big to map on this machine", cfg.files[0]);
                    bad = 1;
                } else if (fsize > 0) {
                    void *p = mmap(NULL, (size_t)fsize, PROT_READ, MAP_SHARED, fd, 0);
                    if (p == MAP_FAILED) {
                        errmsg("%s: %s", cfg.files[0], strerror(errno));
                        bad = 1;
                    } else {
                        text = p;
                    }
                }
            }
        }
    } else if (parsed < 0) {
        bad = 1;
    }
    if (hush_end(&h, rank, bad)) {
        status = EXIT_TROUBLE;
        goto done;
    }
    if (parsed >= 0) { /* --help, --version, or a usage error: rank 0 said it */
        status = parsed;
        goto done;
    }
    /* every rank must go the same way and cut the same file: the ranks read the -f files and
     * FILE for themselves (a file system that is not shared shows them different ones) */
    uint64_t seen[4] = {(uint64_t)cfg.no_patterns, 1 - (uint64_t)cfg.no_patterns, fsize,
                        UINT64_MAX - fsize};
    MPI_Allreduce(MPI_IN_PLACE, seen, 4, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    if (seen[0] + seen[1] != 1 || seen[2] != UINT64_MAX - seen[3]) {
        if (rank == 0)
            errmsg("the ranks see different %s: every rank must read the same ones (a shared "
                   "file system)", seen[0] + seen[1] != 1 ? "-f files" : "FILEs");
        status = EXIT_TROUBLE;
        goto done;
    }
    if (cfg.no_patterns) { /* an empty -f FILE: nothing can match (as clmatch) */
        status = EXIT_NO_MATCH;
        goto done;
    }

    /* the device: each rank its own */
    hush_begin(&h, rank);
    bad = cli_output_init() != 0 || compile_patterns(&cfg, &pl, local_rank, &e) != 0;
    if (hush_end(&h, rank, bad))
        goto done;

    /* the parts: equal shares, moved to line starts when the output is about lines */
    const int by_lines = cfg.mode == MODE_LINES || cfg.mode == MODE_COUNT_LINES ||
                         cfg.line_numbers;
    const uint64_t share = fsize / (uint64_t)size, extra = fsize % (uint64_t)size;
    uint64_t cut[2];
    int k;
    for (k = 0; k < 2; k++) {
        const uint64_t r = (uint64_t)rank + (uint64_t)k;
        cut[k] = share * r + (r < extra ? r : extra);
        if (by_lines)
            cut[k] = line_start_from(text, fsize, cut[k]);
    }
    c.cfg = &cfg;
    c.label = cfg.with_filename > 0 ? cfg.files[0] : NULL;
    c.text = text;
    c.size = fsize;
    c.own = c.skip_until = cut[0];
    c.end = cut[1];
    if (cfg.line_numbers) { /* the newlines before this part: those of the earlier parts */
        uint64_t mine = text ? count_newlines(text + c.own, (size_t)(c.end - c.own)) : 0;
        uint64_t before = 0;
        MPI_Exscan(&mine, &before, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
        c.nl_pos = c.own;
        c.nl_count = rank == 0 ? 0 : before;
    }
    bad = search_part(&e, fd, &c) != 0;

    /* a failure anywhere: nothing is printed, every rank exits with 2 */
    int any_bad;
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any_bad)
        goto done;
    if (cfg.mode != MODE_QUIET)
        gather_output(rank, size);
    uint64_t total = 0;
    MPI_Allreduce(&c.selected, &total, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && (cfg.mode == MODE_COUNT_LINES || cfg.mode == MODE_COUNT_MATCHES)) {
        if (c.label) {
            out_bytes(c.label, strlen(c.label));
            out_char(':');
        }
        out_u64(total);
        out_char('\n');
    }
    status = total > 0 ? EXIT_MATCH : EXIT_NO_MATCH;
    if (rank == 0) {
        out_flush();
        if (cli_out.failed) {
            errmsg("write error: %s", strerror(cli_out.failed));
            status = EXIT_TROUBLE;
        }
    }

done:
    if (rank == 0)
        status = cli_output_finish(status);
    else
        free(cli_out.buf);
    /* rank 0's output status (a failed write) is every rank's */
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    cli_teardown(e.scratch, e.db, e.dev, 0);
    if (text)
        munmap((void *)text, (size_t)fsize);
    if (fd >= 0)
        close(fd);
    free(ro.p);
    patterns_free(&pl);
    free(cfg.pattern_args);
    free(cfg.pattern_is_file);
    MPI_Finalize();
    return status;
}
