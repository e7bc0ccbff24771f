/* Delivery: a pass's matches read back, put in text order (a radix sort of start and
 * report rank; approximate matches with indels get their best start on the host first) and
 * called back; matches that a later range may still precede are held back (pending) until it
 * has been collected. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scratch.h"

/* Sort 64-bit keys: LSD radix by bytes, skipping bytes that are equal in every key (start
 * offsets use few high bits, engine indices few low ones). */
static void sort_keys(uint64_t *a, uint64_t *tmp, size_t n)
{
    if (n < 64) {
        for (size_t i = 1; i < n; i++) {
            uint64_t k = a[i];
            size_t j = i;
            while (j > 0 && a[j - 1] > k) {
                a[j] = a[j - 1];
                j--;
            }
            a[j] = k;
        }
        return;
    }
    uint64_t *src = a, *dst = tmp;
    for (unsigned shift = 0; shift < 64; shift += 8) {
        size_t count[256] = {0};
        for (size_t i = 0; i < n; i++)
            count[(src[i] >> shift) & 255]++;
        if (count[(src[0] >> shift) & 255] == n)
            continue;
        size_t sum = 0;
        for (int d = 0; d < 256; d++) {
            size_t c = count[d];
            count[d] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++)
            dst[count[(src[i] >> shift) & 255]++] = src[i];
        uint64_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, n * sizeof *a);
}

static int ensure_host_cap(clm_scratch *s, size_t n)
{
    if (n <= s->host_cap)
        return CLM_OK;
    size_t cap = s->host_cap ? s->host_cap : 1024;
    while (cap < n)
        cap *= 2;
    cl_uint *raw = realloc(s->raw, cap * 2 * sizeof *raw);
    if (raw)
        s->raw = raw;
    uint64_t *keys = raw ? realloc(s->keys, cap * sizeof *keys) : NULL;
    if (keys)
        s->keys = keys;
    uint64_t *tmp = keys ? realloc(s->tmp, cap * sizeof *tmp) : NULL;
    if (tmp)
        s->tmp = tmp;
    clm_match *fm = tmp && s->db->indels ? realloc(s->found, cap * sizeof *fm) : NULL;
    if (fm)
        s->found = fm;
    if (!raw || !keys || !tmp || (s->db->indels && !fm))
        return clm_fail(CLM_E_NOMEM, "out of host memory for %zu matches", n);
    s->host_cap = cap;
    return CLM_OK;
}

/* Report order: start, id, strand (+1 first), end; edits only make equal keys of
 * patterns sharing an id deterministic. */
static int cmp_match(const void *a, const void *b)
{
    const clm_match *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    if (x->strand != y->strand)
        return x->strand > y->strand ? -1 : 1;
    if (x->end != y->end)
        return x->end < y->end ? -1 : 1;
    return x->edits < y->edits ? -1 : x->edits > y->edits;
}

static int call_back(clm_scratch *s, const clm_match *m, clm_match_cb cb, void *ctx)
{
    s->stats.matches++;
    return cb(m, ctx) ? CLM_STOPPED : CLM_OK;
}

/* Deliver every held-back match (end of a scan or stream). */
int clm_deliver_pending(clm_scratch *s, clm_match_cb cb, void *ctx)
{
    int rc = CLM_OK;
    for (size_t i = 0; i < s->n_pending && rc == CLM_OK; i++)
        rc = call_back(s, &s->pending[i], cb, ctx);
    s->n_pending = 0;
    return rc;
}

/* Approximate matches with insertions/deletions: kernels report ends; the start of the best
 * alignment comes from a small DP on the host. A later range owns nominal starts from
 * range_end on, so its matches start at range_end - k or later: matches from here that
 * start before that go out now (merged in order with those held back), the rest wait. */
