#!/bin/sh
# Tests of the Python binding (python/): python/tests/test_clmatch.py, with the source
# package and BUILD_DIR's libclmatch.so, against a LIKE-to-regex reference. The Python is
# BUILD_DIR/venv's (make test, through tools/setup.sh python, puts pyarrow and numpy there),
# else python3; without pyarrow or numpy the suite is skipped with one "ok" line saying so.
#
# Usage: sh tests/python.sh [BUILD_DIR]   (default build)
# Each test prints "ok - python: NAME" or "not ok - python: NAME"; the last line is
# "N passed, M failed".
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd) || exit 2
arg=${1:-build}
B=$arg
case $B in /*) ;; *) B=$(pwd)/$B ;; esac

skip() {
    echo "ok - python: skipped ($1)"
    echo "0 passed, 0 failed"
    exit 0
}

if [ ! -f "$B/libclmatch.so" ]; then
    echo "not ok - python: $arg/libclmatch.so not built (make B=$arg all)"
    echo "0 passed, 1 failed"
    exit 1
fi
py=$B/venv/bin/python
[ -x "$py" ] || py=python3
command -v "$py" >/dev/null 2>&1 || skip "no python3"
"$py" -c 'import pyarrow, numpy' 2>/dev/null ||
    skip "pyarrow or numpy missing for $py: make test installs them in $arg/venv (sh tools/setup.sh python $arg)"
# A library built with the sanitizers needs their runtime loaded before Python starts.
if command -v ldd >/dev/null 2>&1 && ldd "$B/libclmatch.so" | grep -q libasan; then
    skip "$arg/libclmatch.so is built with AddressSanitizer"
fi

CLMATCH_LIBRARY=$B/libclmatch.so
PYTHONPATH=$ROOT/python${PYTHONPATH:+:$PYTHONPATH}
PYTHONDONTWRITEBYTECODE=1
export CLMATCH_LIBRARY PYTHONPATH PYTHONDONTWRITEBYTECODE
exec "$py" "$ROOT/python/tests/test_clmatch.py"
