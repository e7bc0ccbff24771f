/* The LIKE reference and the test columns shared by tests/test_records*.c (t_records.h). */
#include <stdlib.h>
#include <string.h>

#include "t_records.h"

/* ---- the reference ------------------------------------------------------------------- */

unsigned char ref_lower(unsigned char c) { return c >= 'A' && c <= 'Z' ? c | 0x20 : c; }

size_t ref_tokens(const char *p, size_t len, int escape, int caseless, int *tok)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)p[i];
        if (escape >= 0 && c == escape && i + 1 < len)
            tok[n++] = caseless ? ref_lower((unsigned char)p[++i]) : (unsigned char)p[++i];
        else if (c == '%')
            tok[n++] = TOK_PERCENT;
        else if (c == '_')
            tok[n++] = TOK_ANY;
        else
            tok[n++] = caseless ? ref_lower(c) : c;
    }
    return n;
}

/* Whether tok[0, m) matches s[0, n) whole: d[j] = tok[0, j) matches the text so far. */
static int ref_like_tok(const unsigned char *s, size_t n, const int *tok, size_t m, int caseless)
{
    unsigned char *d = calloc(m + 1, 1), *e = calloc(m + 1, 1);
    if (!d || !e) abort();
    d[0] = 1;
    for (size_t j = 1; j <= m; j++) d[j] = d[j - 1] && tok[j - 1] == TOK_PERCENT;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = caseless ? ref_lower(s[i]) : s[i];
        e[0] = 0;
        for (size_t j = 1; j <= m; j++) {
            int t = tok[j - 1];
            if (t == TOK_PERCENT) e[j] = e[j - 1] || d[j];
            else e[j] = d[j - 1] && (t == TOK_ANY || t == c);
        }
        memcpy(d, e, m + 1);
    }
    int r = d[m];
    free(d);
    free(e);
    return r;
}

int ref_like(const unsigned char *s, size_t n, const char *p, size_t len, int escape,
                    int caseless, uint64_t *pos)
{
    int *tok = malloc((len + 1) * sizeof *tok);
    if (!tok) abort();
    size_t m = ref_tokens(p, len, escape, caseless, tok);
    int r = ref_like_tok(s, n, tok, m, caseless);
    size_t lead = 0;
    while (lead < m && tok[lead] == TOK_PERCENT) lead++;
    *pos = 0;
    if (r && lead > 0 && lead < m)
        for (size_t at = 0; at <= n; at++)
            if (ref_like_tok(s + at, n - at, tok + lead, m - lead, caseless)) {
                *pos = at;
                break;
            }
    free(tok);
    return r;
}

/* ---- columns ------------------------------------------------------------------------- */

uint64_t tcol_off(const tcol *c, uint64_t i)
{
    return c->bits == 64 ? (uint64_t)((int64_t *)c->offsets)[i]
                         : (uint64_t)((int32_t *)c->offsets)[i];
}

void tcol_set_off(tcol *c, uint64_t i, uint64_t v)
{
    if (c->bits == 64) ((int64_t *)c->offsets)[i] = (int64_t)v;
    else ((int32_t *)c->offsets)[i] = (int32_t)v;
}

int tcol_valid(const tcol *c, uint64_t i)
{
    return !c->validity || (c->validity[i >> 3] >> (i & 7) & 1);
}

void tcol_make(tcol *c, t_rng *r, uint64_t rows, unsigned bits,
               size_t (*len_of)(t_rng *, uint64_t), const char *alphabet, unsigned null_every)
{
    size_t na = strlen(alphabet);
    memset(c, 0, sizeof *c);
    c->rows = rows;
    c->bits = bits;
    c->offsets = calloc(rows + 1, bits / 8);
    size_t *lens = malloc((rows + 1) * sizeof *lens);
    if (!c->offsets || !lens) abort();
    uint64_t total = 0;
    for (uint64_t i = 0; i < rows; i++) total += lens[i] = len_of(r, i);
    c->data = malloc(total ? total : 1);
    if (!c->data) abort();
    c->bytes = total;
    uint64_t at = 0;
    for (uint64_t i = 0; i < rows; i++) {
        tcol_set_off(c, i, at);
        for (size_t k = 0; k < lens[i]; k++) c->data[at++] = (unsigned char)alphabet[t_below(r, na)];
    }
    tcol_set_off(c, rows, at);
    free(lens);
    if (null_every) {
        c->validity = calloc((rows + 7) / 8 + 1, 1);
        if (!c->validity) abort();
        for (uint64_t i = 0; i < rows; i++)
            if (t_below(r, null_every) != 0) c->validity[i >> 3] |= (uint8_t)(1u << (i & 7));
    }
}

void tcol_free(tcol *c)
{
    free(c->offsets);
    free(c->data);
    free(c->validity);
}

int tcol_wrap(const tcol *c, clm_column **out)
{
    clm_column_desc d;
    clm_column_desc_init(&d, sizeof d);
    d.rows = c->rows;
    d.offset_bits = c->bits;
    d.offsets = c->offsets;
    d.data = c->data;
    d.data_bytes = c->bytes;
    d.validity = c->validity;
    return clm_column_wrap(&d, out);
}

void tsel_open(tsel *t, const tcol *c, unsigned id_bits, int with_pos)
{
    t->nb = (size_t)(c->rows + 7) / 8;
    t->bitmap = malloc(t->nb + 1);
    t->ids = malloc((size_t)(c->rows + 1) * 8);
    t->pos = malloc((size_t)(c->rows + 1) * 8);
    if (!t->bitmap || !t->ids || !t->pos) abort();
    memset(t->bitmap, 0xa5, t->nb + 1);
    clm_selection_init(&t->s, sizeof t->s);
    t->s.bitmap = t->bitmap;
    if (id_bits) {
        t->s.row_ids = t->ids;
        t->s.row_id_bits = id_bits;
        t->s.row_id_capacity = c->rows;
        t->s.positions = with_pos ? t->pos : NULL;
    }
}