static int deliver_indels(struct clm_lane *ln, struct clm_slot *sl, size_t found, size_t range_end,
                          clm_match_cb cb, void *ctx)
{
    clm_scratch *s = ln->s;
    const struct clm_pattern *pats = s->db->pats;
    const unsigned char *host = NULL;
    int vrc = found ? clm_slot_view(ln, sl, &host) : CLM_OK;
    if (vrc)
        return vrc;
    for (size_t i = 0; i < found; i++) {
        uint32_t pos = s->raw[2 * i], info = s->raw[2 * i + 1];
        unsigned slot = CLM_INFO_SLOT(info), d = CLM_INFO_EDITS(info), minus = CLM_INFO_RC(info);
        const struct clm_pattern *p = &pats[slot];
        size_t start = clm_best_start((const uint8_t(*)[32])(minus ? p->rc_sets : p->sets),
                                      p->m, host, pos, 0, d, s->db->k);
        clm_match *m = &s->found[i];
        m->start = sl->base + start;
        m->end = sl->base + pos;
        m->id = p->id;
        m->strand = minus ? -1 : p->strand;
        m->edits = d;
    }
    qsort(s->found, found, sizeof *s->found, cmp_match);
    uint64_t limit = sl->base + range_end;
    limit = limit > s->db->k ? limit - s->db->k : 0;
    /* merge held-back and new matches; what starts at or after the limit is held */
    size_t total = s->n_pending + found, a = 0, b = 0, kept = 0;
    if (total > s->cap_merged) {
        clm_match *grown = realloc(s->merged, total * sizeof *grown);
        if (!grown)
            return clm_fail(CLM_E_NOMEM, "out of memory");
        s->merged = grown;
        s->cap_merged = total;
    }
    clm_match *held = s->merged;
    int rc = CLM_OK;
    while (a < s->n_pending || b < found) {
        const clm_match *m = b >= found || (a < s->n_pending &&
                                            cmp_match(&s->pending[a], &s->found[b]) <= 0)
                                 ? &s->pending[a++]
                                 : &s->found[b++];
        if (m->start >= limit)
            held[kept++] = *m;
        else if (rc == CLM_OK)
            rc = call_back(s, m, cb, ctx);
    }
    /* swap: the old held-back array is the next merge's room */
    size_t held_cap = s->cap_merged;
    s->merged = s->pending;
    s->cap_merged = s->cap_pending;
    s->pending = held;
    s->cap_pending = held_cap;
    s->n_pending = rc == CLM_OK ? kept : 0;
    return rc;
}

/* Read the pass's `found` matches (all fit), put them in text order and call back. The pass
 * covered match starts up to range_end (slab offsets). */
int clm_deliver(struct clm_lane *ln, struct clm_slot *sl, size_t found, size_t range_end,
                clm_match_cb cb, void *ctx)
{
    clm_scratch *s = ln->s;
    if (found == 0 && !s->db->indels)
        return CLM_OK;
    int rc = ensure_host_cap(s, found ? found : 1);
    if (rc)
        return rc;
    double t0 = clm_now();
    cl_int err = found ? clEnqueueReadBuffer(sl->queue, sl->matches, CL_TRUE, 0,
                                             found * 2 * sizeof(cl_uint), s->raw, 0, NULL, NULL)
                       : CL_SUCCESS;
    ln->stats.wait_seconds += clm_now() - t0;
    if (err)
        return clm_fail_cl(err, "clEnqueueReadBuffer (matches)");
    if (s->db->indels)
        return deliver_indels(ln, sl, found, range_end, cb, ctx);
    const struct clm_pattern *pats = s->db->pats;
    int ends = s->db->ends;
    const unsigned *rank = s->db->rank, *unrank = s->db->unrank;
    for (size_t i = 0; i < found; i++) {
        uint32_t pos = s->raw[2 * i], info = s->raw[2 * i + 1];
        uint32_t slot = CLM_INFO_SLOT(info);
        uint64_t start = ends ? pos - pats[slot].m : pos; /* exact or substitutions only */
        uint64_t r = rank[2 * slot + CLM_INFO_RC(info)];
        s->keys[i] = start << 32 | r << 7 | CLM_INFO_EDITS(info);
    }
    sort_keys(s->keys, s->tmp, found);
    /* ranks follow (id, strand, length), so (start, rank) is report order */
    clm_match m;
    for (size_t i = 0; i < found; i++) {
        unsigned v = unrank[(s->keys[i] >> 7) & 0x1ffffffu];
        const struct clm_pattern *p = &pats[v / 2];
        m.start = sl->base + (s->keys[i] >> 32);
        m.end = m.start + p->m;
        m.id = p->id;
        m.strand = v % 2 ? -1 : p->strand;
        m.edits = (unsigned)(s->keys[i] & 0x7fu);
        if (cb(&m, ctx)) {
            s->stats.matches += i + 1;
            return CLM_STOPPED;
        }
    }
    s->stats.matches += found;
    return CLM_OK;
}
