#!/bin/sh
# make check-kernels: every kernel shape of a fixed list of cases (tools/clmatch-kernels.c),
# preprocessed with the build options it gets, so that a refactor can be diffed:
#
#   sh tools/check-kernels.sh BUILD_DIR OUT_DIR [BASE_DIR]
#
# OUT_DIR/cases.txt says which kernel (or refusal) each case got; OUT_DIR/KEY.i is kernel KEY
# preprocessed (the host's C preprocessor with the build options' -D macros: OpenCL C's
# preprocessor is C99's). With BASE_DIR (an earlier OUT_DIR) the two are compared and the
# status is 1 when they differ.
set -eu
build=$1 out=$2 base=${3:-}
cpp=${CPP_FOR_KERNELS:-cc -E -P -x c}
rm -rf "$out"
"$build/clmatch-kernels" "$out/raw"
mv "$out/raw/cases.txt" "$out/cases.txt"
n=0
for f in "$out"/raw/*.cl; do
    key=$(basename "$f" .cl)
    # the options line: the -D items only (-cl-std is the OpenCL compiler's)
    opts=$(sed -n '1s/^\/\/ options: //p' "$f" | tr ' ' '\n' | grep -v '^-cl-' | tr '\n' ' ')
    # shellcheck disable=SC2086 # the options split into arguments on purpose
    sed 1d "$f" | $cpp $opts - | sed '/^[[:space:]]*$/d' >"$out/$key.i"
    n=$((n + 1))
done
rm -rf "$out/raw"
echo "check-kernels: $n kernels of $(wc -l <"$out/cases.txt") cases in $out"
if [ -n "$base" ]; then
    if diff -r -q -w "$base" "$out" >/dev/null; then
        echo "check-kernels: identical to $base"
    else
        echo "check-kernels: differs from $base:"
        diff -r -q -w "$base" "$out" | head -20
        exit 1
    fi
fi
