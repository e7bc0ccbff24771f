/* The LIKE reference and the test columns shared by tests/test_records*.c. */
#ifndef CLMATCH_T_RECORDS_H
#define CLMATCH_T_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#include "clmatch.h"
#include "t.h"

/* A LIKE pattern's tokens: a byte (0-255, folded when caseless), TOK_PERCENT or TOK_ANY. */
enum { TOK_PERCENT = -1, TOK_ANY = -2 };

/* ASCII lower case. */
unsigned char ref_lower(unsigned char c);
/* The pattern p[0, len) as tokens into tok (room for len); returns their number. */
size_t ref_tokens(const char *p, size_t len, int escape, int caseless, int *tok);
/* Whether the pattern matches s[0, n) whole, and where its first segment goes (*pos): 0
 * for a pattern that starts without '%' or has no segment, else the smallest start from
 * which the pattern less its leading '%' matches the rest of the row. */
int ref_like(const unsigned char *s, size_t n, const char *p, size_t len, int escape,
             int caseless, uint64_t *pos);

/* A test column: Arrow's layout over memory of its own. */
typedef struct {
    uint64_t rows;
    unsigned bits;       /* offsets: 32 or 64 */
    void *offsets;       /* rows + 1 */
    unsigned char *data;
    uint64_t bytes;
    uint8_t *validity;   /* NULL: no NULL */
} tcol;

uint64_t tcol_off(const tcol *c, uint64_t i);
void tcol_set_off(tcol *c, uint64_t i, uint64_t v);
int tcol_valid(const tcol *c, uint64_t i);
/* rows rows of lengths from len_of(r, i) with bytes from the alphabet, a NULL in every
 * null_every (0: none; the NULL rows still hold bytes, which must be ignored). */
void tcol_make(tcol *c, t_rng *r, uint64_t rows, unsigned bits,
               size_t (*len_of)(t_rng *, uint64_t), const char *alphabet, unsigned null_every);
void tcol_free(tcol *c);
/* A host column over c's memory (clm_column_wrap). */
int tcol_wrap(const tcol *c, clm_column **out);

/* A disjunction of LIKE patterns, as clm_like_compile takes it. */
typedef struct {
    const char *const *pats;
    const size_t *lens;     /* NULL: NUL-terminated */
    const unsigned *flags;  /* NULL: plain LIKE */
    unsigned count;
    int escape;
} tquery;
/* Whether pattern k of q is in s[0, n) under another reference than ref_like (an approximate
 * one), with arg its own; *at as ref_like's *pos. */
typedef int (*tref_match)(const unsigned char *s, size_t n, const tquery *q, unsigned k,
                          const void *arg, uint64_t *at);
/* The reference's selection of q on c (match NULL: ref_like with q's escape): sel[i] and
 * pos[i] for each row (NOT LIKE, ILIKE and NULLs as SQL has them). Returns the count. */
uint64_t tquery_ref(const tcol *c, const tquery *q, tref_match match, const void *arg,
                    unsigned char *sel, uint64_t *pos);

/* One select's results: s points at room for every row of a column. */
typedef struct {
    clm_selection s;
    uint8_t *bitmap;
    void *ids;
    uint64_t *pos;
    size_t nb;
} tsel;
/* s initialised with the bitmap (a marked byte after it), and with id_bits (32, 64; 0:
 * none) the ids, and with with_pos their positions. */
void tsel_open(tsel *t, const tcol *c, unsigned id_bits, int with_pos);
/* Compare what a successful select wrote with the reference's selection want[], its
 * positions and count; a failure names `what`. */
void tsel_check(const tsel *t, const tcol *c, const unsigned char *want,
                const uint64_t *want_pos, uint64_t want_n, const char *what);
void tsel_close(tsel *t);
/* One select of col with the options given (slab 0: the default) against want[], its
 * positions and count (tsel_check), and kernel_used against `used`. */
/* What the predicates select one by one on col (a work-item per row, ids and positions)
 * into want[] and want_pos[], each row with the position of the first part that selects it:
 * what an OR of them must give. Returns the count. */
uint64_t tsel_parts_ref(const clm_like *const *parts, unsigned n, const clm_column *col,
                        const tcol *c, unsigned char *want, uint64_t *want_pos);
void tsel_select_check(const clm_like *like, const clm_column *col, const tcol *c,
                       const unsigned char *want, const uint64_t *want_pos, uint64_t want_n,
                       unsigned id_bits, int with_pos, size_t slab, clm_rows_kernel kernel,
                       clm_data_path path, clm_rows_kernel used, const char *what);

#endif
