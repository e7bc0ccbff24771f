/*
 * libFuzzer target: the reader of DNA mode's -f pattern files (parse_pattern_file in
 * tools/dna.c), then the checks and de-duplication build_patterns applies to what it read.
 * The first input byte picks the options those depend on (-i, --degenerate, -k 0 to 3); the
 * rest is the file's text. Besides the sanitizers it checks that a file read has patterns,
 * each with a name and a non-empty sequence with no newline, and that those kept are
 * distinct.
 *
 * The functions are static: this file includes dna.c to reach them (the fuzz build links
 * the CLI's other objects from an archive, which then leaves dna.c's own copy out). The
 * reader's messages go to stderr, which make fuzz closes (-close_fd_mask).
 */
#include "../../tools/dna.c"

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
    dna_config cfg;
    pattern_list l;
    if (size == 0)
        return 0;
    memset(&cfg, 0, sizeof cfg);
    memset(&l, 0, sizeof l);
    cfg.caseless = data[0] & 1;
    cfg.degenerate = data[0] >> 1 & 1;
    cfg.max_errors = data[0] >> 2 & 3;
    /* no -e and no -f: build_patterns goes straight to checking the list it is given */
    if (parse_pattern_file("patterns.txt", (const char *)data + 1, size - 1, &l) == 0) {
        check_read(&l);
        if (build_patterns(&cfg, &l) == 0)
            check_distinct(&l);
    }
    free_patterns(&l);
    return 0;
}
