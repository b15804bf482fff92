#!/usr/bin/env bash
# CALLTRACE_MODE=both: a stack sample taken inside a recorded library call
# (memset, tests/programs/libcalls_busy.c) walks on past the return
# trampoline to the instrumented caller: fill and main are in the sampled
# stacks, and no stack stops at the tracer's own code (plt_entry, the
# function the trampoline's address falls in).  Sample counts vary from
# run to run; only their presence is checked.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "no $LIB"
unset CALLTRACE_LIBCALLS   # the default

build_traced "$T/busy" "$PROGRAMS/libcalls_busy.c"
expect_eq "output" "39" "$(CALLTRACE_MODE=both CALLTRACE_SAMPLE_INTERVAL=1ms \
    run_traced "$T/b.raw" "$T/busy")"
"$REPORT_SAN" -b "$T/b.raw" > "$T/rep"
sed -n '/^Sampled flat profile/,/^$/p;/^Sampled flat profile/,/Call graph/p' "$T/rep" > "$T/sampled"
samples=$(awk '/stack samples, one every/ { print $1; exit }' "$T/sampled")
[ "${samples:-0}" -gt 0 ] || skip "no samples taken here"
total_of() { awk -v f="$1" '$NF ~ /^\[/ && $(NF-1) == f { print $(NF-2) }' "$T/sampled"; }
[ "$(total_of fill)" -gt 0 ] 2>/dev/null || fail "no sample reaches fill: $(cat "$T/sampled")"
[ "$(total_of main)" -ge "$(total_of fill)" ] || fail "fill's samples do not reach main"
grep -q 'plt_entry\|ct_plt_return' "$T/sampled" && fail "a sampled stack stops in the tracer: $(cat "$T/sampled")"
echo "ok: $samples samples, $(total_of fill) in fill"
