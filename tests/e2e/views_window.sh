#!/usr/bin/env bash
# --time-range applies the same window to every view: a window in the
# middle of a run of 8000 short calls gives the same calls in the report,
# --tree and --dump (the frames open at its start shown as already open),
# the same total time for tiny, and a summary of the window only; a window
# past the end says so on stderr (exit status 1) in every view.
. "$(dirname "$0")/lib.sh"
CHECK="python3 $CT_ROOT/tests/e2e/views_check.py"
build_traced "$T/block" "$PROGRAMS/views_block.c"
run_traced "$T/b.raw" "$T/block" || fail "views_block failed"
"$REPORT_SAN" --dump "$T/b.raw" > "$T/dump.all" || fail "--dump failed"
# from the 2000th call to the 6000th: the middle of the run, whatever
# the machine's speed
from=$(awk '$2 == "C" && ++n == 2000 { print $1; exit }' "$T/dump.all")
to=$(awk '$2 == "C" && ++n == 6000 { print $1; exit }' "$T/dump.all")
W="--time-range=${from}ms..${to}ms"
"$REPORT_SAN" "$W" --tree "$T/b.raw" > "$T/tree" || fail "--tree $W"
"$REPORT_SAN" "$W" --dump "$T/b.raw" > "$T/dump" || fail "--dump $W"
"$REPORT_SAN" "$W" -b -p "$T/b.raw" > "$T/report" || fail "report $W"

$CHECK tree-calls "$T/tree" main,batch,tiny > "$T/tree.calls"
$CHECK dump-calls "$T/dump" main,batch,tiny > "$T/dump.calls"
cmp -s "$T/tree.calls" "$T/dump.calls" ||
    fail "tree and dump differ: $(diff "$T/dump.calls" "$T/tree.calls" | head)"
calls_tree=$(grep -c ' call$' "$T/tree.calls")
calls_report=$(sed -n 's/^ Events: [0-9]* (\([0-9]*\) calls.*/\1/p' "$T/report")
calls_dump=$(grep -c '^[0-9.]* C ' "$T/dump")
[ "$calls_tree" -gt 1000 ] || fail "only $calls_tree calls in the window"
[ "$calls_tree" -lt 7000 ] || fail "$calls_tree calls: the window is not in the middle"
expect_eq "calls: report and tree" "$calls_report" "$calls_tree"
expect_eq "calls: dump and tree" "$calls_dump" "$calls_tree"
tiny_report=$(awk 'NF == 8 && $(NF-1) == "tiny" { print $4 }' "$T/report")
expect_eq "tiny's calls: report and tree" "$tiny_report" \
    "$(grep -c ' tiny call$' "$T/tree.calls")"
expect_eq "frames open at the window's start" "T1 0 main open" \
    "$(head -n 1 "$T/tree.calls")"
grep -q '} /\* main: window ends \*/' "$T/tree" || fail "main not cut at the window's end"
! grep -q 'never returned' "$T/tree" "$T/dump" || fail "a frame said never returned"

# tiny's time in the window: the tree's calls add up to the report's.
read -r unit total < <(awk '/^ time/ { u = $2 }
    NF == 8 && $(NF-1) == "tiny" { print u, $3 }' "$T/report")
$CHECK tree-durations "$T/tree" tiny | awk -v u="$unit" -v t="$total" '
    { sum += $1 }
    END { s = u == "ns" ? 1 : u == "us" ? 1e3 : u == "ms" ? 1e6 : 1e9
          d = sum - t * s; if (d < 0) d = -d
          if (d > s * 0.01 + NR * 0.5) { print sum " vs " t * s; exit 1 } }' ||
    fail "tiny's time: tree and report differ"

# The summary covers the window only: its wall span fits in it.
span_ok=$(awk -v a="$from" -v b="$to" '/^Wall span:/ {
    v = $3; u = v; sub(/[a-z]+$/, "", v); sub(/^[0-9.]+/, "", u)
    s = u == "ns" ? 1e-6 : u == "us" ? 1e-3 : u == "ms" ? 1 : 1e3
    print (v * s <= (b - a) * 1.001 + 0.00001) ? "yes" : v u }' "$T/report")
expect_eq "wall span inside the window" yes "$span_ok"

# A window past the end: one line on stderr and status 1 in every view.
for view in --tree --dump -p; do
    set +e
    "$REPORT_SAN" --time-range=1000s..1001s $view "$T/b.raw" > "$T/out" 2> "$T/err"
    rc=$?
    set -e
    expect_eq "$view past the end: status" 1 "$rc"
    expect_eq "$view past the end: one line on stderr" 1 "$(wc -l < "$T/err")"
    grep -q 'no event lies in --time-range 1000s..1001s' "$T/err" ||
        fail "$view past the end: $(cat "$T/err")"
done
echo "window ${from}..${to} ms: $calls_tree calls in report, tree and dump"
