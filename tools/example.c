/* Embedding libclmatch: count and list the occurrences of a pattern in a file.
 *   cc example.c $(pkg-config --cflags --libs clmatch) -o example
 *   ./example GAATTC genome.fa                                                            */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clmatch.h>

struct first_matches {
    unsigned shown;
};

/* Called in text order; returning non-zero would stop the scan. */
static int on_match(const clm_match *m, void *ctx)
{
    struct first_matches *fm = ctx;
    if (fm->shown++ < 5)
        printf("  match at [%llu, %llu)\n", (unsigned long long)m->start,
               (unsigned long long)m->end);
    return 0;
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return buf;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s PATTERN FILE\n", argv[0]);
        return 2;
    }
    size_t len;
    char *text = read_all(argv[2], &len);
    if (!text) {
        perror(argv[2]);
        return 2;
    }
    clm_device *dev = NULL;
    clm_database *db = NULL;
    clm_scratch *scratch = NULL;
    const char *pattern = argv[1];
    int rc = clm_device_open(-1, -1, &dev); /* a GPU if there is one, else a CPU */
    if (rc == CLM_OK)
        rc = clm_compile(dev, &pattern, NULL, NULL, 1, NULL, &db);
    if (rc == CLM_OK)
        rc = clm_scratch_alloc(db, NULL, &scratch);
    uint64_t count = 0;
    if (rc == CLM_OK)
        rc = clm_count(db, scratch, text, len, &count);
    struct first_matches fm = {0};
    if (rc == CLM_OK) {
        clm_device_info info;
        clm_device_get_info(dev, &info, sizeof info);
        printf("%llu occurrences of %s on %s\n", (unsigned long long)count, pattern, info.name);
        rc = clm_scan(db, scratch, text, len, on_match, &fm);
    }
    if (rc < 0)
        fprintf(stderr, "error: %s: %s\n", clm_strerror(rc), clm_last_error());
    clm_scratch_free(scratch);
    clm_database_free(db);
    clm_device_close(dev);
    free(text);
    return rc < 0 ? 2 : 0;
}
