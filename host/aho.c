/* Aho-Corasick over a group of literal patterns (seed 004 section 3): the automaton, and the
 * hooks of its descriptor (host/algo.c). The table's layout is cl/contract.h's CLM_AHO_*. */
#include <stdlib.h>
#include <string.h>

#include "algo.h"
#include "contract.h"

#define NONE CLM_AHO_NONE

/* Symbol sets (degenerate IUPAC codes, classes) become every literal variant they stand for,
 * each an entry of the automaton naming its pattern; their bytes in all at most this. */
#define AHO_MAX_VARIANT_BYTES ((size_t)1 << 22)

/* The automaton of `count` patterns over their reduced alphabet, states in BFS order. */
struct aho {
    unsigned char cls[256];
    unsigned classes;
    size_t states;
    size_t entries;  /* the patterns' literal variants (= count when all are literal) */
    uint32_t *go;    /* states x classes: the next state (the full transition function) */
    uint32_t *fail;  /* per state: its longest proper suffix that is a state */
    uint32_t *order; /* the states in BFS order (order[0] is the root) */
    uint32_t *head;  /* per state: the first entry ending there, or NONE */
    uint32_t *dup;   /* per entry: the next one ending in the same state, or NONE */
    uint32_t *pat;   /* per entry: its pattern */
    uint32_t *dlink; /* per state: the next state of its suffix chain with a head, or NONE */
    uint32_t *total; /* per state: the patterns that end at a byte where the walk is there */
    size_t outs;     /* states with total > 0 */
    size_t passes;   /* the output walk's most loop passes at one byte (cl/aho.cl) */
};

static void aho_free(struct aho *a)
{
    free(a->go);
    free(a->fail);
    free(a->order);
    free(a->head);
    free(a->dup);
    free(a->pat);
    free(a->dlink);
    free(a->total);
    memset(a, 0, sizeof *a);
}

/* The class map of every pattern's bytes at once (folded when caseless: the table maps text
 * bytes, which the kernel does not fold). */
static int aho_classes(const struct clm_symbols *sym, unsigned count, int caseless,
                       size_t total, struct aho *a)
{
    unsigned char *all = malloc(total), seen[256] = {0};
    if (!all)
        return clm_fail(CLM_E_NOMEM, "out of memory building the Aho-Corasick automaton");
    size_t n = 0;
    for (unsigned j = 0; j < count; j++) /* each distinct byte once keeps the buffer short */
        for (size_t i = 0; i < sym[j].m; i++)
            if (!seen[sym[j].bytes[i]]++)
                all[n++] = sym[j].bytes[i];
    a->classes = clm_class_map(all, n, caseless, a->cls);
    free(all);
    return CLM_OK;
}

/* Add entry e, pattern j's variant of m classes, to the trie: go holds its edges (0: none,
 * as no edge leads to the root). */
static void aho_insert(struct aho *a, const unsigned char *classes, size_t m, uint32_t e,
                       unsigned j)
{
    const size_t C = a->classes;
    size_t u = 0;
    for (size_t i = 0; i < m; i++) {
        uint32_t *edge = &a->go[u * C + classes[i]];
        if (!*edge)
            *edge = (uint32_t)a->states++;
        u = *edge;
    }
    a->dup[e] = a->head[u];
    a->head[u] = e;
    a->pat[e] = j;
}

static int aho_trie_literal(const struct clm_symbols *sym, unsigned count, struct aho *a)
{
    size_t longest = 0;
    for (unsigned j = 0; j < count; j++)
        longest = sym[j].m > longest ? sym[j].m : longest;
    unsigned char *word = malloc(longest ? longest : 1);
    if (!word)
        return clm_fail(CLM_E_NOMEM, "out of memory building the Aho-Corasick automaton");
    for (unsigned j = 0; j < count; j++) {
        for (size_t i = 0; i < sym[j].m; i++)
            word[i] = a->cls[sym[j].bytes[i]];
        aho_insert(a, word, sym[j].m, j, j);
    }
    free(word);
    return CLM_OK;
}

/* ---- symbol sets: classes and literal variants ------------------------------------------- */

static int in_set(const uint8_t set[32], unsigned b)
{
    return (set[b >> 3] >> (b & 7)) & 1;
}

