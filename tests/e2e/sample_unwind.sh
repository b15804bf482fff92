#!/usr/bin/env bash
# The kernel sampler's fast stack walk (preload/sampling/sample_cfi.c)
# gives what libunwind's walk gives, sample for sample: under
# CALLTRACE_SAMPLE_UNWIND=check every sample the fast walk takes is walked
# by libunwind too, and the trace says how many differ.  Programs: frames
# with and without frame pointers (gcc -O0, -O2, -O2 -fno-omit-frame-pointer,
# clang -O2), a shared library loaded and unloaded by dlopen in 16 threads,
# samples at switches off the CPU (inside system calls, the vDSO), samples
# inside recorded library calls (the return trampoline; with libunwind
# walking every sample too, at 100 us), and perl and gzip
# as Debian ships them.  The fast walk must also take nearly every sample
# of plain compiled code, or it saves nothing.
source "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "no $LIB"

# check NAME MIN_SHARE CMD...: the check's line from the trace; no
# difference, and at least MIN_SHARE % of the walks taken by the fast walk
# (STATUS: the program's own exit status, 0 unless said)
check() {
    local name=$1 min=$2 rc=0; shift 2
    CALLTRACE_SAMPLE_UNWIND=check CALLTRACE_MODE=${MODE:-sample} \
        CALLTRACE_SAMPLE_CLOCK=${CLOCK:-cpu} CALLTRACE_SAMPLE_INTERVAL=${INTERVAL:-1ms} \
        run_traced "$T/$name.raw" "$@" >"$T/$name.out" 2>"$T/$name.err" || rc=$?
    expect_eq "$name: exit status ($(tail -3 "$T/$name.err"))" "${STATUS:-0}" "$rc"
    local line
    line=$("$REPORT" --dump "$T/$name.raw" | grep -o 'unwind check: .*') ||
        fail "$name: no unwind check in the trace"
    # "unwind check: W walks, B both ways, D differ"
    read -r walks both differ < <(sed 's/[^0-9 ]//g' <<<"$line" | awk '{ print $1, $2, $3 }')
    expect_eq "$name: walks that differ ($line)" 0 "$differ"
    [ "$walks" -ge 10 ] || fail "$name: only $walks walks: $line"
    [ $((both * 100)) -ge $((walks * min)) ] ||
        fail "$name: the fast walk took $both of $walks walks, under $min %"
    echo "ok: $name: $line"
}

for opt in "-O0" "-O2" "-O2 -fno-omit-frame-pointer"; do
    tag=$(tr -dc 'a-zO0-9' <<<"$opt")
    # shellcheck disable=SC2086
    gcc -std=gnu11 $opt -g -o "$T/s7030$tag" "$PROGRAMS/sample_7030.c" -ldl
    check "gcc$tag" 95 "$T/s7030$tag" 10
done
if command -v clang >/dev/null; then
    clang -std=gnu11 -O2 -g -o "$T/s7030clang" "$PROGRAMS/sample_7030.c" -ldl
    check clang 95 "$T/s7030clang" 100
fi

gcc -std=gnu11 -O1 -g -o "$T/stress" "$PROGRAMS/sample_stress.c" -lpthread -ldl
gcc -std=gnu11 -O1 -g -shared -fPIC -o "$T/libsample.so" "$PROGRAMS/sample_lib.c"
STATUS=3 check dlopen 80 "$T/stress" "$T/libsample.so" 200

gcc -std=gnu11 -O1 -g -o "$T/wall" "$PROGRAMS/sample_wall.c"
CLOCK=wall check wall 80 "$T/wall"

build_traced "$T/busy" "$PROGRAMS/libcalls_busy.c"
# Library calls recorded (lib.sh turns them off for the other tests), and
# every 100 us, so that many samples fall inside memset: libunwind, which
# writes the real return address into the stack it walks there, once
# walked the sample in place in the ring and died of SIGBUS.
(
    unset CALLTRACE_LIBCALLS   # the default: recorded
    MODE=both INTERVAL=100us check trampoline 80 "$T/busy"
    CALLTRACE_SAMPLE_UNWIND=libunwind CALLTRACE_MODE=both CALLTRACE_SAMPLE_INTERVAL=100us \
        run_traced "$T/lu.raw" "$T/busy" > "$T/lu.out" 2>&1 ||
        fail "trampoline, libunwind alone: status $?: $(tail -2 "$T/lu.out")"
    "$REPORT" "$T/lu.raw" | has 'ct_plt_return\|plt_entry' &&
        fail "trampoline, libunwind alone: a stack stops in the tracer"
    "$REPORT" "$T/trampoline.raw" | has ' fill ' ||
        fail "trampoline: no sample in fill, the caller of the recorded memset"
    true
) || exit 1

check perl 80 perl -e 'my %h; for my $i (1..300000) { $h{$i} = sprintf("%x", $i) x 3 }
    my $s = 0; $s += length($_) for values %h; print "$s\n"'
head -c 3000000 /dev/zero | tr '\0' 'x' | sed 's/x\{97\}/&\n/g' >"$T/text"
seq 1 200000 >>"$T/text"
check gzip 95 gzip -9 -c "$T/text"
