/* SQL LIKE patterns compiled into the program cl/records.cl runs (cl/contract.h CLM_LIKE_*):
 * the runs of symbols between '%' (segments), whether the first and last are anchored, and
 * each pattern's flags; for a disjunction of contains also one automaton of them all. */
#include <stdlib.h>
#include <string.h>

#include "algo.h"
#include "contract.h"
#include "internal.h"

/* The words one pattern needs at most: its header, a segment record and a symbol per
 * byte. */
static size_t pattern_words(size_t len) { return CLM_LIKE_HEAD + 2 * len + 2 + len; }

/* Append pattern p's segments and symbols at prog[*at] and fill its header. */
static int parse(const unsigned char *src, size_t len, unsigned flags, int escape, unsigned p,
                 uint32_t *prog, size_t *at)
{
    uint32_t *head = prog + 1 + (size_t)p * CLM_LIKE_HEAD;
    int caseless = (flags & CLM_LIKE_CASELESS) != 0;
    /* symbols first into a scratch run, cut into segments at each '%' */
    uint32_t *sym = malloc((len ? len : 1) * sizeof *sym);
    size_t *seg_start = malloc((len + 1) * sizeof *seg_start);
    size_t *seg_len = malloc((len + 1) * sizeof *seg_len);
    if (!sym || !seg_start || !seg_len) {
        free(sym);
        free(seg_start);
        free(seg_len);
        return clm_fail(CLM_E_NOMEM, "out of memory");
    }
    size_t n = 0, segs = 0, run = 0, min = 0;
    int percent = 0, leading = 0, trailing = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned c = src[i];
        if (escape >= 0 && c == (unsigned)escape) {
            if (i + 1 == len) {
                free(sym);
                free(seg_start);
                free(seg_len);
                return clm_fail(CLM_E_PATTERN_SYNTAX,
                                "LIKE pattern %u: the escape byte 0x%02x ends the pattern "
                                "(offset %zu): it must be followed by the byte it escapes",
                                p, c, i);
            }
            c = src[++i];
        } else if (c == '%') {
            if (!percent && n == 0)
                leading = 1;
            percent = 1;
            if (n > run) { /* close the segment before this '%' */
                seg_start[segs] = run;
                seg_len[segs++] = n - run;
                run = n;
            }
            trailing = 1;
            continue;
        } else if (c == '_') {
            sym[n++] = CLM_LIKE_ANY;
            trailing = 0;
            continue;
        }
        sym[n++] = caseless ? clm_fold((unsigned char)c) : c;
        trailing = 0;
    }
    if (n > run || (!percent && segs == 0)) { /* the last segment; '' is one empty segment */
        seg_start[segs] = run;
        seg_len[segs++] = n - run;
    }
    min = n;
    uint32_t f = (flags & CLM_LIKE_NOT ? CLM_LIKE_F_NOT : 0u) |
                 (caseless ? CLM_LIKE_F_CASELESS : 0u);
    if (!percent)
        f |= CLM_LIKE_F_EXACT | CLM_LIKE_F_START | CLM_LIKE_F_END;
    else {
        if (!leading)
            f |= CLM_LIKE_F_START;
        if (!trailing)
            f |= CLM_LIKE_F_END;
    }
    head[CLM_LIKE_FLAGS] = f;
    head[CLM_LIKE_SEGS] = (uint32_t)segs;
    head[CLM_LIKE_SEG] = (uint32_t)*at;
    head[CLM_LIKE_MIN] = (uint32_t)min;
    size_t sym_at = *at + 2 * segs;
    for (size_t s = 0; s < segs; s++) {
        prog[*at + 2 * s] = (uint32_t)(sym_at + seg_start[s]);
        prog[*at + 2 * s + 1] = (uint32_t)seg_len[s];
    }
    memcpy(prog + sym_at, sym, n * sizeof *sym);
    *at = sym_at + n;
    free(sym);
    free(seg_start);
    free(seg_len);
    return CLM_OK;
}