void tsel_check(const tsel *t, const tcol *c, const unsigned char *want,
                const uint64_t *want_pos, uint64_t want_n, const char *what)
{
    if (t->s.count != want_n) {
        T_FAIL("%s: count %llu, want %llu", what, (unsigned long long)t->s.count,
               (unsigned long long)want_n);
        return;
    }
    if (t->bitmap[t->nb] != 0xa5) T_FAIL("%s: a byte past the bitmap was written", what);
    for (uint64_t i = 0; i < t->nb * 8ull; i++) {
        int bit = t->bitmap[i >> 3] >> (i & 7) & 1;
        if (bit != (i < c->rows && want[i])) {
            T_FAIL("%s: bitmap bit %llu is %d", what, (unsigned long long)i, bit);
            break;
        }
    }
    uint64_t k = 0;
    unsigned id_bits = t->s.row_ids ? t->s.row_id_bits : 0;
    for (uint64_t i = 0; id_bits && i < c->rows; i++) {
        if (!want[i]) continue;
        uint64_t id = id_bits == 64 ? ((uint64_t *)t->ids)[k] : ((uint32_t *)t->ids)[k];
        if (id != i) {
            T_FAIL("%s: row id %llu is %llu, want %llu", what, (unsigned long long)k,
                   (unsigned long long)id, (unsigned long long)i);
            break;
        }
        if (t->s.positions && t->pos[k] != want_pos[i]) {
            T_FAIL("%s: row %llu: position %llu, want %llu", what, (unsigned long long)i,
                   (unsigned long long)t->pos[k], (unsigned long long)want_pos[i]);
            break;
        }
        k++;
    }
}

void tsel_close(tsel *t)
{
    free(t->bitmap);
    free(t->ids);
    free(t->pos);
}

/* One select of col: count, bitmap, ids (id_bits 0: none; with_pos: and positions) against
 * the reference, and kernel_used against `used`. */
void tsel_select_check(const clm_like *like, const clm_column *col, const tcol *c,
                       const unsigned char *want, const uint64_t *want_pos, uint64_t want_n,
                       unsigned id_bits, int with_pos, size_t slab, clm_rows_kernel kernel,
                       clm_data_path path, clm_rows_kernel used, const char *what)
{
    tsel t;
    tsel_open(&t, c, id_bits, with_pos);
    t.s.slab_bytes = slab;
    t.s.kernel = kernel;
    t.s.data_path = path;
    int rc = clm_like_select(like, col, &t.s);
    if (rc != CLM_OK)
        T_FAIL("%s: clm_like_select: %s (%s)", what, clm_strerror(rc), clm_last_error());
    else {
        if (t.s.kernel_used != used)
            T_FAIL("%s: kernel_used %d, want %d", what, (int)t.s.kernel_used, (int)used);
        tsel_check(&t, c, want, want_pos, want_n, what);
    }
    tsel_close(&t);
}

/* The rows the parts select one by one, each with the position of the first part that
 * selects it (64-bit ids and positions of one select per part, a work-item per row): what
 * clm_like_or's predicate must give. Returns the count. */
uint64_t tquery_ref(const tcol *c, const tquery *q, tref_match match, const void *arg,
                    unsigned char *sel, uint64_t *pos)
{
    uint64_t count = 0;
    for (uint64_t i = 0; i < c->rows; i++) {
        sel[i] = 0;
        pos[i] = CLM_NO_POSITION;
        if (!tcol_valid(c, i)) continue;
        uint64_t a = tcol_off(c, i), b = tcol_off(c, i + 1);
        for (unsigned k = 0; k < q->count && !sel[i]; k++) {
            unsigned f = q->flags ? q->flags[k] : 0;
            uint64_t at = 0;
            int m = match ? match(c->data + a, (size_t)(b - a), q, k, arg, &at)
                          : ref_like(c->data + a, (size_t)(b - a), q->pats[k],
                                     q->lens ? q->lens[k] : strlen(q->pats[k]), q->escape,
                                     (f & CLM_LIKE_CASELESS) != 0, &at);
            if (f & CLM_LIKE_NOT) sel[i] = !m;
            else if ((sel[i] = (unsigned char)m)) pos[i] = at;
        }
        count += sel[i];
    }
    return count;
}

uint64_t tsel_parts_ref(const clm_like *const *parts, unsigned n, const clm_column *col,
                        const tcol *c, unsigned char *want, uint64_t *want_pos)
{
    uint64_t count = 0;
    memset(want, 0, c->rows);
    for (uint64_t i = 0; i < c->rows; i++) want_pos[i] = CLM_NO_POSITION;
    for (unsigned p = 0; p < n; p++) {
        tsel t;
        tsel_open(&t, c, 64, 1);
        t.s.kernel = CLM_ROWS_ITEM;
        if (EXPECT_RC(clm_like_select(parts[p], col, &t.s), CLM_OK))
            for (uint64_t k = 0; k < t.s.count; k++) {
                uint64_t row = ((const uint64_t *)t.ids)[k];
                if (want[row]) continue;
                want[row] = 1;
                want_pos[row] = t.pos[k];
                count++;
            }
        tsel_close(&t);
    }
    return count;
}
