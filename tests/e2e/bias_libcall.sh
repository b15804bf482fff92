#!/usr/bin/env bash
# A library call's cost through the tracer's stub (docs/analysis.md, "The
# tracer's bias"): the tracer measures it at start beside a hooked call's,
# into the trace's header, and lists the functions it records library
# calls as in the MAPS blocks; `calltrace info` shows the figure, and
# --subtract-bias takes the stub's excess over a hooked call off each
# library call (inside the call) and off its caller, in every view.
# tests/programs/bias_libcall.c calls cheap(), which costs about a ns,
# 20 000 times through the PLT: with the bias off, more comes off
# cheap@plt than a hooked call's figure could take (the test fails on a
# reader that takes only that), the report, the folded export and the
# tree agree, and its row stays marked `~`; raw it is not.  With library
# calls not recorded there is no such figure; the profile mode measures
# its own, under the profile's path, and takes it off the same way.
. "$(dirname "$0")/lib.sh"
unset CALLTRACE_LIBCALLS   # the default: recorded
gcc -std=gnu11 -O2 -shared -fPIC -o "$T/libcheap.so" "$PROGRAMS/bias_libcall_lib.c"
build_traced "$T/bl" "$PROGRAMS/bias_libcall.c" -L"$T" -lcheap -Wl,-rpath,"$T"

# record_costs MODE RAW: the program run in CALLTRACE_MODE=MODE into
# RAW, and the costs `calltrace info` prints for it, a hooked call's and
# a library call's, into $hooked and $lib.  The stub saves the argument
# registers, keeps a frame and returns through a trampoline around the
# same hooks: more than a hooked call, by design.  Both are measured at
# start, in a few microseconds each, which a loaded machine may blur as
# much as the difference: a run whose figures come out the other way is
# made again (three_tries), a tracer that measures them wrongly fails
# all three.
record_costs() {
    rm -f "$2"*
    CALLTRACE_MODE=$1 run_traced "$2" "$T/bl" > "$T/out" || fail "$1 run failed"
    expect_eq "$1 run: program output" 20000 "$(cat "$T/out")"
    "$FRONT" info "$2" > "$T/info" || fail "calltrace info $2"
    hooked=$(sed -nE 's/^tracer cost: +([0-9.]+) ns per call.*/\1/p' "$T/info")
    lib=$(sed -nE 's/^ +([0-9.]+) ns per library call \(measured at start\)$/\1/p' "$T/info")
    [ -n "$hooked" ] && [ -n "$lib" ] ||
        fail "no tracer costs in $2: $(grep -A1 'tracer cost' "$T/info")"
    why="$2: a library call ($lib ns) costs no more than a hooked one ($hooked ns)"
    awk -v l="$lib" -v h="$hooked" 'BEGIN { exit !(l > h) }'
}
trace_costs() { record_costs trace "$T/b.raw"; }
three_tries trace_costs

"$REPORT_SAN" -p -b --subtract-bias=start "$T/b.raw" > "$T/sub" || fail "report --subtract-bias"
re='^ +library calls: ([0-9.]+) ns each through the tracer.s stub at start, ([0-9.]+) more than a hooked call.s \(([0-9.]+) inside the call, ([0-9.]+) in its caller\), taken off them too$'
line=$(grep 'library calls:' "$T/sub")
[[ $line =~ $re ]] || fail "library calls line: $line"
expect_eq "library call figure" "$lib" "${BASH_REMATCH[1]}"
row() { awk '$4 ~ /^[0-9]+$/ && $7 == "cheap@plt"' "$1"; }
expect_eq "cheap@plt calls" 20000 "$(row "$T/sub" | awk '{print $4}')"
row "$T/sub" | has ' ~$' || fail "cheap@plt not marked with the bias off: $(row "$T/sub")"
has -E '^~ [0-9]+ functions?: less self time left than the bias taken off, so uncertain' "$T/sub" ||
    fail "no count of the marked rows"