/* Longest anchor searched: a part of a literal run is as good a filter, and every search
 * algorithm takes this length. */
#define ANCHOR_MAX 64u

/* Each pattern's longest run of literal symbols ('_' and '%' end a run), and whether
 * filter and verify can serve the predicate: every pattern has a run, and either none is
 * NOT LIKE or it is a single NOT LIKE (its selection is the rows its run's rows leave). */
static int find_anchors(struct clm_like *l)
{
    const uint32_t *prog = l->prog;
    l->anchor_at = calloc(l->count, sizeof *l->anchor_at);
    l->anchor_len = calloc(l->count, sizeof *l->anchor_len);
    if (!l->anchor_at || !l->anchor_len)
        return clm_fail(CLM_E_NOMEM, "out of memory");
    l->filterable = 1;
    for (unsigned i = 0; i < l->count; i++) {
        const uint32_t *head = prog + 1 + (size_t)i * CLM_LIKE_HEAD;
        if (head[CLM_LIKE_FLAGS] & CLM_LIKE_F_APPROX) { /* no literal run must occur */
            l->approx = 1;
            l->filterable = 0;
            continue;
        }
        if ((head[CLM_LIKE_FLAGS] & CLM_LIKE_F_NOT) && l->count > 1)
            l->filterable = 0;
        if (head[CLM_LIKE_FLAGS] & CLM_LIKE_F_CASELESS)
            l->anchor_caseless = 1;
        uint32_t best_at = 0, best = 0;
        for (uint32_t s = 0; s < head[CLM_LIKE_SEGS]; s++) {
            uint32_t sym = prog[head[CLM_LIKE_SEG] + 2 * s];
            uint32_t len = prog[head[CLM_LIKE_SEG] + 2 * s + 1];
            for (uint32_t j = 0, run = 0; j <= len; j++) {
                if (j < len && prog[sym + j] != CLM_LIKE_ANY) {
                    run++;
                    continue;
                }
                if (run > best) {
                    best = run;
                    best_at = sym + j - run;
                }
                run = 0;
            }
        }
        l->anchor_at[i] = best_at;
        l->anchor_len[i] = best < ANCHOR_MAX ? best : ANCHOR_MAX;
        if (!best)
            l->filterable = 0;
    }
    return CLM_OK;
}

/* Whether pattern i is a contains: '%literal%' ('%'s around one segment without '_', not
 * NOT LIKE) of at least a byte; its literal's first symbol word in prog and length. */
static int contains_literal(const uint32_t *prog, unsigned i, uint32_t *sym, uint32_t *len)
{
    const uint32_t *head = prog + 1 + (size_t)i * CLM_LIKE_HEAD;
    const uint32_t shape = CLM_LIKE_F_NOT | CLM_LIKE_F_START | CLM_LIKE_F_END |
                           CLM_LIKE_F_EXACT | CLM_LIKE_F_APPROX;
    if ((head[CLM_LIKE_FLAGS] & shape) || head[CLM_LIKE_SEGS] != 1)
        return 0;
    *sym = prog[head[CLM_LIKE_SEG]];
    *len = prog[head[CLM_LIKE_SEG] + 1];
    for (uint32_t j = 0; j < *len; j++)
        if (prog[*sym + j] == CLM_LIKE_ANY)
            return 0;
    return *len > 0;
}

/* The most bytes an automaton of a predicate may take, bounded before it is built by its
 * literals' bytes + 1 states of their distinct bytes + 1 classes: compiling a large
 * disjunction must not cost hundreds of MiB that a select may never use. */
#define AHO_MAX_BYTES ((uint64_t)64 << 20)

/* CLM_ROWS_AUTOMATON: a disjunction of contains, all LIKE or all ILIKE (one class map serves
 * one case rule), as one Aho-Corasick automaton of the literals (host/aho.c), sent to the
 * device after its class map. A predicate that does not qualify, or whose automaton would
 * be too large, gets none (a work-item per row serves it). */
