#!/usr/bin/env bash
# The program sees its own dispositions of the signals the tracer holds
# (crash signals, SIGPROF, the toggle and snapshot signals) through every
# libc interface, exactly as without the tracer; its own SIGSEGV handler
# runs under the tracer (chained), and a fatal fault still closes the trace.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || fail "no $LIB"
DEC=$T/ct_decode
gcc -std=gnu11 -O1 -I"$CT_ROOT/include" -o "$DEC" "$PROGRAMS/ct_decode.c"
build_traced "$T/view" "$PROGRAMS/trace_sigview.c" -no-pie
nm "$T/view" > "$T/nm"
ulimit -c 0

"$T/view" view > "$T/plain.out"
has -q '^start 11: DFL' < "$T/plain.out" || fail "untraced run: $(head -n 3 "$T/plain.out")"
for mode in trace both; do
    CALLTRACE_MODE=$mode CALLTRACE_SIGNAL=USR2 CALLTRACE_FLIGHT_SIGNAL=USR1 \
        run_traced "$T/$mode.raw" "$T/view" view > "$T/$mode.out" 2> "$T/$mode.err"
    diff "$T/plain.out" "$T/$mode.out" > "$T/$mode.diff" ||
        fail "$mode: the program saw other dispositions: $(head -n 8 "$T/$mode.diff")"
    "$DEC" -n "$T/nm" "$T/$mode.raw" > "$T/$mode.txt" || fail "$mode: decode"
done
# The tracer still holds the crash signals after the program's changes.
expect_eq "work traced" 8 "$(awk '$3=="C" && $4=="work"' "$T/trace.txt" | wc -l)"

# Chaining: 5 faults repaired by the program's handler, the 6th fatal
# after its SA_RESETHAND handler ran once.
set +e
"$T/view" chain > "$T/chain.plain"; plain=$?
run_traced "$T/chain.raw" "$T/view" chain > "$T/chain.out" 2> "$T/chain.err"; traced=$?
set -e
expect_eq "chain: status" "$plain" "$traced"
expect_eq "chain: signal" SEGV "$(kill -l $traced)"
cmp -s "$T/chain.plain" "$T/chain.out" || fail "chain: output $(cat "$T/chain.out")"
expect_eq "chain: repaired" "repaired 5" "$(head -n 1 "$T/chain.out")"
"$DEC" -n "$T/nm" "$T/chain.raw" > "$T/chain.txt" || fail "chain: decode"
expect_eq "chain: work" 5 "$(awk '$3=="C" && $4=="work"' "$T/chain.txt" | wc -l)"
# The fatal fault closed the block, not a clean finish.
case $(head -n 1 "$T/chain.txt") in *" flags=4 threads=1 lost=0 "*) ;;
    *) fail "chain: header $(head -n 1 "$T/chain.txt")";; esac
# Ignored (with SA_SIGINFO in the flags), a sent SIGSEGV is ignored.
run_traced "$T/ign.raw" "$T/view" ignore > "$T/ign.out" 2> "$T/ign.err" ||
    fail "ignore: status $?"
expect_eq "ignore: output" ignored "$(cat "$T/ign.out")"

# The kernel's view (SigCgt) cannot hide the handlers the tracer needs
# (docs/reliability.md, "Seen, not fixed"): it differs by the five crash
# signals, and by the toggle signal when one is set, and by nothing else.
cat > "$T/cgt.c" <<'C'
#include <stdio.h>
#include <string.h>
__attribute__((noinline)) static int work(int n) { return n * 3; }
int main(void)
{
    char line[256];
    FILE *f = fopen("/proc/self/status", "r");
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "SigCgt:", 7) == 0)
            fputs(line + 7, stdout);
    return work(0);
}
C
build_traced "$T/cgt" "$T/cgt.c"
plain=$(printf '%d' "0x$(tr -d ' \t' < <("$T/cgt"))")
traced=$(run_traced "$T/cgt.raw" "$T/cgt" 2>/dev/null | tr -d ' \t')
toggled=$(CALLTRACE_SIGNAL=USR2 run_traced "$T/cgt2.raw" "$T/cgt" 2>/dev/null | tr -d ' \t')
crash=$(( (1 << 3) | (1 << 5) | (1 << 6) | (1 << 7) | (1 << 10) ))
expect_eq "SigCgt" "$(( plain | crash ))" "$(printf '%d' "0x$traced")"
expect_eq "SigCgt with a toggle" "$(( plain | crash | (1 << 11) ))" \
    "$(printf '%d' "0x$toggled")"
echo ok