/* Split the classes by one set: bytes stay together only if the set holds both or neither.
 * (Caseless sets hold both cases of a letter already: host/pattern.c finish_symbol.) */
static void refine(struct aho *a, const uint8_t set[32])
{
    short next[256][2];
    unsigned n = 0;
    memset(next, 0xff, sizeof next);
    for (unsigned b = 0; b < 256; b++) {
        short *to = &next[a->cls[b]][in_set(set, b)];
        if (*to < 0)
            *to = (short)n++;
        a->cls[b] = (unsigned char)*to;
    }
    a->classes = n;
}

/* Classes of the reduced alphabet of symbol sets: two bytes share one when every set of
 * every pattern holds both or neither. Refining by a set twice changes nothing, so the seen
 * table only saves time. */
static int aho_set_classes(const struct clm_symbols *sym, unsigned count, struct aho *a)
{
    enum { SEEN = 4096 };
    uint8_t(*seen)[32] = calloc(SEEN, 32);
    unsigned char *used = calloc(SEEN, 1);
    if (!seen || !used) {
        free(seen);
        free(used);
        return clm_fail(CLM_E_NOMEM, "out of memory building the Aho-Corasick automaton");
    }
    memset(a->cls, 0, sizeof a->cls);
    a->classes = 1;
    for (unsigned j = 0; j < count; j++)
        for (size_t i = 0; i < sym[j].m; i++) {
            const uint8_t *set = sym[j].sets[i];
            uint32_t h = 2166136261u;
            for (unsigned k = 0; k < 32; k++)
                h = (h ^ set[k]) * 16777619u;
            h %= SEEN;
            if (used[h] && memcmp(seen[h], set, 32) == 0)
                continue;
            memcpy(seen[h], set, 32);
            used[h] = 1;
            refine(a, set);
        }
    free(seen);
    free(used);
    return CLM_OK;
}

/* The classes symbol i of a pattern accepts, into out (returns how many). */
static unsigned symbol_classes(const struct aho *a, const uint8_t set[32], unsigned char *out)
{
    uint8_t taken[256] = {0};
    unsigned n = 0;
    for (unsigned b = 0; b < 256; b++)
        if (in_set(set, b) && !taken[a->cls[b]]++)
            out[n++] = a->cls[b];
    return n;
}

/* Pattern j's variants and their bytes, added to *entries and *bytes; CLM_E_UNSUPPORTED
 * once the bytes pass AHO_MAX_VARIANT_BYTES. */
static int count_variants(const struct aho *a, const struct clm_symbols *p, unsigned j,
                          size_t *entries, size_t *bytes)
{
    unsigned char choice[256];
    size_t v = 1;
    for (size_t i = 0; i < p->m; i++) {
        unsigned n = symbol_classes(a, p->sets[i], choice);
        if (n == 0) /* an empty set matches nothing: no variant */
            return CLM_OK;
        if (v > AHO_MAX_VARIANT_BYTES / n)
            v = AHO_MAX_VARIANT_BYTES + 1; /* saturate: too many either way */
        else
            v *= n;
    }
    if (v > AHO_MAX_VARIANT_BYTES || (p->m && v > (AHO_MAX_VARIANT_BYTES - *bytes) / p->m))
        return clm_fail(CLM_E_UNSUPPORTED,
                        "aho: pattern %u's symbol sets and those before it stand for more than "
                        "%zu bytes of literal variants; bitap searches them a pattern a pass "
                        "(CLM_ALGO_BITAP, --algorithm bitap)",
                        j, AHO_MAX_VARIANT_BYTES);
    *entries += v;
    *bytes += v * p->m;
    return CLM_OK;
}