static int build_automaton(struct clm_like *l)
{
    const uint32_t *prog = l->prog;
    const uint32_t caseless = prog[1 + CLM_LIKE_FLAGS] & CLM_LIKE_F_CASELESS;
    uint32_t sym, len;
    uint64_t total = 0, distinct = 0;
    unsigned char seen[256] = {0};
    for (unsigned i = 0; i < l->count; i++) {
        if (!contains_literal(prog, i, &sym, &len) ||
            (prog[1 + (size_t)i * CLM_LIKE_HEAD + CLM_LIKE_FLAGS] & CLM_LIKE_F_CASELESS) !=
                caseless)
            return CLM_OK;
        total += len;
        for (uint32_t j = 0; j < len; j++) /* folded already when caseless */
            if (!seen[prog[sym + j]]) {
                seen[prog[sym + j]] = 1;
                distinct++;
            }
    }
    if ((total + 1) * (distinct + 1) * 4 > AHO_MAX_BYTES)
        return CLM_OK;
    struct clm_symbols *syms = calloc(l->count, sizeof *syms);
    unsigned char *lit = malloc(CLM_LIKE_MAX_PATTERN);
    uint32_t *buf = NULL;
    void *built = NULL;
    int rc = syms && lit ? CLM_OK : clm_fail(CLM_E_NOMEM, "out of memory");
    for (unsigned i = 0; i < l->count && rc == CLM_OK; i++) {
        contains_literal(prog, i, &sym, &len);
        for (uint32_t j = 0; j < len; j++) /* literal symbols are bytes (folded: ILIKE) */
            lit[j] = (unsigned char)prog[sym + j];
        rc = clm_parse_symbols(lit, len, 0, caseless != 0, i, &syms[i]);
    }
    struct clm_pattern_facts f;
    memset(&f, 0, sizeof f);
    if (rc == CLM_OK)
        rc = clm_aho_facts(syms, l->count, 1, caseless != 0, &f, &built);
    if (rc == CLM_OK && (f.tab_words > UINT32_MAX - CLM_LIKE_AHO_MAP ||
                         (f.tab_words + CLM_LIKE_AHO_MAP) * 4 > l->dev->info.max_alloc_bytes))
        rc = clm_fail(CLM_E_UNSUPPORTED, "LIKE automaton: %zu words", f.tab_words);
    if (rc == CLM_OK && !(buf = calloc(CLM_LIKE_AHO_MAP + f.tab_words, sizeof *buf)))
        rc = clm_fail(CLM_E_NOMEM, "out of memory");
    if (rc == CLM_OK) {
        struct clm_kernel_shape shape;
        memset(&shape, 0, sizeof shape);
        rc = clm_aho_tables(&shape, syms, l->count, caseless != 0, (unsigned char *)buf,
                            buf + CLM_LIKE_AHO_MAP, built);
    }
    if (rc == CLM_OK && !l->dev->model) {
        cl_int err;
        l->aho_buf = clCreateBuffer(l->dev->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                    (CLM_LIKE_AHO_MAP + f.tab_words) * sizeof *buf, buf, &err);
        if (err != CL_SUCCESS)
            rc = clm_fail_cl(err, "clCreateBuffer (LIKE automaton)");
    }
    if (rc == CLM_OK)
        l->aho_words = (uint32_t)f.tab_words;
    clm_aho_release(built);
    for (unsigned i = 0; syms && i < l->count; i++)
        clm_symbols_free(&syms[i]);
    free(syms);
    free(lit);
    free(buf);
    if (rc == CLM_E_UNSUPPORTED) { /* too large: the patterns a pass each */
        clm_clear_error();
        rc = CLM_OK;
    }
    return rc;
}

