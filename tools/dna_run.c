/* The DNA mode's run state (dna_run.h): a complete record's matches printed in seqkit's order. */
#include "dna_run.h"

#include "cli_common.h"

#include <stdlib.h>
#include <string.h>

/* seqkit's order: pattern, + before -, + by (start, end), - by (end, start) descending (the
 * order of the - strand's own coordinates). */
static int hit_cmp(const void *a, const void *b)
{
    const hit *x = a, *y = b;
    if (x->pat != y->pat)
        return x->pat < y->pat ? -1 : 1;
    if (x->strand != y->strand)
        return x->strand > y->strand ? -1 : 1;
    if (x->strand > 0) {
        if (x->start != y->start)
            return x->start < y->start ? -1 : 1;
        if (x->end != y->end)
            return x->end < y->end ? -1 : 1;
    } else {
        if (x->end != y->end)
            return x->end > y->end ? -1 : 1;
        if (x->start != y->start)
            return x->start > y->start ? -1 : 1;
    }
    return 0;
}

static void put_matched(const dna_run *r, const hit *h)
{
    const unsigned char *t = (const unsigned char *)r->arena + h->text;
    size_t n = (size_t)(h->end - h->start), i;
    for (i = 0; i < n; i++) {
        unsigned char c = h->strand > 0 ? t[i] : dna_complement(t[n - 1 - i]);
        out_char((char)(r->lowercase_out ? dna_lower(c) : c));
    }
}

void dna_emit_front(dna_run *r)
{
    record *rec = &r->q[r->q_head];
    size_t i;
    const dna_config *cfg = &r->cfg;
    if (cfg->count) {
        out_bytes(rec->id, rec->id_len);
        out_char('\t');
        out_u64(r->n_hits);
        out_char('\n');
    } else if (r->n_hits > 0) {
        qsort(r->hits, r->n_hits, sizeof *r->hits, hit_cmp);
        for (i = 0; i < r->n_hits; i++) {
            const hit *h = &r->hits[i];
            const dna_pattern *p = &r->pats.v[h->pat];
            out_bytes(rec->id, rec->id_len);
            out_char('\t');
            if (cfg->bed) {
                out_u64(h->start - rec->start);
                out_char('\t');
                out_u64(h->end - rec->start);
                out_char('\t');
                out_bytes(p->name, p->name_len);
                out_str("\t0\t");
                out_char(h->strand > 0 ? '+' : '-');
            } else {
                out_bytes(p->name, p->name_len);
                out_char('\t');
                out_bytes(p->shown, p->len);
                out_char('\t');
                out_char(h->strand > 0 ? '+' : '-');
                out_char('\t');
                out_u64(h->start - rec->start + 1);
                out_char('\t');
                out_u64(h->end - rec->start);
                out_char('\t');
                put_matched(r, h);
                if (cfg->max_errors > 0) {
                    out_char('\t');
                    out_u64(h->edits);
                }
            }
            out_char('\n');
        }
    }
    r->total_matches += r->n_hits;
    r->records++;
    r->n_hits = 0;
    r->arena_len = 0;
    free(rec->id);
    rec->id = NULL;
    r->q_head++;
    if (r->q_head == r->q_len) {
        r->q_head = r->q_len = 0;
    } else if (r->q_head > 4096 && r->q_head * 2 > r->q_len) {
        memmove(r->q, r->q + r->q_head, (r->q_len - r->q_head) * sizeof *r->q);
        r->q_len -= r->q_head;
        r->q_head = 0;
    }
}

/* Emit the records whose every match has arrived: those ending at or before `settled`. */
void dna_emit_settled(dna_run *r, uint64_t settled)
{
    while (r->q_head < r->q_len && r->q[r->q_head].ended && r->q[r->q_head].end <= settled)
        dna_emit_front(r);
}

/* Keep a match of the front record (counted only with -c); its text is at `text`. */
int dna_keep_hit(dna_run *r, uint64_t start, uint64_t end, unsigned pat, unsigned edits,
                    int strand, const unsigned char *text)
{
    const record *rec = &r->q[r->q_head];
    hit *h;
    size_t n = (size_t)(end - start);
    if (r->cfg.count) {
        r->n_hits++; /* counted, not kept */
        return 0;
    }
    if (dna_grow((void **)&r->hits, &r->hits_cap, r->n_hits + 1, sizeof *r->hits) != 0 ||
        dna_grow((void **)&r->arena, &r->arena_cap, r->arena_len + n, 1) != 0) {
        errmsg("out of memory for the matches of record '%.*s'", (int)rec->id_len, rec->id);
        r->internal = 1;
        return 1;
    }
    h = &r->hits[r->n_hits++];
    h->start = start;
    h->end = end;
    h->pat = pat;
    h->edits = edits;
    h->strand = r->cfg.strands == STRAND_MINUS ? -1 : (strand < 0 ? -1 : 1);
    h->text = r->arena_len;
    if (!r->cfg.bed) {
        memcpy(r->arena + r->arena_len, text, n);
        r->arena_len += n;
    }
    return 0;
}

void dna_drop_records(dna_run *r)
{
    while (r->q_head < r->q_len)
        free(r->q[r->q_head++].id);
    r->q_head = r->q_len = 0;
    r->n_hits = 0;
    r->arena_len = 0;
}