/* Every variant of every pattern into the trie: an odometer over each symbol's classes. */
static int aho_trie_sets(const struct clm_symbols *sym, unsigned count, struct aho *a)
{
    size_t longest = 0;
    for (unsigned j = 0; j < count; j++)
        longest = sym[j].m > longest ? sym[j].m : longest;
    const size_t L = longest ? longest : 1;
    unsigned char *opts = malloc(L * 256), *word = malloc(L);
    unsigned *n = malloc(L * sizeof *n), *at = malloc(L * sizeof *at);
    int rc = opts && word && n && at
                 ? CLM_OK
                 : clm_fail(CLM_E_NOMEM, "out of memory building the Aho-Corasick automaton");
    uint32_t e = 0;
    for (unsigned j = 0; j < count && rc == CLM_OK; j++) {
        const size_t m = sym[j].m;
        int empty = 0;
        for (size_t i = 0; i < m; i++) {
            n[i] = symbol_classes(a, sym[j].sets[i], opts + i * 256);
            empty |= n[i] == 0;
            at[i] = 0;
            word[i] = opts[i * 256];
        }
        if (empty)
            continue;
        for (;;) {
            aho_insert(a, word, m, e++, j);
            size_t i = m;
            while (i > 0 && ++at[i - 1] == n[i - 1]) { /* the last symbol turns fastest */
                at[i - 1] = 0;
                word[i - 1] = opts[(i - 1) * 256];
                i--;
            }
            if (i == 0)
                break;
            word[i - 1] = opts[(i - 1) * 256 + at[i - 1]];
        }
    }
    free(opts);
    free(word);
    free(n);
    free(at);
    return rc;
}

/* Fail links and the full transition function, in BFS order (a state's fail state is
 * shallower, so its row is complete when the state's is filled); then the output chains. */
static int aho_links(struct aho *a)
{
    const size_t C = a->classes;
    size_t qn = 1;
    a->order[0] = 0;
    a->fail[0] = 0;
    for (size_t qi = 0; qi < qn; qi++) {
        uint32_t u = a->order[qi];
        for (size_t c = 0; c < C; c++) {
            uint32_t v = a->go[u * C + c];
            uint32_t via_fail = u ? a->go[(size_t)a->fail[u] * C + c] : 0;
            if (v) {
                a->fail[v] = via_fail;
                a->order[qn++] = v;
            } else {
                a->go[u * C + c] = via_fail;
            }
        }
    }
    /* The output walk's loop passes at one byte (a device's loop budget): lanes walk their
     * chains together, so an inner loop runs as long as the longest head list among them,
     * for as many chain states as the longest chain: (links + 1) x (list + 2) at most. */
    uint32_t *chain = calloc(a->states, sizeof *chain);
    if (!chain)
        return clm_fail(CLM_E_NOMEM, "out of memory building the Aho-Corasick automaton");
    size_t most_links = 0, most_own = 0;
    a->passes = 0;
    a->outs = 0;
    for (size_t qi = 0; qi < a->states; qi++) {
        uint32_t v = a->order[qi], f = a->fail[v], own = 0;
        for (uint32_t j = a->head[v]; j != NONE; j = a->dup[j])
            own++;
        if (v == 0) {
            a->dlink[0] = NONE;
            a->total[0] = own;
            continue;
        }
        a->dlink[v] = a->head[f] != NONE ? f : a->dlink[f];
        a->total[v] = own + a->total[f];
        chain[v] = (a->head[v] != NONE) + (a->dlink[v] != NONE ? chain[a->dlink[v]] : 0);
        if (a->total[v]) {
            a->outs++;
            most_links = chain[v] + 1u > most_links ? chain[v] + 1u : most_links;
            most_own = own > most_own ? own : most_own;
        }
    }
    a->passes = 1 + most_links * (most_own + 2);
    free(chain);
    return CLM_OK;
}