int clm_like_anchors(const struct clm_like *like, const clm_database **db)
{
    struct clm_like *l = (struct clm_like *)like; /* the lazily compiled part only */
    pthread_mutex_lock(&l->anchor_lock);
    if (!l->anchor_tried) {
        l->anchor_tried = 1;
        char **pats = calloc(l->count, sizeof *pats);
        size_t *lens = calloc(l->count, sizeof *lens);
        l->anchor_rc = pats && lens ? CLM_OK : clm_fail(CLM_E_NOMEM, "out of memory");
        for (unsigned i = 0; i < l->count && l->anchor_rc == CLM_OK; i++) {
            lens[i] = l->anchor_len[i];
            if (!(pats[i] = malloc(lens[i]))) {
                l->anchor_rc = clm_fail(CLM_E_NOMEM, "out of memory");
                break;
            }
            for (size_t j = 0; j < lens[i]; j++) /* literal symbols are bytes */
                pats[i][j] = (char)l->prog[l->anchor_at[i] + j];
        }
        if (l->anchor_rc == CLM_OK) {
            clm_compile_options o;
            clm_compile_options_init(&o, sizeof o);
            o.flags = l->anchor_caseless ? CLM_CASELESS : 0u;
            l->anchor_rc = clm_compile_blocks(l->dev, (const char *const *)pats, lens,
                                              l->count, &o, l->block, &l->anchors);
        }
        for (unsigned i = 0; pats && i < l->count; i++)
            free(pats[i]);
        free(pats);
        free(lens);
    }
    *db = l->anchors;
    int rc = l->anchor_rc;
    pthread_mutex_unlock(&l->anchor_lock);
    return rc;
}

int clm_like_compile(clm_device *dev, const char *const *patterns, const size_t *lengths,
                     const unsigned *flags, unsigned count, int escape, clm_like **out)
{
    if (!out)
        return clm_fail(CLM_E_INVALID, "clm_like_compile: out is NULL");
    *out = NULL;
    if (!dev || !patterns || count == 0)
        return clm_fail(CLM_E_INVALID, "clm_like_compile: %s",
                        !dev ? "dev is NULL" : !patterns ? "patterns is NULL" : "count is 0");
    if (escape < CLM_LIKE_NO_ESCAPE || escape > 255)
        return clm_fail(CLM_E_INVALID, "clm_like_compile: escape %d: a byte 0-255 or "
                                       "CLM_LIKE_NO_ESCAPE (-1)",
                        escape);
    size_t words = 1 + (size_t)count * CLM_LIKE_HEAD;
    for (unsigned i = 0; i < count; i++) {
        size_t len = lengths ? lengths[i] : patterns[i] ? strlen(patterns[i]) : 0;
        if (!patterns[i] && len)
            return clm_fail(CLM_E_INVALID, "clm_like_compile: pattern %u is NULL", i);
        if (len > CLM_LIKE_MAX_PATTERN)
            return clm_fail(CLM_E_PATTERN_TOO_LONG,
                            "LIKE pattern %u: %zu bytes, above CLM_LIKE_MAX_PATTERN (%u)", i,
                            len, CLM_LIKE_MAX_PATTERN);
        if (flags && (flags[i] & ~(CLM_LIKE_CASELESS | CLM_LIKE_NOT)))
            return clm_fail(CLM_E_INVALID, "LIKE pattern %u: unknown flags 0x%x", i, flags[i]);
        words += pattern_words(len);
    }
    uint32_t *prog = calloc(words, sizeof *prog);
    if (!prog)
        return clm_fail(CLM_E_NOMEM, "out of memory");
    prog[0] = count;
    size_t at = 1 + (size_t)count * CLM_LIKE_HEAD;
    int rc = CLM_OK;
    for (unsigned i = 0; i < count && rc == CLM_OK; i++) {
        size_t len = lengths ? lengths[i] : patterns[i] ? strlen(patterns[i]) : 0;
        rc = parse((const unsigned char *)patterns[i], len, flags ? flags[i] : 0, escape, i,
                   prog, &at);
    }
    if (rc != CLM_OK) {
        free(prog);
        return rc;
    }
    return clm_like_new(dev, prog, at, count, out);
}

