#!/usr/bin/env bash
# Library calls while tracing is off skip the recording altogether (the
# stub jumps straight to the target); calls while it is on are recorded
# exactly, whether their slot was first bound (lazily) while off or on,
# with and without frames open around the switch.  Counts by construction
# (tests/programs/libcalls_paused.c).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/libcalls-lib.bash"
[ -f "$LIB" ] || skip "no $LIB"
unset CALLTRACE_LIBCALLS   # the default
build_traced "$T/lazy" "$PROGRAMS/libcalls_paused.c"
build_traced "$T/now" "$PROGRAMS/libcalls_paused.c" -Wl,-z,now,-z,relro
for bin in lazy now; do
    for paused in 1 0; do
        raw=$T/$bin-$paused.raw
        out=$(CALLTRACE_START_PAUSED=$paused run_traced "$raw" "$T/$bin") ||
            fail "$bin: status"
        expect_eq "$bin: output" done "$out"
        # Started on, the first phase is recorded too.
        extra() { [ "$paused" = 1 ] && echo 0 || echo "$1"; }
        for want in "getpid@plt $((18 + $(extra 5)))" \
                    "getppid@plt $((6 + $(extra 4)))" \
                    "getuid@plt $((12 + $(extra 3)))" \
                    "getgid@plt 1" "work $((1 + $(extra 1)))"; do
            set -- $want
            expect_eq "$bin, paused=$paused: $1" "$2" "$(report_calls "$raw" "$1")"
        done
        "$REPORT_SAN" --tree "$raw" > "$raw.tree" || fail "$bin: --tree"
        has 'work() {' "$raw.tree" || fail "$bin: no work in --tree"
    done
done
echo ok
