/*
 * Pattern gathering for the main mode (patterns.h).
 */
#include "patterns.h"
#include "cli_common.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int add(pattern_list *l, const char *p, size_t len)
{
    if (l->count == l->cap) {
        size_t ncap = l->cap ? l->cap * 2 : 16;
        pattern *np = ncap > SIZE_MAX / sizeof *np ? NULL : realloc(l->items, ncap * sizeof *np);
        if (!np) {
            errmsg("out of memory");
            return -1;
        }
        l->items = np;
        l->cap = ncap;
    }
    if (l->count >= UINT_MAX) {
        errmsg("too many patterns (at most %u)", UINT_MAX - 1);
        return -1;
    }
    l->items[l->count].ptr = p;
    l->items[l->count].len = len;
    l->items[l->count].number = (unsigned)l->count + 1;
    l->count++;
    return 0;
}

/* Every line of [p, end): a final one without newline too, but no empty one after a final
 * newline. */
static int add_lines(pattern_list *l, const char *p, const char *end)
{
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *stop = nl ? nl : end;
        if (add(l, p, (size_t)(stop - p)) != 0)
            return -1;
        p = nl ? nl + 1 : end;
    }
    return 0;
}

int patterns_add_string(pattern_list *l, const char *s)
{
    const size_t n = strlen(s);
    /* grep -e '' is one empty pattern, and so is what follows a final newline of -e "a\n" */
    if (add_lines(l, s, s + n) != 0)
        return -1;
    return (n == 0 || s[n - 1] == '\n') ? add(l, s + n, 0) : 0;
}

int patterns_add_file(pattern_list *l, const char *path)
{
    const int is_stdin = strcmp(path, "-") == 0;
    const char *name = is_stdin ? "(standard input)" : path;
    const int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY);
    unsigned char *buf = NULL;
    char **nf;
    size_t len = 0;

    if (fd < 0) {
        errmsg("%s: %s", name, strerror(errno));
        return -1;
    }
    int err = read_fd_all(fd, &buf, &len);
    if (!is_stdin && close(fd) != 0 && !err)
        err = errno;
    nf = err ? NULL : realloc(l->files, (l->n_files + 1) * sizeof *nf);
    if (!nf) {
        errmsg("%s: %s", name, strerror(err ? err : ENOMEM));
        free(buf);
        return -1;
    }
    l->files = nf;
    l->files[l->n_files++] = (char *)buf;
    return add_lines(l, (char *)buf, (char *)buf + len);
}

static int caseless_sort; /* qsort has no context argument */
static int classes_sort;  /* with class syntax the byte after '\\' keeps its case (\d vs \D) */

static int fold(int ch)
{
    return (ch >= 'A' && ch <= 'Z') ? ch - 'A' + 'a' : ch;
}

static int pattern_cmp(const void *a, const void *b)
{
    const pattern *x = a, *y = b;
    size_t i;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    if (!caseless_sort)
        return memcmp(x->ptr, y->ptr, x->len);
    for (i = 0; i < x->len; i++) {
        int cx = fold((unsigned char)x->ptr[i]), cy = fold((unsigned char)y->ptr[i]);
        if (cx != cy)
            return cx - cy;
        if (classes_sort && cx == '\\' && i + 1 < x->len) {
            i++; /* an escape: compared exactly */
            cx = (unsigned char)x->ptr[i];
            cy = (unsigned char)y->ptr[i];
            if (cx != cy)
                return cx - cy;
        }
    }
    return 0;
}

int pattern_has_class_syntax(const pattern *p)
{
    return memchr(p->ptr, '.', p->len) || memchr(p->ptr, '[', p->len) ||
           memchr(p->ptr, '\\', p->len);
}

void patterns_prepare(pattern_list *l, int caseless, int classes, int keep_duplicates,
                      int *has_empty)
{
    size_t i, kept = 0;
    *has_empty = 0;
    for (i = 0; i < l->count; i++) {
        if (l->items[i].len == 0)
            *has_empty = 1;
        else
            l->items[kept++] = l->items[i];
    }
    l->count = kept;
    if (keep_duplicates || l->count < 2)
        return;
    caseless_sort = caseless;
    classes_sort = classes;
    qsort(l->items, l->count, sizeof *l->items, pattern_cmp);
    for (i = 1, kept = 1; i < l->count; i++)
        if (pattern_cmp(&l->items[kept - 1], &l->items[i]) != 0)
            l->items[kept++] = l->items[i];
    l->count = kept;
}

void patterns_free(pattern_list *l)
{
    size_t i;
    for (i = 0; i < l->n_files; i++)
        free(l->files[i]);
    free(l->files);
    free(l->items);
    memset(l, 0, sizeof *l);
}