int clm_like_new(clm_device *dev, uint32_t *prog, size_t words, unsigned count,
                 clm_like **out)
{
    struct clm_like *l = calloc(1, sizeof *l);
    if (!l) {
        free(prog);
        return clm_fail(CLM_E_NOMEM, "out of memory");
    }
    l->dev = dev;
    l->prog = prog;
    l->prog_words = words;
    l->count = count;
    /* CPUs: fewer rows verified a match (PoCL, 2 cores, TPC-H SF 1 Q13: 42 ms -> 37 ms) */
    l->block = dev->info.type == CLM_DEVICE_CPU ? CLM_LIKE_BLOCK_CPU : CLM_LIKE_BLOCK;
    pthread_mutex_init(&l->anchor_lock, NULL);
    int rc = find_anchors(l);
    if (rc == CLM_OK)
        rc = build_automaton(l);
    if (rc == CLM_OK && !dev->model) {
        cl_int err;
        l->prog_buf = clCreateBuffer(dev->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                     words * sizeof *prog, prog, &err);
        if (err != CL_SUCCESS)
            rc = clm_fail_cl(err, "clCreateBuffer (LIKE program)");
    }
    if (rc != CLM_OK) {
        clm_like_free(l);
        return rc;
    }
    *out = l;
    return CLM_OK;
}

int clm_like_or(const clm_like *const *parts, unsigned count, clm_like **out)
{
    if (!out)
        return clm_fail(CLM_E_INVALID, "clm_like_or: out is NULL");
    *out = NULL;
    if (!parts || count == 0)
        return clm_fail(CLM_E_INVALID, "clm_like_or: %s", !parts ? "parts is NULL" : "count is 0");
    uint64_t patterns = 0, words = 1;
    for (unsigned i = 0; i < count; i++) {
        if (!parts[i])
            return clm_fail(CLM_E_INVALID, "clm_like_or: part %u is NULL", i);
        if (parts[i]->dev != parts[0]->dev)
            return clm_fail(CLM_E_INVALID, "clm_like_or: part %u was compiled for another "
                                           "device than part 0", i);
        patterns += parts[i]->count;
        words += parts[i]->prog_words - 1;
    }
    if (words > UINT32_MAX)
        return clm_fail(CLM_E_INVALID, "clm_like_or: %llu words of patterns, more than 2^32",
                        (unsigned long long)words);
    uint32_t *prog = malloc(words * sizeof *prog);
    if (!prog)
        return clm_fail(CLM_E_NOMEM, "out of memory");
    /* the headers side by side, then each part's segments, symbols and masks, whose word
     * offsets (SEG, and a LIKE's segment records) move by where its data lands */
    prog[0] = (uint32_t)patterns;
    size_t head = 1, data = 1 + (size_t)patterns * CLM_LIKE_HEAD;
    for (unsigned i = 0; i < count; i++) {
        const struct clm_like *p = parts[i];
        const size_t from = 1 + (size_t)p->count * CLM_LIKE_HEAD;
        const uint32_t move = (uint32_t)(data - from);
        memcpy(prog + head, p->prog + 1, (size_t)p->count * CLM_LIKE_HEAD * sizeof *prog);
        memcpy(prog + data, p->prog + from, (p->prog_words - from) * sizeof *prog);
        for (unsigned j = 0; j < p->count; j++, head += CLM_LIKE_HEAD) {
            uint32_t *h = prog + head;
            h[CLM_LIKE_SEG] += move;
            if (!(h[CLM_LIKE_FLAGS] & CLM_LIKE_F_APPROX))
                for (uint32_t s = 0; s < h[CLM_LIKE_SEGS]; s++)
                    prog[h[CLM_LIKE_SEG] + 2 * s] += move;
        }
        data += p->prog_words - from;
    }
    return clm_like_new(parts[0]->dev, prog, words, (unsigned)patterns, out);
}

void clm_like_free(clm_like *like)
{
    if (!like)
        return;
    clm_database_free(like->anchors);
    pthread_mutex_destroy(&like->anchor_lock);
    free(like->anchor_at);
    free(like->anchor_len);
    if (like->prog_buf)
        clReleaseMemObject(like->prog_buf);
    if (like->aho_buf)
        clReleaseMemObject(like->aho_buf);
    free(like->prog);
    free(like);
}
