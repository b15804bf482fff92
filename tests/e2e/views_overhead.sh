#!/usr/bin/env bash
# The tracer's pauses (S..E, here block switches forced by 4 KiB blocks)
# land inside short calls of tiny(); every view takes them out the same
# way: each call's --tree duration is its return minus its call minus the
# S..E inside, as the dump's timestamps give it, and the calls' sum is the
# report's figure for tiny.
. "$(dirname "$0")/lib.sh"
CHECK="python3 $CT_ROOT/tests/e2e/views_check.py"
build_traced "$T/block" "$PROGRAMS/views_block.c"
CALLTRACE_BUFSIZE=4K run_traced "$T/b.raw" "$T/block" || fail "views_block failed"
"$REPORT_SAN" --tree "$T/b.raw" > "$T/tree" || fail "--tree failed"
"$REPORT_SAN" --dump "$T/b.raw" > "$T/dump" || fail "--dump failed"
"$REPORT_SAN" -b -p "$T/b.raw" > "$T/report" || fail "report failed"

inside=$(grep -c 'tiny(); \[tracer' "$T/tree" || true)
[ "$inside" -ge 3 ] || fail "only $inside block switches inside tiny(): the test needs some"
$CHECK tree-durations "$T/tree" tiny > "$T/tree.dur"
$CHECK dump-durations "$T/dump" tiny > "$T/dump.dur"
expect_eq "calls of tiny" 8000 "$(wc -l < "$T/tree.dur")"
expect_eq "calls of tiny in the dump" 8000 "$(wc -l < "$T/dump.dur")"
# The tree prints 4 significant digits or so, the dump whole ns.
paste "$T/tree.dur" "$T/dump.dur" | awk '
    { d = $1 - $2; if (d < 0) d = -d; tol = 1.5 + $2 * 0.001
      if (d > tol) { print "call " NR ": tree " $1 " ns, dump " $2 " ns"; bad++ }
      sum += $1 }
    END { printf "%.0f\n", sum; exit bad > 0 }' > "$T/sum" ||
    fail "tree durations are not the dump's: $(head -n 3 "$T/sum")"
# The report's total for tiny (self + children, in its unit).
read -r unit total < <(awk '
    /^ time/ { u = $2 }
    NF == 8 && $(NF-1) == "tiny" { print u, $3 }' "$T/report")
report_ns=$(awk -v u="$unit" -v t="$total" 'BEGIN {
    s = u == "ns" ? 1 : u == "us" ? 1e3 : u == "ms" ? 1e6 : 1e9; printf "%.0f", t * s }')
tree_ns=$(cat "$T/sum")
awk -v a="$tree_ns" -v b="$report_ns" -v u="$unit" 'BEGIN {
    s = u == "ns" ? 1 : u == "us" ? 1e3 : u == "ms" ? 1e6 : 1e9
    d = a - b; if (d < 0) d = -d; exit !(d <= s * 0.01 + 8000 * 0.5) }' ||
    fail "tree's tiny total $tree_ns ns, report's $report_ns ns"
echo "S..E inside $inside calls of tiny: tree = dump = report ($tree_ns ns)"
