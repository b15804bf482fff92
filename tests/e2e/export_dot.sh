#!/usr/bin/env bash
# --export=dot, proven by Graphviz: `dot -Tsvg` renders it with exit 0 and
# no warning, the nodes carry the report's call counts, and the thresholds
# leave out what they should.
source "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "tracer library not built ($LIB)"
command -v dot >/dev/null || skip "Graphviz (dot) not installed"

build_traced "$T/rc" "$PROGRAMS/report_calls.c"
run_traced "$T/t.raw" "$T/rc" >/dev/null
"$REPORT_SAN" --export=dot -o "$T/all.dot" --node-threshold=0 --edge-threshold=0 \
    "$T/t.raw" || fail "export failed"
dot -Tsvg -o "$T/all.svg" "$T/all.dot" 2> "$T/err" || fail "dot failed: $(cat "$T/err")"
[ ! -s "$T/err" ] || fail "dot warned: $(cat "$T/err")"
mkdir -p "$CT_BUILD/e2e-artifacts"
dot -Tpng -o "$CT_BUILD/e2e-artifacts/export_dot.png" "$T/all.dot" 2>/dev/null || true

# Every function, with the call counts known by construction
# (tests/programs/report_calls.c): work 200, scale 450, fact 200+423.
for f in main work scale fact is_even is_odd; do
    grep -q "label=\"$f\\\\n" "$T/all.dot" || fail "no node for $f"
    grep -q "<text[^>]*>$f</text>" "$T/all.svg" || fail "$f not drawn"
done
grep -q 'label="work\\n[^"]*\\n200×"' "$T/all.dot" || fail "work's calls"
grep -q 'label="scale\\n[^"]*\\n450×"' "$T/all.dot" || fail "scale's calls"
grep -q 'label="fact\\n[^"]*\\n200+423×"' "$T/all.dot" || fail "fact's calls (200 + 423 recursive)"
# Arcs: main -> scale 50 times, and fact's recursion as a loop with its count.
main=$(sed -n 's/^  \(f[0-9]*\) \[label="main\\n.*/\1/p' "$T/all.dot")
scale=$(sed -n 's/^  \(f[0-9]*\) \[label="scale\\n.*/\1/p' "$T/all.dot")
fact=$(sed -n 's/^  \(f[0-9]*\) \[label="fact\\n.*/\1/p' "$T/all.dot")
grep -q "^  $main -> $scale \[label=\"[^\"]*50×\"" "$T/all.dot" || fail "main -> scale 50"
grep -q "^  $fact -> $fact \[label=\"423×\"" "$T/all.dot" || fail "fact -> fact 423"

# main holds nearly all the time: at 50 % only main is left, and no edge.
# The times are wall-clock: on a loaded machine a preemption inside one
# call can give another function half the run (a CI run saw 2 nodes), so
# a run that shows it is traced again, three times at most.
hot_graph() {
    run_traced "$T/h.raw" "$T/rc" >/dev/null
    "$REPORT_SAN" --export=dot -o "$T/hot.dot" --node-threshold=50 "$T/h.raw"
    rm -f "$T"/h.raw*
    dot -Tsvg -o /dev/null "$T/hot.dot" || fail "dot failed on the thresholded graph"
    local nodes edges
    nodes=$(grep -c '^  f[0-9]* \[label=' "$T/hot.dot")
    edges=$(grep -c -- ' -> ' "$T/hot.dot" || true)
    why="at 50%: $nodes nodes and $edges edges, 1 and 0 expected"
    [ "$nodes" = 1 ] && [ "$edges" = 0 ]
}
three_tries hot_graph
# the thresholds belong to dot only
if "$REPORT_SAN" --node-threshold=5 "$T/t.raw" >/dev/null 2>"$T/err"; then
    fail "--node-threshold without --export=dot was accepted"
fi
grep -q "go with --export=dot" "$T/err" || fail "no clear error: $(cat "$T/err")"
echo "dot renders $(grep -c '^  f[0-9]* \[label=' "$T/all.dot") nodes"
