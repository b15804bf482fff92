#!/usr/bin/env bash
# Deep recursion (10000 levels): --tree prints every level, nested, with no
# line longer than a few hundred characters; --dump and the report count
# the same 10000 calls of deep.
. "$(dirname "$0")/lib.sh"
CHECK="python3 $CT_ROOT/tests/e2e/views_check.py"
build_traced "$T/deep" "$PROGRAMS/views_deep.c"
run_traced "$T/d.raw" "$T/deep" 10000 || fail "views_deep failed"
"$REPORT_SAN" --tree "$T/d.raw" > "$T/tree" || fail "--tree failed"
"$REPORT_SAN" --dump "$T/d.raw" > "$T/dump" || fail "--dump failed"
"$REPORT_SAN" -b -p "$T/d.raw" > "$T/report" || fail "report failed"

longest=$(awk '{ if (length($0) > m) m = length($0) } END { print m }' "$T/tree")
[ "$longest" -le 300 ] || fail "a tree line of $longest characters"
$CHECK tree-calls "$T/tree" main,deep > "$T/tree.calls"
$CHECK dump-calls "$T/dump" main,deep > "$T/dump.calls"
expect_eq "tree calls" 10001 "$(wc -l < "$T/tree.calls")"
# the true tree: main at depth 0, deep(n) at depth n.
awk 'BEGIN { print "T1 0 main call"; for (i = 1; i <= 10000; i++)
             print "T1 " i " deep call" }' > "$T/expected"
cmp -s "$T/expected" "$T/tree.calls" ||
    fail "tree nesting: $(diff "$T/expected" "$T/tree.calls" | head -n 5)"
cmp -s "$T/expected" "$T/dump.calls" ||
    fail "dump nesting: $(diff "$T/expected" "$T/dump.calls" | head -n 5)"
expect_eq "closing lines of deep" 9999 "$(grep -c '} /\* deep \*/$' "$T/tree")"
expect_eq "the innermost as a leaf" 1 "$(grep -c '(10000) deep();$' "$T/tree")"
expect_eq "report: calls of deep" 10000 \
    "$(awk 'NF == 8 && $(NF-1) == "deep" {print $4}' "$T/report")"
expect_eq "nothing never returned" 0 "$(grep -c 'never returned' "$T/tree" || true)"
echo "deep recursion: 10000 levels in every view, longest tree line $longest"
