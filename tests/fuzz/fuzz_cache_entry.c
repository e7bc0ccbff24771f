/*
 * libFuzzer target: the kernel cache's entry check (clm_cache_entry_check, host/program.c)
 * on arbitrary bytes, twice: as an entry file read from disk, and as a binary sealed into an
 * entry (clm_cache_entry_make), so that the checks of the binary itself (a PoCL archive's
 * walk) see the bytes past the entry's checksum. No device, no file I/O.
 * Seeds: tests/fuzz/corpus/cache_entry/ (PoCL archives and entries of FUZZ_KEY).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define FUZZ_KEY "clmatch fuzz\nkey"

/* When the entry verifies, its binary lies within it (and is `want` when given). */
static void check(const uint8_t *entry, size_t len, const uint8_t *want, size_t want_len)
{
    for (unsigned kernels = 2; kernels <= 3; kernels++) {
        size_t at = 0, bin_len = 0;
        if (clm_cache_entry_check(entry, len, FUZZ_KEY, kernels, &at, &bin_len) != NULL)
            continue;
        if (at > len || bin_len > len - at || bin_len == 0)
            abort();
        if (want && (bin_len != want_len || memcmp(entry + at, want, want_len) != 0))
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t len;
    check(data, size, NULL, 0);
    unsigned char *entry = clm_cache_entry_make(FUZZ_KEY, data, size, &len);
    if (entry) {
        check(entry, len, data, size);
        free(entry);
    }
    return 0;
}
