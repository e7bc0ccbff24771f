#!/bin/sh
# Tests of the shared library as an embedding program sees it: it exports exactly the
# functions include/clmatch.h declares (the library is compiled with -fvisibility=hidden and
# the header marks its functions CLM_API), a program built against the header alone links
# with it and runs, and the environment it reads is the table of host/env.c.
#
# Usage: sh tests/lib.sh [BUILD_DIR]   (BUILD_DIR holds libclmatch.so and clmatch-kernels;
# default build)
# Each check prints "ok - NAME" or "not ok - NAME"; the last line is "N passed, M failed".
# Needs nm (binutils, installed with gcc; NM=llvm-nm works too): without it the export checks
# fail rather than pass unchecked.
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd) || exit 2
. "$ROOT/tests/cli_lib.sh"
cli_init "${1:-build}" lib
SO=$B/libclmatch.so
CC=${CC:-cc}
NM=${NM:-nm}

# The functions the header declares: in the preprocessed header (no comments, no macros) a
# name followed by "(" is a function being declared.
"$CC" -E -P -I"$ROOT/include" "$ROOT/include/clmatch.h" | tr '\n' ' ' |
    grep -o 'clm_[a-z0-9_]* *(' | sed 's/ *($//' | sort -u >"$T/declared"
if [ ! -s "$T/declared" ]; then
    fail "clmatch.h declares functions" "no clm_* function found in the preprocessed header"
fi

if [ ! -f "$SO" ]; then
    fail "libclmatch.so exports the header's functions" "$SO not built"
elif ! command -v "$NM" >/dev/null 2>&1; then
    fail "libclmatch.so exports the header's functions" "$NM not found (binutils)"
else
    # every defined dynamic symbol, whatever its kind (functions, data)
    "$NM" -D --defined-only "$SO" | awk 'NF == 3 && $2 != "A" { print $3 }' | sort -u \
        >"$T/exported"
    missing=$(comm -23 "$T/declared" "$T/exported")
    extra=$(comm -13 "$T/declared" "$T/exported")
    if [ -z "$missing" ]; then
        pass "libclmatch.so exports every function of clmatch.h ($(wc -l <"$T/declared"))"
    else
        fail "libclmatch.so exports every function of clmatch.h" \
            "declared but not exported (CLM_API missing?): $(echo $missing)"
    fi
    if [ -z "$extra" ]; then
        pass "libclmatch.so exports nothing else"
    else
        fail "libclmatch.so exports nothing else" \
            "exported but not in clmatch.h ($(echo "$extra" | wc -l)): $(echo $extra | cut -c 1-300)"
    fi
fi

# A program that knows only the installed header links with the shared library, and the
# library it loads is the header's version.
cat >"$T/embed.c" <<'EOF'
#include <stdio.h>
#include <string.h>
#include <clmatch.h>
int main(void)
{
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", CLM_VERSION_MAJOR, CLM_VERSION_MINOR,
             CLM_VERSION_PATCH);
    if (strcmp(clm_version(), want) != 0) {
        printf("clm_version() %s, header %s\n", clm_version(), want);
        return 1;
    }
    return strcmp(clm_strerror(CLM_E_INVALID), clm_strerror(CLM_OK)) == 0;
}
EOF
soname=$(${OBJDUMP:-objdump} -p "$SO" 2>/dev/null | awk '$1 == "SONAME" { print $2 }')
# a sanitized library (make test-asan) needs its runtime linked into the program first
san=""
${OBJDUMP:-objdump} -p "$SO" 2>/dev/null | grep -q 'NEEDED.*libasan' && san=-fsanitize=address,undefined
# shellcheck disable=SC2086 # $san is empty or one option
if [ -f "$SO" ] && [ -n "$soname" ] && ln -s "$(cd "$B" && pwd)/libclmatch.so" "$T/$soname" &&
    "$CC" -std=c11 -Wall -Wextra -pedantic -Werror $san -I"$ROOT/include" -o "$T/embed" \
        "$T/embed.c" -L"$B" -lclmatch >"$T/err" 2>&1 &&
    LD_LIBRARY_PATH=$T "$T/embed" >>"$T/err" 2>&1; then
    pass "a program built against clmatch.h alone links with libclmatch.so and runs"
else
    fail "a program built against clmatch.h alone links with libclmatch.so and runs" \
        "soname '$soname': $(head -n 5 "$T/err")"
fi

# The environment: read through clm_env() alone (host/env.c), every CLMATCH_* name the
# library's sources mention a row of its table (docs/library.md shows it).
readers=$(cd "$ROOT" && grep -l 'getenv *(' host/*.c | grep -v -e '^host/env\.c$')
if [ -z "$readers" ]; then
    pass "the library reads the environment through host/env.c"
else
    fail "the library reads the environment through host/env.c" "getenv in: $(echo $readers)"
fi
if "$B/clmatch-kernels" --environment >"$T/env_table" 2>"$T/err"; then
    sed -n 's/^| `\([A-Z_]*\)` |.*/\1/p' "$T/env_table" | sort -u >"$T/env_rows"
    grep -oh 'CLMATCH_[A-Z_]*[A-Z]' "$ROOT"/host/*.c | sort -u >"$T/env_named"
    unlisted=$(comm -23 "$T/env_named" "$T/env_rows")
    if [ -z "$unlisted" ]; then
        pass "every CLMATCH_* variable of host/ has a row in host/env.c ($(wc -l <"$T/env_rows") rows)"
    else
        fail "every CLMATCH_* variable of host/ has a row in host/env.c" "no row: $(echo $unlisted)"
    fi
else
    fail "every CLMATCH_* variable of host/ has a row in host/env.c" "$(head -n 3 "$T/err")"
fi

cli_summary
