/* Helpers of the class / approximate / bitap-era tests (see t_ref_util.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t_ref_util.h"

const char *t_show(const unsigned char *p, size_t len)
{
    static char buf[200];
    size_t i, o = 0;
    for (i = 0; i < len && o + 8 < sizeof buf; i++) {
        unsigned char c = p[i];
        if (c >= 0x20 && c < 0x7f && c != '"')
            buf[o++] = (char)c;
        else
            o += (size_t)snprintf(buf + o, sizeof buf - o, "\\x%02x", c);
    }
    if (i < len) {
        snprintf(buf + o, sizeof buf - o, "...");
        o += 3;
    }
    buf[o < sizeof buf ? o : sizeof buf - 1] = '\0';
    return buf;
}

void fcase_init(fcase *c)
{
    memset(c, 0, sizeof *c);
    t_matches_init(&c->got);
    t_matches_init(&c->want);
}

void fcase_free(fcase *c)
{
    fcase_close(c);
    t_matches_free(&c->got);
    t_matches_free(&c->want);
}

void fcase_describe(fcase *c, const char *extra)
{
    char pats[300];
    size_t o = 0;
    unsigned i;
    pats[0] = '\0';
    for (i = 0; i < c->fs.count && i < 3 && o < sizeof pats - 1; i++)
        o += (size_t)snprintf(pats + o, sizeof pats - o, "%s\"%s\"(%zu bytes)", i ? " " : "",
                              t_show(c->fs.pats[i], c->fs.lens[i] < 80 ? c->fs.lens[i] : 80),
                              c->fs.lens[i]);
    snprintf(c->desc, sizeof c->desc,
             "algo=%s variant=%s mem=%s k=%u%s%s%s patterns=%u %s%s wgs=%u bpi=%u seed=%llu%s%s",
             clm_algorithm_name(c->algo), clm_variant_name(c->variant),
             clm_table_memory_name(c->mem), c->fs.k,
             c->fs.flags & CLM_CASELESS ? " caseless" : "",
             c->fs.flags & CLM_CLASSES ? " classes" : "",
             c->fs.flags & CLM_MISMATCHES_ONLY ? " mismatches-only" : "", c->fs.count, pats,
             c->fs.count > 3 ? " ..." : "", c->wgs, c->bpi, (unsigned long long)t_seed,
             extra ? " " : "", extra ? extra : "");
}

int fcase_open(fcase *c, const char *extra)
{
    clm_compile_options o;
    int rc;
    fcase_close(c);
    fcase_describe(c, extra);
    clm_compile_options_init(&o, sizeof o);
    o.algorithm = c->algo;
    o.variant = c->variant;
    o.table_memory = c->mem;
    o.flags = c->fs.flags;
    o.max_errors = c->fs.k;
    o.work_group_size = c->wgs;
    o.bytes_per_item = c->bpi;
    rc = clm_compile(t_dev, (const char *const *)c->fs.pats, c->fs.lens, c->fs.ids, c->fs.count,
                     &o, &c->db);
    if (rc != CLM_OK) {
        c->db = NULL;
        return T_FAIL("%s: clm_compile returned %d (%s): %.500s", c->desc, rc, clm_strerror(rc),
                      clm_last_error());
    }
    if (clm_database_get_info(c->db, &c->info, sizeof c->info) != CLM_OK) {
        T_FAIL("%s: clm_database_get_info failed", c->desc);
        fcase_close(c);
        return 0;
    }
    if (!EXPECT(c->info.algorithm != CLM_ALGO_AUTO && c->info.variant != CLM_VARIANT_AUTO
                && c->info.table_memory != CLM_TABLE_AUTO)
        || (c->algo != CLM_ALGO_AUTO && !EXPECT(c->info.algorithm == c->algo))
        || (c->variant != CLM_VARIANT_AUTO && !EXPECT(c->info.variant == c->variant))
        || (c->mem != CLM_TABLE_AUTO && !EXPECT(c->info.table_memory == c->mem))
        || !EXPECT(c->info.max_errors == c->fs.k) || !EXPECT(c->info.pattern_count == c->fs.count)
        || !EXPECT(c->info.choice[0] != '\0')) {
        t_note("in %s (info: algorithm %s, variant %s, table %s, max_errors %u, choice \"%s\")",
               c->desc, clm_algorithm_name(c->info.algorithm), clm_variant_name(c->info.variant),
               clm_table_memory_name(c->info.table_memory), c->info.max_errors, c->info.choice);
        fcase_close(c);
        return 0;
    }
    return fcase_scratch(c, (size_t)1 << 20, 0);
}

int fcase_scratch(fcase *c, size_t slab, size_t capacity)
{
    return t_scratch_alloc(c->db, &c->s, slab, capacity, c->desc);
}

void fcase_close(fcase *c)
{
    clm_scratch_free(c->s);
    clm_database_free(c->db);
    c->s = NULL;
    c->db = NULL;
}

int fcase_check(fcase *c, const unsigned char *text, size_t n, const char *what)
{
    if (!c->db || !c->s) return 0;
    if (t_reference_ex(text, n, &c->fs, &c->want) != 0)
        return T_FAIL("%s: the test's reference cannot parse a pattern (test bug)", c->desc);
    return t_check_scan(c->db, c->s, text, n, &c->want, &c->got, c->desc, what);
}

size_t t_mutate(t_rng *r, const unsigned char *p, size_t m, unsigned edits, int subs_only,
                unsigned alpha, unsigned char *out)
{
    size_t len = m, e;
    memcpy(out, p, m);
    for (e = 0; e < edits; e++) {
        unsigned op = subs_only ? 0 : (unsigned)t_below(r, 3);
        if (op == 1 && len <= 1) op = 0;
        if (op == 0) { /* substitution (by a different byte when the alphabet has one) */
            size_t at = t_below(r, len);
            unsigned char b;
            int tries = 0;
            do b = t_symbol(alpha, t_below(r, alpha));
            while (b == out[at] && ++tries < 16);
            out[at] = b;
        } else if (op == 1) { /* deletion */
            size_t at = t_below(r, len);
            memmove(out + at, out + at + 1, len - at - 1);
            len--;
        } else { /* insertion */
            size_t at = t_below(r, len + 1);
            memmove(out + at + 1, out + at, len - at);
            out[at] = t_symbol(alpha, t_below(r, alpha));
            len++;
        }
    }
    return len;
}
