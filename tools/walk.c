/* The files an operand names (tools/walk.h). */
#include "walk.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_common.h"

typedef struct {
    dev_t dev;
    ino_t ino;
} dir_id;

typedef struct {
    const config *cfg;
    walk_visit visit;
    walk_before_message before_message;
    void *ctx;
    int stop; /* before_message asked to stop */
    int *failed;
    dir_id *open_dirs; /* the directories being walked, outermost first (loops) */
    size_t depth, cap;
} walker;

/* As grep: a glob matches a name when it matches the whole of it or a part after a '/'. */
static int glob_matches(const char *const *globs, size_t n, const char *name)
{
    size_t i;
    for (i = 0; i < n; i++) {
        const char *p = name;
        while (p) {
            if (fnmatch(globs[i], p, 0) == 0)
                return 1;
            if ((p = strchr(p, '/')) != NULL)
                p++;
        }
    }
    return 0;
}

/* As grep (gnulib's exclude): the last --include or --exclude that matches decides; when
 * none does, a file is excluded when the first of them is an --include. */
static int file_excluded(const config *cfg, const char *name)
{
    size_t i = cfg->n_file_globs;
    while (i-- > 0)
        if (glob_matches(cfg->file_globs + i, 1, name))
            return !cfg->glob_includes[i];
    return cfg->n_file_globs > 0 && cfg->glob_includes[0];
}

/* Before a message: what the visits queued goes first; none once -q has its answer. */
static int may_report(walker *w)
{
    if (!w->stop && w->before_message(w->ctx))
        w->stop = 1;
    return !w->stop;
}

static void report(walker *w, const char *path, int err)
{
    if (!may_report(w))
        return;
    if (!w->cfg->no_messages)
        errmsg("%s: %s", path, strerror(err));
    *w->failed = 1;
}

static char *join(const char *dir, const char *name)
{
    const size_t dn = strlen(dir), nn = strlen(name);
    const int slash = dn > 0 && dir[dn - 1] != '/';
    char *p = malloc(dn + slash + nn + 1);
    if (p) {
        memcpy(p, dir, dn);
        if (slash)
            p[dn] = '/';
        memcpy(p + dn + slash, name, nn + 1);
    }
    return p;
}

/* The names in a directory, in its order ("." and ".." left out). NULL after an error
 * (errno set). */
static char **read_names(const char *path, size_t *n)
{
    DIR *d = opendir(*path ? path : ".");
    char **names = NULL;
    size_t cap = 0;
    struct dirent *e;
    *n = 0;
    if (!d)
        return NULL;
    while ((errno = 0, e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (*n == cap) {
            char **p = realloc(names, (cap = cap ? cap * 2 : 16) * sizeof *names);
            if (!p)
                break;
            names = p;
        }
        if (!(names[*n] = strdup(e->d_name)))
            break;
        (*n)++;
    }
    if (errno) {
        const int err = errno;
        while (*n > 0)
            free(names[--*n]);
        free(names);
        closedir(d);
        errno = err;
        return NULL;
    }
    closedir(d);
    return names ? names : calloc(1, sizeof *names);
}

static int walk_dir(walker *w, const char *path, const struct stat *sb)
{
    size_t n, i;
    int stop = 0;
    char **names = read_names(path, &n);
    if (!names) {
        report(w, *path ? path : ".", errno);
        return 0;
    }
    if (w->depth == w->cap) {
        dir_id *p = realloc(w->open_dirs, (w->cap = w->cap ? w->cap * 2 : 16) * sizeof *p);
        if (!p) {
            report(w, path, ENOMEM);
            n = 0;
        } else {
            w->open_dirs = p;
        }
    }
    if (n)
        w->open_dirs[w->depth++] = (dir_id){sb->st_dev, sb->st_ino};
    for (i = 0; i < n; i++) {
        char *child = (stop = stop || w->stop) ? NULL : join(path, names[i]);
        struct stat cs;
        size_t k;
        if (stop || !child) {
            if (!stop)
                report(w, names[i], ENOMEM);
            free(child);
            free(names[i]);
            continue;
        }
        /* -r leaves the links it meets alone; -R follows them */
        if ((w->cfg->recursive == RECURSE_LOGICAL ? stat(child, &cs) : lstat(child, &cs)) != 0)
            report(w, child, errno);
        else if (S_ISDIR(cs.st_mode)) {
            for (k = 0; k < w->depth; k++)
                if (w->open_dirs[k].dev == cs.st_dev && w->open_dirs[k].ino == cs.st_ino)
                    break;
            if (glob_matches(w->cfg->exclude_dirs, w->cfg->n_exclude_dirs, names[i]))
                ;
            else if (k < w->depth && !w->cfg->no_messages && may_report(w))
                errmsg("%s: warning: recursive directory loop", child); /* as grep */
            else if (k == w->depth)
                stop = walk_dir(w, child, &cs);
        } else if (S_ISREG(cs.st_mode) && !file_excluded(w->cfg, names[i])) {
            stop = w->visit(child, 1, w->ctx);
        } /* links under -r, devices, FIFOs and sockets in a tree: skipped, as grep */
        free(child);
        free(names[i]);
    }
    if (n)
        w->depth--;
    free(names);
    return stop;
}

int walk_operand(const config *cfg, const char *operand, walk_visit visit,
                 walk_before_message before_message, void *ctx, int *failed)
{
    walker w = {cfg, visit, before_message, ctx, 0, failed, NULL, 0, 0};
    struct stat sb;
    int stop;
    if (operand && strcmp(operand, "-") == 0)
        return visit(operand, 0, ctx);
    /* a link on the command line is followed, -r or not */
    if (cfg->recursive && stat(operand ? operand : ".", &sb) == 0 && S_ISDIR(sb.st_mode)) {
        if (operand && glob_matches(cfg->exclude_dirs, cfg->n_exclude_dirs, operand))
            return 0;
        stop = walk_dir(&w, operand ? operand : "", &sb);
        free(w.open_dirs);
        return stop || w.stop;
    }
    if (!operand)
        operand = ".";
    /* as grep: a FILE that cannot be found is reported, a directory is only subject to
     * --exclude-dir */
    if (stat(operand, &sb) == 0 &&
        (S_ISDIR(sb.st_mode) ? glob_matches(cfg->exclude_dirs, cfg->n_exclude_dirs, operand)
                             : file_excluded(cfg, operand)))
        return 0;
    return visit(operand, 0, ctx);
}
