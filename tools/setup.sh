#!/bin/sh
# Make sure this machine can build and run clmatch: OpenCL headers, the ICD loader, PoCL (an
# OpenCL platform on the CPU, so there is always a device), clinfo, and zlib's headers (the
# CLI reads gzip input; the library has no zlib). On Debian/Ubuntu it
# installs what is missing through apt-get when run as root; otherwise it prints the exact
# command and stops. Usage: tools/setup.sh [oclgrind|fuzz|rusticl|python [BUILD_DIR]]
# (oclgrind: also the kernel checker; fuzz: also clang and its runtimes, libFuzzer and the
# sanitizers, for make fuzz; rusticl: also Mesa's OpenCL, whose llvmpipe device tests/run.sh
# --rusticl uses: its .icd files in /etc/OpenCL/vendors are not needed for that, and add
# platforms beside PoCL, Clover's with no device; python: only a virtual environment
# BUILD_DIR/venv (default build/venv) with pyarrow and numpy from PyPI for tests/python.sh,
# python3's venv module installed first (python3-venv) when root on Debian/Ubuntu; make test
# runs it, and when it cannot be done it says why and succeeds: the suite is then skipped)
set -eu

# apt_install PACKAGES: install Debian packages (as root; the caller checked).
apt_install() {
    echo "setup: installing $*"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null || { echo "setup: apt-get update failed" >&2; return 1; }
    apt-get install -y -qq --no-install-recommends "$@" >/dev/null \
        || { echo "setup: apt-get install $* failed" >&2; return 1; }
    echo "setup: done"
}

# setup_python BUILD_DIR: BUILD_DIR/venv with pyarrow and numpy (kept when it has them).
setup_python() {
    venv=$1/venv
    if "$venv/bin/python" -c 'import pyarrow, numpy' 2>/dev/null; then
        return 0
    fi
    skipped="tests/python.sh will be skipped"
    if ! command -v python3 >/dev/null 2>&1; then
        echo "setup: no python3: $skipped" >&2
        return 0
    fi
    # Debian's python3 lacks ensurepip (so venv fails) without python3-venv
    if ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
        if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
            apt_install python3-venv || { echo "setup: $skipped" >&2; return 0; }
        else
            echo "setup: python3 has no venv module (Debian/Ubuntu: sudo apt-get install" \
                "python3-venv): $skipped" >&2
            return 0
        fi
    fi
    echo "setup: creating $venv with pyarrow and numpy (PyPI)"
    rm -rf "$venv"
    if ! { python3 -m venv "$venv" &&
        "$venv/bin/python" -m pip install -q --disable-pip-version-check pyarrow numpy; }; then
        echo "setup: could not make $venv (is PyPI reachable?): $skipped" >&2
        rm -rf "$venv"
    fi
    return 0
}

if [ "${1:-}" = python ]; then
    setup_python "${2:-build}"
    exit 0
fi

need="ocl-icd-opencl-dev opencl-c-headers pocl-opencl-icd clinfo zlib1g-dev"
# Open MPI for clmatch-mpi and tests/cli_mpi.sh: installed with the rest when root; without it
# the build leaves clmatch-mpi out and the tests skip it, so it is never required.
optional="libopenmpi-dev openmpi-bin"
case "${1:-}" in
oclgrind) need="$need oclgrind" ;;
# libclang-rt-dev: the runtimes of the distribution's default clang (Debian 12: 14)
fuzz) need="$need clang libclang-rt-dev" ;;
rusticl) need="$need mesa-opencl-icd" ;;
esac

if ! command -v dpkg-query >/dev/null 2>&1; then
    # Not Debian-like: check the files the build needs and say what to get.
    if [ -e /usr/include/CL/cl.h ] && [ -e /usr/include/zlib.h ] && { [ -e /usr/lib/libOpenCL.so ] || ls /usr/lib*/libOpenCL.so* /usr/lib/*/libOpenCL.so* >/dev/null 2>&1; }; then
        exit 0
    fi
    echo "setup: this is not a Debian/Ubuntu system; install the OpenCL headers, an ICD loader" >&2
    echo "       (libOpenCL.so), an OpenCL platform (e.g. PoCL) and zlib's headers, then run" >&2
    echo "       make again." >&2
    exit 1
fi

# the packages of the list $1 that are not installed
not_installed() {
    for p in $1; do
        if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
            printf ' %s' "$p"
        fi
    done
}
missing=$(not_installed "$need")
if [ "$(id -u)" = 0 ]; then
    missing="$missing$(not_installed "$optional")"
elif [ -z "$missing" ] && [ -n "$(not_installed "$optional")" ]; then
    echo "setup: note: no Open MPI, so no clmatch-mpi (sudo apt-get install -y$(not_installed "$optional"))" >&2
fi
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
    echo "setup: missing packages:$missing" >&2
    echo "setup: install them with:" >&2
    echo "    sudo apt-get update && sudo apt-get install -y$missing" >&2
    exit 1
fi
# shellcheck disable=SC2086
apt_install $missing || exit 1