static int aho_build(const struct clm_symbols *sym, unsigned count, int caseless, struct aho *a)
{
    memset(a, 0, sizeof *a);
    size_t total = 0, entries = 0;
    int literal = 1, rc;
    for (unsigned j = 0; j < count; j++) {
        literal &= sym[j].literal;
        total += sym[j].m;
    }
    if (literal) {
        entries = count;
        rc = aho_classes(sym, count, caseless, total, a);
    } else {
        total = 0;
        rc = aho_set_classes(sym, count, a);
        for (unsigned j = 0; j < count && rc == CLM_OK; j++)
            rc = count_variants(a, &sym[j], j, &entries, &total);
    }
    if (rc != CLM_OK)
        return rc;
    const size_t C = a->classes, cap = total + 1;
    if (cap > (SIZE_MAX / sizeof(uint32_t)) / C || cap * C >= NONE || entries >= NONE)
        return clm_fail(CLM_E_UNSUPPORTED,
                        "%u patterns of %zu bytes in all over %zu distinct bytes are too many "
                        "for one Aho-Corasick automaton; search them in several databases",
                        count, total, C);
    a->states = 1;
    a->entries = entries;
    a->go = calloc(cap * C, sizeof *a->go);
    a->fail = calloc(cap, sizeof *a->fail);
    a->order = calloc(cap, sizeof *a->order);
    a->head = malloc(cap * sizeof *a->head);
    a->dup = malloc((entries ? entries : 1) * sizeof *a->dup);
    a->pat = malloc((entries ? entries : 1) * sizeof *a->pat);
    a->dlink = calloc(cap, sizeof *a->dlink);
    a->total = calloc(cap, sizeof *a->total);
    if (!a->go || !a->fail || !a->order || !a->head || !a->dup || !a->pat || !a->dlink ||
        !a->total) {
        aho_free(a);
        return clm_fail(CLM_E_NOMEM, "out of memory building the Aho-Corasick automaton of "
                                     "%u patterns", count);
    }
    memset(a->head, 0xff, cap * sizeof *a->head);
    rc = literal ? aho_trie_literal(sym, count, a) : aho_trie_sets(sym, count, a);
    if (rc == CLM_OK)
        rc = aho_links(a);
    if (rc != CLM_OK)
        aho_free(a);
    return rc;
}

int clm_aho_variants(const struct clm_symbols *sym, unsigned count, size_t *entries,
                     size_t *bytes, unsigned *classes)
{
    struct aho a;
    memset(&a, 0, sizeof a);
    *entries = *bytes = 0;
    int rc = aho_set_classes(sym, count, &a);
    for (unsigned j = 0; j < count && rc == CLM_OK; j++)
        rc = count_variants(&a, &sym[j], j, entries, bytes);
    *classes = a.classes;
    return rc;
}

/* Entries of the table (cl/contract.h CLM_AHO_*). */
static size_t aho_words(const struct aho *a, unsigned count)
{
    return CLM_AHO_HEADER + a->states * a->classes + 2 * a->outs + 2 * a->entries +
           (size_t)count;
}

/* ---- the descriptor's hooks ------------------------------------------------------------- */

void clm_aho_release(void *built)
{
    if (built)
        aho_free(built);
    free(built);
}

/* The automaton, kept for clm_aho_tables (*built). */
int clm_aho_facts(const struct clm_symbols *sym, unsigned count, unsigned strands, int caseless,
                  struct clm_pattern_facts *f, void **built)
{
    (void)strands; /* reverse complements are patterns of the group */
    struct aho *a = malloc(sizeof *a);
    if (!a)
        return clm_fail(CLM_E_NOMEM, "out of memory building the Aho-Corasick automaton");
    int rc = aho_build(sym, count, caseless, a);
    if (rc != CLM_OK) {
        free(a);
        return rc;
    }
    *built = a;
    f->classes = a->classes;
    f->states = a->states;
    f->outputs = a->passes;
    f->tab_words = aho_words(a, count);
    if (f->tab_words >= NONE)
        return clm_fail(CLM_E_UNSUPPORTED,
                        "the Aho-Corasick table of %u patterns (%zu states) has more than 2^32 "
                        "entries; search them in several databases", count, f->states);
    return CLM_OK;
}

void clm_aho_shape(struct clm_kernel_shape *s, const clm_device *dev,
                   const struct clm_pattern_facts *f, size_t *chunk, int given)
{
    (void)dev, (void)chunk, (void)given;
    s->pat_len = 256;
    s->tab_elem = 4;
    s->tab_len = (unsigned)clm_round_table(f->tab_words);
    s->aho_passes = (unsigned)(f->outputs < 0xffffffu ? f->outputs : 0xffffffu);
}

