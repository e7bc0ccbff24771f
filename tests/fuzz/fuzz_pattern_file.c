/*
 * libFuzzer target: the reader of DNA mode's -f pattern files (parse_pattern_file in
 * tools/dna_patterns.c), then the checks and de-duplication dna_build_patterns applies to
 * what it read.
 * The first input byte picks the options those depend on (-i, --degenerate, -k 0 to 3); the
 * rest is the file's text. Besides the sanitizers it checks that a file read has patterns,
 * each with a name and a non-empty sequence with no newline, and that those kept are
 * distinct.
 *
 * The reader is static: this file includes dna_patterns.c to reach it (the fuzz build links
 * the CLI's other objects from an archive, which then leaves that file's own copy out). The
 * reader's messages go to stderr, which make fuzz closes (-close_fd_mask).
 */
#include "../../tools/dna_patterns.c"

#include <stdint.h>

static void check_read(const pattern_list *l)
{
    if (l->n == 0)
        abort(); /* a file without patterns is an error */
    for (size_t i = 0; i < l->n; i++) {
        const dna_pattern *p = &l->v[i];
        if (!p->name || !p->seq || !p->shown || !p->where || p->len == 0 ||
            memchr(p->seq, '\n', p->len) || memchr(p->name, '\n', p->name_len))
            abort();
    }
}

/* No two kept patterns have the same name and sequence (pairs checked on small lists: the
 * reader's sort is what makes large ones fast). */
static void check_distinct(const pattern_list *l)
{
    if (l->n > 64)
        return;
    for (size_t i = 0; i < l->n; i++)
        for (size_t j = i + 1; j < l->n; j++)
            if (same_pattern(&l->v[i], &l->v[j]))
                abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    dna_pattern_opts o;
    pattern_list l;
    if (size == 0)
        return 0;
    memset(&o, 0, sizeof o);
    memset(&l, 0, sizeof l);
    o.caseless = data[0] & 1;
    o.degenerate = data[0] >> 1 & 1;
    o.max_errors = data[0] >> 2 & 3;
    /* no -e and no -f: dna_build_patterns goes straight to checking the list it is given */
    if (parse_pattern_file("patterns.txt", (const char *)data + 1, size - 1, &l) == 0) {
        check_read(&l);
        if (dna_build_patterns(&o, &l) == 0)
            check_distinct(&l);
    }
    dna_free_patterns(&l);
    return 0;
}
