#!/usr/bin/env bash
# The tracer's address space per thread (VmSize, what `ulimit -v` counts):
# at most 64 KiB besides the thread's block, library calls recorded
# (docs/reliability.md, "Address-space limit").  bench/memory_prog.c
# makes 16 threads that each make a call and reports VmSize before and
# with them; traced minus untraced, per thread, less the thread's first
# block (4 KiB here, CALLTRACE_BUFSIZE=4K), must be at most 64 KiB.  The
# sizes are those of mappings, the same on every run: no timing in it.
source "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "no $LIB"
N=16
gcc -std=gnu11 -O1 -finstrument-functions -pthread -o "$T/prog" \
    "$CT_ROOT/bench/memory_prog.c"
growth() {  # env settings...: VmSize growth (KiB) from start to N threads
    env "$@" "$T/prog" "$N" | awk '$1 == "start" { s = $2 } $1 == "threads" { t = $2 }
        END { print t - s }'
}
plain=$(growth)
for libcalls in none plt; do
    traced=$(growth CALLTRACE_LIBCALLS=$libcalls CALLTRACE_BUFSIZE=4K \
             CALLTRACE_OUTPUT="$T/t.raw" LD_PRELOAD="$LIB")
    rm -f "$T"/t.raw*
    per=$(( (traced - plain) / N - 4 ))
    echo "library calls $libcalls: $per KiB per thread besides its block"
    [ "$per" -gt 0 ] && [ "$per" -le 64 ] ||
        fail "library calls $libcalls: $per KiB of address space per thread besides its block, goal 64"
done
