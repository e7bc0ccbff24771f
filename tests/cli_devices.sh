#!/bin/sh
# Tests of --devices LIST: a search split across several devices prints byte for byte what
# one device prints (lines, -c, --count-matches, -o, --positions, -k, --dna), from a file and
# from a pipe; --devices auto's host search prints what the default device prints (and
# needs no OpenCL driver); a bad list (unknown or repeated device, bad syntax, with -p) is an error with status 2.
# POCL_DEVICES="pthread pthread" makes PoCL expose two devices; without a platform of two
# CPU devices the split cases are skipped (the error cases still run). Every command names
# the devices it means: the default device (a GPU, CLMATCH_PLATFORM) need not be in the pair.
#
# Usage: sh tests/cli_devices.sh [BUILD_DIR]   (BUILD_DIR holds the clmatch binary; default build)
# Each check prints "ok - NAME" or "not ok - NAME"; the last line is "N passed, M failed".
# shellcheck disable=SC2002  # cat | clmatch is deliberate: a pipe takes the stream path
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd) || exit 2
. "$ROOT/tests/cli_lib.sh"
cli_init "${1:-build}" cli_devices
POCL_DEVICES="pthread pthread"
export POCL_DEVICES

# The first platform whose devices 0 and 1 are CPUs (PoCL's, not necessarily platform 0):
# "P:0,P:1".
pair=$("$CLM" --list-devices | awk '{ k = $1 ~ /^[0-9]+:[0-9]+$/ ? 1 : 0 }
           !k && $2 ~ /^[0-9]+:[0-9]+$/ { k = 2 }
           k && $(k + 1) == "CPU" { split($k, a, ":")
           if (a[2] < 2 && ++n[a[1]] == 2) { print a[1] ":0," a[1] ":1"; exit } }')

# Text of a few megabytes (each device gets a megabyte or more: the split applies), built
# from this repository's documentation with a counter so that lines differ.
cat "$ROOT/README.md" "$ROOT"/docs/*.md >"$T/doc"
i=0
: >"$T/big"
while [ "$(wc -c <"$T/big")" -lt 3000000 ]; do
    sed "s/^/$i /" "$T/doc" >>"$T/big"
    i=$((i + 1))
done

# one_vs_set NAME ARGS...: clmatch ARGS on device 0 of the pair and on the pair (--devices
# $devs when set), from the file and from a pipe in 64 KiB blocks (the stream path).
one_vs_set() {
    name=$1
    shift
    one=${pair%%,*}
    "$CLM" -p "${one%%:*}" -d "${one##*:}" "$@" "$T/big" >"$T/exp" 2>"$T/err"
    echo "exit $?" >>"$T/exp"
    "$CLM" --devices "${devs:-$pair}" "$@" "$T/big" >"$T/act" 2>"$T/err"
    echo "exit $?" >>"$T/act"
    same "$name" "$T/exp" "$T/act" "$T/err"
    cat "$T/big" | "$CLM" --devices "${devs:-$pair}" --block-size=64K "$@" >"$T/act" 2>"$T/err"
    echo "exit $?" >>"$T/act"
    same "$name, from a pipe" "$T/exp" "$T/act" "$T/err"
}

if [ -n "$pair" ]; then
    one_vs_set "lines" -F 'the'
    one_vs_set "-c" -c -F 'device'
    one_vs_set "--count-matches, several patterns" --count-matches -e 'the' -e 'a' -e 'slab'
    one_vs_set "--positions, several patterns" --positions -e 'ee' -e 'device' -e 'e'
    one_vs_set "-o -n" -o -n -F 'kernel'
    one_vs_set "-k 1 --positions" -k 1 --positions -F 'pattern'
    one_vs_set "no match" -F 'no such text here'
    # --dna: FASTA records of random bases, the parts' edges inside records
    awk 'BEGIN { srand(7); for (r = 0; r < 4; r++) { print ">chr" r " test"
                 for (l = 0; l < 12000; l++) { s = ""
                     for (i = 0; i < 60; i++) s = s substr("ACGT", int(rand() * 4) + 1, 1)
                     print s } } }' >"$T/fa"
    # (sets take the FASTA device path by default, their streams dropping the line breaks;
    # --line-breaks=host the host's FASTA reader; -m 1 with CRLF lines too)
    sed 's/$/\r/' "$T/fa" >"$T/fa-crlf"
    for opts in "-m 1" "-k 1" "-i" "--line-breaks=host -m 1" "-m 1 CRLF"; do
        f=$T/fa
        case $opts in *CRLF) opts=${opts% CRLF}; f=$T/fa-crlf ;; esac
        # shellcheck disable=SC2086 # $opts: several options
        "$CLM" --dna -p "${pair%%:*}" -d 0 $opts ACGTTGCAAG "$T/fa" >"$T/exp" 2>"$T/err"
        echo "exit $?" >>"$T/exp"
        # shellcheck disable=SC2086
        "$CLM" --dna --devices "$pair" $opts ACGTTGCAAG "$f" >"$T/act" 2>"$T/err"
        echo "exit $?" >>"$T/act"
        same "--dna $opts ${f##*/}" "$T/exp" "$T/act" "$T/err"
    done
    "$CLM" --devices all --count-matches -F 'the' "$T/big" >"$T/act" 2>"$T/err"
    "$CLM" -p "${pair%%:*}" -d 0 --count-matches -F 'the' "$T/big" >"$T/exp" 2>>"$T/err"
    same "--devices all" "$T/exp" "$T/act" "$T/err"
    # clmatch-tune measures the speed that sets the shares and keeps it in the profile (the
    # two devices are alike: one profile names both; the pair's, not the default device's)
    PD=$T/profiles
    mkdir -p "$PD"
    CLMATCH_PROFILE_DIR=$PD "$(dirname "$CLM")/clmatch-tune" -p "${pair%%:*}" -d 0 --quick \
        --out "$PD/" >"$T/tune" 2>"$T/err"
    if grep -Eq '^speed = [1-9][0-9]*$' "$PD"/*.profile 2>/dev/null; then
        pass "clmatch-tune writes the device's speed into its profile"
    else
        fail "clmatch-tune writes the device's speed into its profile" "$(head -n 3 "$T/err")"
    fi
    CLMATCH_PROFILE_DIR=$PD "$CLM" --devices "$pair" --stats -c the "$T/big" >"$T/act" 2>"$T/err"
    if grep -q "shares by their profiles' speed" "$T/err" && grep -q 'speed [0-9.]* GB/s' "$T/err"
    then
        pass "--devices takes the shares from the profiles' speed"
    else
        fail "--devices takes the shares from the profiles' speed" "$(head -n 3 "$T/err")"
    fi
    CLMATCH_PROFILE_DIR=$PD one_vs_set "lines, shares by speed" -F 'the'
    # early start (early:LIST, auto): device 0 searches at once; CLMATCH_TEST_EARLY holds
    # device 1 back until a chunk is claimed, then gives it the next (it joins mid-input,
    # however fast device 0), makes it fail to open (the search goes on without it), or holds
    # it back past the end (device 0 does it all)
    for hook in 1:1 1:fail 1:1000000; do
        CLMATCH_TEST_EARLY=$hook
        export CLMATCH_TEST_EARLY
        devs=early:$pair
        one_vs_set "early:LIST, device 1 at $hook: lines" -F 'the'
        one_vs_set "early:LIST, device 1 at $hook: -c" -c -F 'device'
        one_vs_set "early:LIST, device 1 at $hook: -o -n, several" -o -n -e 'the' -e 'kernel'
        one_vs_set "early:LIST, device 1 at $hook: -k 1 --positions" -k 1 --positions -F 'pattern'
        "$CLM" --dna --devices "$devs" -m 1 ACGTTGCAAG "$T/fa" >"$T/act" 2>"$T/err"
        echo "exit $?" >>"$T/act"
        "$CLM" --dna -p "${pair%%:*}" -d 0 -m 1 ACGTTGCAAG "$T/fa" >"$T/exp" 2>>"$T/err"
        echo "exit $?" >>"$T/exp"
        same "early:LIST, device 1 at $hook: --dna -m 1" "$T/exp" "$T/act" "$T/err"
    done
    CLMATCH_TEST_EARLY=1:1 "$CLM" --devices "early:$pair" --stats -c the "$T/big" \
        >"$T/act" 2>"$T/err"
    if [ "$(grep -Ec 'device [0-9]+:[01] .*, [1-9][0-9]* bytes' "$T/err")" = 2 ]; then
        pass "early:LIST: the late device joins mid-input (--stats)"
    else
        fail "early:LIST: the late device joins mid-input (--stats)" "$(cat "$T/err")"
    fi
    CLMATCH_TEST_EARLY=1:fail "$CLM" --devices "early:$pair" --stats -c the "$T/big" \
        >"$T/act" 2>"$T/err"
    if grep -q 'failed to come up: .*injected' "$T/err"; then
        pass "early:LIST: --stats says a device failed to come up"
    else
        fail "early:LIST: --stats says a device failed to come up" "$(cat "$T/err")"
    fi
    unset CLMATCH_TEST_EARLY
    devs=auto
    one_vs_set "--devices auto (the first CPU, then any GPU)" -c -F 'the'
    devs=
else
    echo "# skipped the split cases: no platform with two devices"
fi

# --devices auto with one literal pattern: the host search (no OpenCL) takes the inputs of up
# to CLMATCH_HOST_MAX bytes, byte for byte what the default device prints (CLMATCH_HOST_MAX=0
# with no device chosen: the device); a larger file, a
# pipe and other patterns go to the devices. auto_vs_default NAME ARGS...: both runs on
# $T/doc and $T/big (several files: a batch), the exit status included.
auto_vs_default() {
    name=$1
    shift
    CLMATCH_HOST_MAX=0 "$CLM" "$@" "$T/doc" "$T/big" >"$T/exp" 2>"$T/err"
    echo "exit $?" >>"$T/exp"
    "$CLM" --devices auto "$@" "$T/doc" "$T/big" >"$T/act" 2>"$T/err"
    echo "exit $?" >>"$T/act"
    same "--devices auto, host search: $name" "$T/exp" "$T/act" "$T/err"
}
auto_vs_default "lines" -F 'the'
auto_vs_default "-c" -c 'device'
auto_vs_default "-n" -n 'kernel'
auto_vs_default "-o -b" -o -b 'slab'
auto_vs_default "-i -o" -i -o 'OpenCL'
auto_vs_default "-i -c" -i -c 'THE'
auto_vs_default "-w" -w -c 'the'
auto_vs_default "--count-matches, overlapping" --count-matches 'ee'
auto_vs_default "-q" -q 'zzz no such'
auto_vs_default "several patterns (devices)" -c -e 'the' -e 'slab'
auto_vs_default "-k 1 (devices)" -c -k 1 'kernel'
# several small files: one batch for the host search
CLMATCH_HOST_MAX=0 "$CLM" -c -i 'slab' "$T/doc" "$T/doc" "$ROOT/README.md" >"$T/exp" 2>"$T/err"
"$CLM" --devices auto -c -i 'slab' "$T/doc" "$T/doc" "$ROOT/README.md" >"$T/act" 2>"$T/err"
same "--devices auto, host search: several small files" "$T/exp" "$T/act" "$T/err"
# a file above CLMATCH_HOST_MAX goes to the devices, a batch below it to the host search
CLMATCH_HOST_MAX=0 "$CLM" -n -o 'device' "$T/big" >"$T/exp" 2>"$T/err"
CLMATCH_HOST_MAX=1M "$CLM" --devices auto --stats -n -o 'device' "$T/big" >"$T/act" 2>"$T/err"
same "--devices auto: a file above CLMATCH_HOST_MAX (devices)" "$T/exp" "$T/act" "$T/err"
if ! grep -q "host search" "$T/err" && grep -q "^clmatch: device " "$T/err"; then
    pass "--devices auto --stats: a file above CLMATCH_HOST_MAX went to the devices"
else
    fail "--devices auto --stats: a file above CLMATCH_HOST_MAX went to the devices" \
        "$(cat "$T/err")"
fi
CLMATCH_HOST_MAX=0 "$CLM" -c 'device' "$T/doc" "$ROOT/README.md" >"$T/exp" 2>"$T/err"
CLMATCH_HOST_MAX=1M "$CLM" --devices auto --stats -c 'device' "$T/doc" "$ROOT/README.md" \
    >"$T/act" 2>"$T/err"
same "--devices auto: a batch below CLMATCH_HOST_MAX" "$T/exp" "$T/act" "$T/err"
if grep -q "2 files (.*doc \.\.\. .*README.md): host search (no OpenCL)" "$T/err" &&
    grep -q "no OpenCL device opened" "$T/err"; then
    pass "--devices auto --stats: the batch went to the host search, no device opened"
else
    fail "--devices auto --stats: the batch went to the host search, no device opened" \
        "$(cat "$T/err")"
fi
"$CLM" --devices auto --stats -c 'device' "$T/doc" >"$T/act" 2>"$T/err"
if grep -q "no OpenCL device opened" "$T/err"; then
    pass "--devices auto --stats: no device opened for a small file"
else
    fail "--devices auto --stats: no device opened for a small file" "$(cat "$T/err")"
fi
# from a pipe: the devices (opened then)
CLMATCH_HOST_MAX=0 "$CLM" -c 'device' <"$T/big" >"$T/exp" 2>"$T/err"
cat "$T/big" | "$CLM" --devices auto -c 'device' >"$T/act" 2>"$T/err"
same "--devices auto: a pipe goes to the devices" "$T/exp" "$T/act" "$T/err"
# No OpenCL at all: with no driver to load, the host search still answers (where the ICD
# loader honours OCL_ICD_VENDORS: a run on the device then fails), and a larger file fails
# cleanly, naming it
if ! OCL_ICD_VENDORS=$T/no-vendors CLMATCH_HOST_MAX=0 "$CLM" -c 'device' "$T/doc" \
    >/dev/null 2>&1; then
    CLMATCH_HOST_MAX=0 "$CLM" -c 'device' "$T/doc" >"$T/exp" 2>"$T/err"
    OCL_ICD_VENDORS=$T/no-vendors "$CLM" --devices auto -c 'device' "$T/doc" >"$T/act" \
        2>"$T/err"
    same "--devices auto: the host search needs no OpenCL driver" "$T/exp" "$T/act" "$T/err"
    OCL_ICD_VENDORS=$T/no-vendors "$CLM" -c 'device' "$T/doc" >"$T/act" 2>"$T/err"
    same "no device chosen: the host search needs no OpenCL driver" "$T/exp" "$T/act" "$T/err"
    expect_error "--devices auto: no OpenCL for a file above CLMATCH_HOST_MAX" 2 "doc: " \
        env OCL_ICD_VENDORS="$T/no-vendors" CLMATCH_HOST_MAX=1K "$CLM" --devices auto \
        -c 'device' "$T/doc"
fi
# No device chosen (no -p, -d, --devices, CLMATCH_PLATFORM, CLMATCH_DEVICE): files go to the
# host search as with --devices auto, byte for byte what the default device prints
# (CLMATCH_HOST_MAX=0); a pipe, other patterns and a device asked for go to the device.
default_vs_device() {
    name=$1
    shift
    CLMATCH_HOST_MAX=0 "$CLM" "$@" "$T/doc" "$T/big" >"$T/exp" 2>"$T/err"
    echo "exit $?" >>"$T/exp"
    "$CLM" "$@" "$T/doc" "$T/big" >"$T/act" 2>"$T/err"
    echo "exit $?" >>"$T/act"
    same "no device chosen: $name" "$T/exp" "$T/act" "$T/err"
}
if [ -n "${CLMATCH_PLATFORM:-}${CLMATCH_DEVICE:-}" ]; then
    echo "# skipped the no-device-chosen cases: CLMATCH_PLATFORM or CLMATCH_DEVICE is set"
else
    default_vs_device "lines" -F 'the'
    default_vs_device "-c" -c 'device'
    default_vs_device "-n -o -b" -n -o -b 'slab'
    default_vs_device "-i -o" -i -o 'OpenCL'
    default_vs_device "-w -c" -w -c 'the'
    default_vs_device "-x" -x 'the'
    default_vs_device "-v -c" -v -c 'the'
    default_vs_device "-l" -l 'kernel'
    default_vs_device "--count-matches" --count-matches 'ee'
    default_vs_device "-m 2 -n" -m 2 -n 'the'
    default_vs_device "-q" -q 'zzz no such'
    default_vs_device "several patterns (device)" -c -e 'the' -e 'slab'
    default_vs_device "a class (device)" -c 's[lx]ab'
    # which path took it: --stats
    stats_says() { # NAME WHAT(grep -E) CLMATCH_HOST_MAX ARGS...
        name=$1 what=$2 max=$3
        shift 3
        if CLMATCH_HOST_MAX=$max "$CLM" --stats "$@" >/dev/null 2>"$T/err" &&
            grep -Eq "$what" "$T/err"; then
            pass "$name"
        else
            fail "$name" "$(cat "$T/err")"
        fi
    }
    stats_says "no device chosen --stats: the host search, no device opened" \
        "no OpenCL device opened" "" -c 'device' "$T/doc" "$T/big"
    stats_says "no device chosen, CLMATCH_HOST_MAX=0 --stats: the device" "^clmatch: device" 0 \
        -c 'device' "$T/doc"
    stats_says "-p 0 -d 0 --stats: the device" "^clmatch: device" "" -p 0 -d 0 -c 'device' "$T/doc"
    stats_says "no device chosen, two patterns --stats: the device" "^clmatch: device" "" \
        -c -e 'device' -e 'slab' "$T/doc"
    cat "$T/big" | "$CLM" -c 'device' >"$T/act" 2>"$T/err"
    CLMATCH_HOST_MAX=0 "$CLM" -c 'device' <"$T/big" >"$T/exp" 2>"$T/err"
    same "no device chosen: a pipe goes to the device" "$T/exp" "$T/act" "$T/err"
    expect_error "no device chosen: a bad CLMATCH_HOST_MAX" 2 "CLMATCH_HOST_MAX='1Q'" \
        env CLMATCH_HOST_MAX=1Q "$CLM" x "$T/doc"
fi

expect_error "--devices auto: a bad CLMATCH_HOST_MAX" 2 "CLMATCH_HOST_MAX='1Q'" \
    env CLMATCH_HOST_MAX=1Q "$CLM" --devices auto x "$T/doc"

expect_error "a repeated device" 2 "listed twice" "$CLM" --devices 0:0,0:0 x "$T/doc"
expect_error "an unknown device" 2 "unknown device '9:9'" "$CLM" --devices 0:0,9:9 x "$T/doc"
expect_error "not P:D" 2 "not PLATFORM:DEVICE" "$CLM" --devices 0-1 x "$T/doc"
expect_error "an empty item" 2 "not a list" "$CLM" --devices 0:0,,0:1 x "$T/doc"
expect_error "with -p" 2 "exclude each other" "$CLM" --devices all -p 0 x "$T/doc"
expect_error "--dna: a repeated device" 2 "listed twice" \
    "$CLM" --dna --devices 0:0,0:0 ACGT "$T/doc"
expect_error "a malformed pattern names the pattern" 2 "=pattern 1 is '[AC'" \
    "$CLM" --devices all '[AC' "$T/doc"
expect_error "early: a malformed pattern names the pattern" 2 "=pattern 1 is '[AC'" \
    "$CLM" --devices auto '[AC' "$T/doc"
expect_error "early: a repeated device" 2 "listed twice" "$CLM" --devices early:0:0,0:0 x "$T/doc"

cli_summary
