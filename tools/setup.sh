#!/bin/sh
# Make sure this machine can build and run clmatch: OpenCL headers, the ICD loader, PoCL (an
# OpenCL platform on the CPU, so there is always a device) and clinfo. On Debian/Ubuntu it
# installs what is missing through apt-get when run as root; otherwise it prints the exact
# command and stops. Usage: tools/setup.sh [oclgrind|fuzz|rusticl]   (oclgrind: also the kernel
# checker; fuzz: also clang and its runtimes, libFuzzer and the sanitizers, for make fuzz;
# rusticl: also Mesa's OpenCL, whose llvmpipe device tests/run.sh --rusticl uses: its .icd
# files in /etc/OpenCL/vendors are not needed for that, and add platforms beside PoCL,
# Clover's with no device)
set -eu

need="ocl-icd-opencl-dev opencl-c-headers pocl-opencl-icd clinfo"
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
    if [ -e /usr/include/CL/cl.h ] && { [ -e /usr/lib/libOpenCL.so ] || ls /usr/lib*/libOpenCL.so* /usr/lib/*/libOpenCL.so* >/dev/null 2>&1; }; then
        exit 0
    fi
    echo "setup: this is not a Debian/Ubuntu system; install the OpenCL headers, an ICD loader" >&2
    echo "       (libOpenCL.so) and an OpenCL platform (e.g. PoCL), then run make again." >&2
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
echo "setup: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null || { echo "setup: apt-get update failed" >&2; exit 1; }
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null \
    || { echo "setup: apt-get install$missing failed" >&2; exit 1; }
echo "setup: done"
