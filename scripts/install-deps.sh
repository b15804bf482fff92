#!/bin/sh
# Installs the Debian packages calltrace needs to build and test, when they
# are missing.  As root it installs them; otherwise it names them and fails.
# Usage: scripts/install-deps.sh [--bench]   (--bench adds hyperfine, which
# bench/ times whole commands with, and lz4, which bench/pack_codecs.c
# weighs against zstd; uftrace, the peer, is a test dependency)
set -eu

# libgoogle-perftools-dev: the sampling tests check that gperftools'
# profiler, loaded first, keeps SIGPROF.
# valgrind (callgrind_annotate) and graphviz (dot) open the callgrind and
# dot exports in the tests, as their users will.  man-db, groff-base,
# pkgconf: the install test renders the man pages and reads calltrace.pc.
need="gcc g++ make binutils binutils-dev libunwind-dev libcmocka-dev clang \
libclang-rt-14-dev python3 libgoogle-perftools-dev valgrind graphviz man-db \
groff-base pkgconf"
# netcat-openbsd: the streaming tests capture a trace with `nc -l`.
need="$need netcat-openbsd"
# libdw-dev (elfutils): calltrace record --args FUNC@args reads the
# parameters' types from the program's DWARF.
need="$need libdw-dev"
# The viewers that make check opens the exports in (chrome, folded,
# flamegraph, perfetto); speedscope itself comes from npm into build/.
need="$need chromium nodejs protobuf-compiler librsvg2-bin libxml2-utils"
# Go's pprof, built by need_pprof (tests/e2e/lib.sh) from Debian's sources,
# reads the pprof export; zlib1g-dev writes its gzip stream.
need="$need golang-go golang-github-google-pprof-dev zlib1g-dev"
# libzstd-dev: calltrace pack writes, and every reader unpacks, zstd
# frames (docs/trace-format.md, "PACKED blocks").
need="$need libzstd-dev"
# e2fsprogs: trace_storage.sh fills a loop-mounted ext2 (no fallocate).
need="$need e2fsprogs"
# btrfs-progs: trace_storage.sh truncates a trace on a loop-mounted btrfs,
# whose mappings show another device in /proc/self/maps than stat does.
need="$need btrfs-progs"
# tmux drives calltrace top in a pseudo-terminal (tests/e2e/live_top.sh).
need="$need tmux"
# uftrace traces the same programs: views_uftrace.sh compares its trees
# with ours (it skipped wherever uftrace was missing, so in CI).
need="$need uftrace"
# strace: the sampling tests see the sampler's own descriptor table, its
# period changes and stack copies (sample_fds.sh, sample_copy.sh; they
# skipped those checks without it).
need="$need strace"
command -v npm >/dev/null 2>&1 || need="$need npm"   # nodesource's nodejs has it
[ "${1:-}" = "--bench" ] && need="$need hyperfine liblz4-dev"   # liblz4-dev: bench/pack_codecs.c

missing=""
for p in $need; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
        missing="$missing $p"
    fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
    echo "calltrace: missing Debian packages:$missing" >&2
    echo "calltrace: run 'sudo apt-get install$missing' (or this script as root)" >&2
    exit 1
fi
echo "calltrace: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
