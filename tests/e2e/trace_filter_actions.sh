#!/usr/bin/env bash
# uftrace's filters and triggers as calltrace's rules, each on the fixed
# tree of tests/programs/filter_actions.c, whose expected trees follow from
# the program:
#   main { outer { inner { leaf } leaf }  skip { inner { leaf } }
#          path { target { leaf } }  nopath { leaf }  stop { leaf }  after }
# and every call a rule leaves out counted in the report's summary.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "no $LIB: the tracer is not built"
CHECK="python3 $CT_ROOT/tests/e2e/views_check.py"
build_traced "$T/fa" "$PROGRAMS/filter_actions.c"
ALL="0 main call;1 outer call;2 inner call;3 leaf call;2 leaf call;"
ALL+="1 skip call;2 inner call;3 leaf call;1 path call;2 target call;"
ALL+="3 leaf call;1 nopath call;2 leaf call;1 stop call;2 leaf call;"
ALL+="1 after call;"
n=0

# check NAME EXPECTED-TREE EXPECTED-SUMMARY-TEXT VAR=VALUE...
check() {
    local name=$1 want=$2 left=$3; shift 3
    n=$((n + 1))
    env "$@" CALLTRACE_OUTPUT="$T/$n.raw" LD_PRELOAD="$LIB" "$T/fa" \
        2> "$T/$n.err" || fail "$name: the program failed"
    [ -s "$T/$n.err" ] && fail "$name: the tracer said: $(cat "$T/$n.err")"
    "$REPORT_SAN" --tree "$T/$n.raw" > "$T/$n.tree" || fail "$name: --tree"
    expect_eq "$name" "$want" "$($CHECK thread-trees "$T/$n.tree")"
    "$REPORT_SAN" "$T/$n.raw" > "$T/$n.sum" || fail "$name: the report"
    has -F "$left" "$T/$n.sum" ||
        fail "$name: no '$left' in: $(grep 'Left out' "$T/$n.sum")"
}

# uftrace -N skip: skip and everything it calls.
check notrace "${ALL/1 skip call;2 inner call;3 leaf call;/}" \
    "Left out by the filter: 3 calls (3 left out with their callers by skip:notrace)" \
    CALLTRACE_FILTER=skip:notrace
# uftrace -C target: the paths that lead to target, and target.
check caller "0 main call;1 path call;2 target call;" \
    "Left out by the filter: 13 calls (13 on no path to a :caller function)" \
    CALLTRACE_FILTER=target:caller
# uftrace -F outer -F inner -D 1: one level from each included function
# (inner inside outer counts again); with outer@1,inner@1 levels count
# from the outermost: the inner that outer calls is left out.
check depth-each "0 outer call;1 inner call;0 inner call;" \
    "(10 not below an included function; 1 deeper than outer:depth=1; 2 deeper than inner:depth=1)" \
    CALLTRACE_FILTER='outer,inner,outer:depth=1,inner:depth=1'
check depth-outermost "0 outer call;0 inner call;" "not below an included function" \
    CALLTRACE_FILTER='outer@1,inner@1'
# trace_on while recording is on changes nothing; trace_off stops it.
check trace-on-off "${ALL/1 stop call;2 leaf call;/}" \
    "Left out by the filter: 2 calls (2 while a trigger had recording off)" \
    CALLTRACE_TRIGGER=after:trace_on,stop:trace_off
# finish: stop and its callees are recorded, nothing after it returns.
check finish "${ALL/1 after call;/}" \
    "Left out by the filter: 1 call (1 after a :finish function returned)" \
    CALLTRACE_TRIGGER=stop:finish
# trace: path is kept though shorter than min=; its caller with it.
check trace "0 main call;1 path call;" "shorter than 10s" \
    CALLTRACE_MIN_DURATION=10s CALLTRACE_TRIGGER=path:trace
# time=0: outer's own least duration, for it and its callees.
check time "0 main call;1 outer call;2 inner call;3 leaf call;2 leaf call;" \
    "shorter than 10s" CALLTRACE_MIN_DURATION=10s CALLTRACE_TRIGGER=outer:time=0
# backtrace: target and its callees, with the callers that led there.
check backtrace "0 main call;1 path call;2 target call;3 leaf call;" \
    "Left out by the filter: 12 calls (12 not below an included function)" \
    CALLTRACE_FILTER=target,target:backtrace
check no-backtrace "0 target call;1 leaf call;" "not below an included" \
    CALLTRACE_FILTER=target
# The same at analysis time: calltrace-report --notrace (uftrace's -N in
# replay) on the whole trace gives the tree skip:notrace recorded.
env CALLTRACE_OUTPUT="$T/all.raw" LD_PRELOAD="$LIB" "$T/fa"
"$REPORT_SAN" --tree --notrace=skip "$T/all.raw" > "$T/all.tree" ||
    fail "--notrace failed"
expect_eq "report --notrace" "${ALL/1 skip call;2 inner call;3 leaf call;/}" \
    "$($CHECK thread-trees "$T/all.tree")"
echo "ok"
