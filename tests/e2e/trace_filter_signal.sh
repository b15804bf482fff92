#!/usr/bin/env bash
# A trigger on a signal, as uftrace's --signal=SIGUSR1@finish:
# CALLTRACE_SIGNAL=USR1@finish stops recording at the first signal for
# good, where plain USR1 (toggle) turns it on again at the second; @on and
# @off set it.  tests/programs/filter_signal.c raises SIGUSR1 after
# before() and after middle().
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "no $LIB: the tracer is not built"
CHECK="python3 $CT_ROOT/tests/e2e/views_check.py"
build_traced "$T/sig" "$PROGRAMS/filter_signal.c"
KEEP=main,before,middle,after
for c in "USR1@finish:0 main call;1 before call;" \
         "USR1:0 main call;1 before call;1 after call;" \
         "SIGUSR1@toggle:0 main call;1 before call;1 after call;" \
         "USR1@off:0 main call;1 before call;" \
         "USR1@on:0 main call;1 before call;1 middle call;1 after call;"; do
    sig=${c%%:*} want=${c#*:}
    CALLTRACE_SIGNAL=$sig run_traced "$T/t.raw" "$T/sig" 2> "$T/err" ||
        fail "$sig: the program failed: $(cat "$T/err")"
    [ -s "$T/err" ] && fail "$sig: the tracer said: $(cat "$T/err")"
    "$REPORT_SAN" --tree "$T/t.raw" > "$T/t.tree" || fail "$sig: --tree"
    expect_eq "$sig" "$want" "$($CHECK thread-trees "$T/t.tree" $KEEP)"
    rm -f "$T/t.raw"*
done
# (with no handler of the tracer's, the signal ends the program)
CALLTRACE_SIGNAL=USR1@later run_traced "$T/t.raw" "$T/sig" 2> "$T/err" || true
has -F "CALLTRACE_SIGNAL='USR1@later': expected SIGNAL[@ACTION]" "$T/err" ||
    fail "no warning for a bad action: $(cat "$T/err")"
echo "ok"