# What comes off cheap@plt: at most a hooked call's self part per call
# without the stub's excess; with it, more: half the excess, or half of
# what the hooked part leaves when that is less (a call shorter than the
# bias keeps 0; on a loaded machine the figures measured at start may
# come near or above what the calls took).  TRACE's folded exports, raw
# and with the bias off, into $T/TRACE.folded{,_raw}; the figures of its
# report's summary (SUB).
stub_excess_taken() {  # TRACE SUB
    local tr=$1 sub=$2 b=$T/$(basename "$1")
    "$REPORT_SAN" --subtract-bias=start --export=folded "$tr" > "$b.folded" || fail "folded of $tr"
    "$REPORT_SAN" --export=folded "$tr" > "$b.folded_raw" || fail "raw folded of $tr"
    local line hooked_self lib_self
    line=$(grep 'library calls:' "$sub")
    [[ $line =~ $re ]] || fail "library calls line of $tr: $line"
    lib_self=${BASH_REMATCH[3]}
    hooked_self=$(sed -nE 's/^ Bias: subtracted, [0-9.]+ ns per call \(([0-9.]+) inside the call.*/\1/p' "$sub")
    [ -n "$hooked_self" ] || fail "no split bias in: $(grep 'Bias:' "$sub")"
    sub_ns=$(awk '$1 == "main;caller;cheap@plt" {print $2}' "$b.folded")
    raw_ns=$(awk '$1 == "main;caller;cheap@plt" {print $2}' "$b.folded_raw")
    # (the export leaves out a path of 0 ns: all of it taken off)
    [ -n "$raw_ns" ] || fail "no cheap@plt path in the raw folded export of $tr"
    sub_ns=${sub_ns:-0}
    awk -v r="$raw_ns" -v s="$sub_ns" -v h="$hooked_self" -v l="$lib_self" \
        'BEGIN { hooked = 20000 * h; left = r - hooked
                 more = 20000 * l / 2; if (left / 2 < more) more = left / 2
                 # (figures above what every call took: all of it comes off)
                 exit !(left > 0 ? r - s > hooked + more : s < r / 10) }' ||
        fail "cheap@plt of $tr lost $raw_ns - $sub_ns ns over 20000 calls: not the stub's excess (${hooked_self} + ${lib_self} ns a call)"
}
stub_excess_taken "$T/b.raw" "$T/sub"
said="cheap@plt: raw $raw_ns ns, with the bias off $sub_ns"
# the same figure in the flat profile (its unit from its header) and the tree
unit=$(sed -nE 's/^Every call timed; times are in (ns|us|ms|s),.*/\1/p' "$T/sub")
flat=$(row "$T/sub" | awk '{print $3}')
awk -v f="$flat" -v u="$unit" -v s="$sub_ns" 'BEGIN {
    m = u == "s" ? 1e9 : u == "ms" ? 1e6 : u == "us" ? 1e3 : 1
    d = f * m - s; if (d < 0) d = -d; exit !(u != "" && d <= 0.0051 * m) }' ||
    fail "cheap@plt: flat profile $flat $unit, folded export $sub_ns ns"
"$REPORT_SAN" --subtract-bias=start --tree "$T/b.raw" > "$T/tree" || fail "tree"
tree_ns=$(awk '/\| +cheap@plt\(\);( \[tracer .*\])?$/ { v = $1; u = $2
    s += v * (u == "us" ? 1e3 : u == "ms" ? 1e6 : u == "s" ? 1e9 : 1) } END { printf "%.0f", s }' "$T/tree")
awk -v a="$tree_ns" -v b="$sub_ns" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 20000 * 0.0005 + 1) }' ||
    fail "the tree's calls of cheap@plt add up to $tree_ns ns, the folded export's $sub_ns"
"$REPORT_SAN" -p -b "$T/b.raw" > "$T/raw" || fail "report"
row "$T/raw" | has ' ~$' && fail "cheap@plt marked in the raw report: $(row "$T/raw")"
has 'library calls:' "$T/raw" && fail "a library calls line in the raw report"

# no library call recorded: no figure
rm -f "$T"/n.raw*
CALLTRACE_LIBCALLS=none run_traced "$T/n.raw" "$T/bl" > /dev/null || fail "run without library calls"
"$FRONT" info "$T/n.raw" | has 'per library call' && fail "a library call figure without library calls"
"$REPORT_SAN" -p -b --subtract-bias "$T/n.raw" | has 'library calls:' &&
    fail "a library calls line without library calls"
# The profile mode measures its library calls' cost under its own path
# (the calls in the run take it), and its views take the stub's excess
# off as the trace's do.
said="library call $lib ns, hooked call $hooked ns; $said"
profile_costs() { record_costs profile "$T/p.raw"; }
three_tries profile_costs
"$REPORT_SAN" -p -b --subtract-bias=start "$T/p.raw" > "$T/psub" || fail "report of the profile"
expect_eq "the profile's cheap@plt calls" 20000 "$(row "$T/psub" | awk '{print $4}')"
stub_excess_taken "$T/p.raw" "$T/psub"
echo "$said; $(row "$T/sub")"
echo "profile: library call $lib ns, hooked call $hooked ns; cheap@plt: raw $raw_ns ns, with the bias off $sub_ns"