int clm_aho_tables(const struct clm_kernel_shape *s, const struct clm_symbols *sym,
                   unsigned count, int caseless, unsigned char *bytes, void *tab_out,
                   void *built)
{
    (void)caseless; /* the automaton clm_aho_facts built for these patterns has it */
    if (!built)
        return clm_fail(CLM_E_INVALID, "aho: tables asked for without the automaton");
    const struct aho a = *(const struct aho *)built;
    const size_t C = a.classes;
    uint32_t *newid = malloc(a.states * sizeof *newid);
    if (!newid)
        return clm_fail(CLM_E_NOMEM, "out of memory building the Aho-Corasick table");
    /* states without matches first, in BFS order (the shallow ones, where random text keeps
     * the walk, together), then the output states: one compare tells a match */
    size_t quiet = 0, out = a.states - a.outs;
    for (size_t qi = 0; qi < a.states; qi++) {
        uint32_t v = a.order[qi];
        newid[v] = (uint32_t)(a.total[v] ? out++ : quiet++);
    }
    uint32_t *tab = tab_out;
    const size_t first_out = a.states - a.outs;
    const uint32_t head_at = (uint32_t)(CLM_AHO_HEADER + a.states * C);
    const uint32_t link_at = (uint32_t)(head_at + a.outs), dup_at = (uint32_t)(link_at + a.outs);
    const uint32_t id_at = (uint32_t)(dup_at + a.entries),
                   len_at = (uint32_t)(id_at + a.entries);
    tab[CLM_AHO_CLASSES] = (uint32_t)C;
    tab[CLM_AHO_OUT_MIN] = (uint32_t)(CLM_AHO_HEADER + first_out * C);
    tab[CLM_AHO_HEAD] = head_at;
    tab[CLM_AHO_LINK] = link_at;
    tab[CLM_AHO_DUP] = dup_at;
    tab[CLM_AHO_ID] = id_at;
    tab[CLM_AHO_LEN] = len_at;
    for (size_t v = 0; v < a.states; v++) {
        uint32_t *row = tab + CLM_AHO_HEADER + (size_t)newid[v] * C;
        for (size_t c = 0; c < C; c++)
            row[c] = (uint32_t)(CLM_AHO_HEADER + (size_t)newid[a.go[v * C + c]] * C);
        if (a.total[v]) {
            size_t o = newid[v] - first_out;
            uint32_t d = a.dlink[v];
            tab[head_at + o] = a.head[v];
            tab[link_at + o] = d == NONE ? NONE : (uint32_t)(newid[d] - first_out);
        }
    }
    for (size_t e = 0; e < a.entries; e++) {
        tab[dup_at + e] = a.dup[e];
        tab[id_at + e] = a.pat[e];
    }
    for (unsigned j = 0; j < count; j++)
        tab[len_at + j] = (uint32_t)sym[j].m;
    memcpy(bytes, a.cls, 256);
    (void)s;
    free(newid);
    return CLM_OK;
}

/* A table too large for local memory, asked for there, keeps its head there: the rows of the
 * first states in BFS order, the shallowest, where a walk over text that is mostly no match
 * stays (1 000 random 20-mers: depth 6 or less ~94% of the bytes). Copying ~48 KiB per
 * work-group is paid back over chunks of at least AHO_HOT_CHUNK bytes per work-item. */
#define AHO_HOT_CHUNK 1024u

void clm_aho_split(struct clm_kernel_shape *s, const struct clm_pattern_facts *f, size_t budget,
                   int chunk_given)
{
    const size_t C = f->classes, words = budget / 4, map = 64; /* the class map: 64 uints */
    if (words < map + CLM_AHO_HEADER + C)
        return;
    size_t rows = (words - map - CLM_AHO_HEADER) / C;
    rows = rows < f->states ? rows : f->states;
    s->aho_hot = (unsigned)(CLM_AHO_HEADER + rows * C);
    if (!chunk_given && s->chunk < AHO_HOT_CHUNK) {
        s->chunk = AHO_HOT_CHUNK;
        s->span = s->wg * s->chunk;
    }
}

/* The walk: 16 bytes a pass and single bytes at both ends, as dfa's; and at each byte where
 * matches end, the output walk's passes (every byte, in all-match text). */
size_t clm_aho_loop_passes(const struct clm_kernel_shape *s, size_t chunk, size_t bytes,
                           unsigned lanes)
{
    (void)chunk, (void)lanes;
    return bytes / 16 + 32 + bytes * (s->aho_passes ? s->aho_passes : 1);
}
