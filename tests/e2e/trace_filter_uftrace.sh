#!/usr/bin/env bash
# uftrace's t039_filter_trigger: an include filter (outer) with an :on
# trigger (start) that fires inside it.  `uftrace record --disable -F outer
# -T start@trace_on` records start { leaf }; CALLTRACE_FILTER=outer
# CALLTRACE_TRIGGER=start:on must record the same tree (it recorded
# nothing: outer, entered while the trigger had recording off, did not
# open its levels).  Without uftrace, the tree is checked as uftrace
# printed it with v0.13.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "no $LIB: the tracer is not built"
CHECK="python3 $CT_ROOT/tests/e2e/views_check.py"
KEEP=main,outer,inner,start,leaf
build_traced "$T/trig" "$PROGRAMS/filter_trigger.c"
CALLTRACE_FILTER=outer CALLTRACE_TRIGGER=start:on run_traced "$T/t.raw" "$T/trig" ||
    fail "the program failed"
"$REPORT_SAN" --tree "$T/t.raw" > "$T/ct.tree" || fail "--tree failed"
$CHECK thread-trees "$T/ct.tree" $KEEP > "$T/ct.trees"
if command -v uftrace > /dev/null; then
    gcc -std=gnu11 -O1 -g -pg -o "$T/trig.pg" "$PROGRAMS/filter_trigger.c"
    if (cd "$T" && uftrace record --disable -F outer -T start@trace_on \
            -d "$T/u.data" "$T/trig.pg" > /dev/null 2>&1); then
        uftrace replay -d "$T/u.data" > "$T/u.tree" 2> /dev/null ||
            fail "uftrace replay"
        $CHECK thread-trees "$T/u.tree" $KEEP > "$T/u.trees"
        cmp -s "$T/ct.trees" "$T/u.trees" ||
            fail "trees differ: $(diff "$T/u.trees" "$T/ct.trees" | head)"
    fi
fi
expect_eq "tree" "0 start call;1 leaf call;" "$(cat "$T/ct.trees")"
echo "ok"
