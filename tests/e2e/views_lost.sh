#!/usr/bin/env bash
# One trace with events lost (CALLTRACE_LIMIT), frames that never returned
# and a user event: the report, --dump, --tree and the exports (folded,
# callgrind, chrome, dot) count the same calls, and the folded and
# callgrind exports the same times.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || fail "no $LIB"
build_traced "$T/lost" "$PROGRAMS/views_lost.c"
CALLTRACE_BUFSIZE=4K CALLTRACE_LIMIT=16K run_traced "$T/out.raw" "$T/lost" > "$T/stdout"
expect_eq stdout done "$(cat "$T/stdout")"
R=$REPORT_SAN
"$R" -b -p "$T/out.raw" > "$T/report" || fail "report: status $?"
lost=$(sed -n 's/^ Lost events: \([0-9]*\).*/\1/p' "$T/report")
[ "${lost:-0}" -gt 0 ] || fail "nothing lost: $(grep Lost "$T/report")"
# main never returns; the leaf running at the cut does too when the cut
# fell between its call and its return (which depends on where the last
# block filled up, so on the record sizes).
open=$(sed -n 's/.* \([0-9]*\) frames\{0,1\} open at the end.*/\1/p' "$T/report")
case "$open" in 1|2) ;; *) fail "$(grep Unmatched "$T/report")" ;; esac
grep -q " 1 user events\| 1 user event" "$T/report" || fail "$(grep Events: "$T/report")"

# calls of leaf, then of main, in each view
flat=$(awk '$NF ~ /^\[[0-9]+\]$/ && NF >= 7 && ($(NF-1) == "leaf" || $(NF-1) == "main") { print $(NF-1), $4 }' "$T/report" | sort | paste -sd' ')
[ -n "$flat" ] || fail "no flat profile"
leaf_calls=$(echo "$flat" | awk '{ print $2 }')
[ "$leaf_calls" -gt 10 ] && [ "$leaf_calls" -lt 20000 ] || fail "report: $flat"
expect_eq "dump" "$flat" "$("$R" --dump "$T/out.raw" |
    awk '$2 == "C" { n[$3]++ } END { for (k in n) print k, n[k] }' | sort | paste -sd' ')"
expect_eq "tree" "$flat" "$("$R" --tree "$T/out.raw" | grep -oE '\| +(leaf|main)\(' |
    tr -d '|(' | awk '{ n[$1]++ } END { for (k in n) print k, n[k] }' | sort | paste -sd' ')"
"$R" --export folded --folded-value=calls -o "$T/calls.folded" "$T/out.raw"
expect_eq "folded" "$flat" "$(awk '{ n = split($1, a, ";"); c[a[n]] += $2 }
    END { for (k in c) print k, c[k] }' "$T/calls.folded" | sort | paste -sd' ')"
"$R" --export callgrind -o "$T/cg.out" "$T/out.raw"
expect_eq "callgrind: main -> leaf" "$leaf_calls" \
    "$(awk '/^cfn=leaf/ { getline; sub(/^calls=/, ""); print $1 }' "$T/cg.out")"
# No pruning: the test is about counts, and how much of main's time the
# leaf takes (the pruning's measure) depends on the load of the machine.
"$R" --export dot --node-threshold=0 --edge-threshold=0 -o "$T/g.dot" "$T/out.raw"
grep -q "f0 -> f1 \[label=\"[^\"]*\\\\n${leaf_calls}×\"" "$T/g.dot" ||
    fail "dot: $(grep -- '->' "$T/g.dot")"
"$R" --export chrome -o "$T/c.json" "$T/out.raw"
python3 - "$T/c.json" "$flat" "$lost" "$open" <<'PY' || fail "chrome"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
calls = {}
for e in ev:
    if e.get("cat") == "call" and e["ph"] in ("B", "X"):
        calls[e["name"]] = calls.get(e["name"], 0) + 1
got = " ".join("%s %d" % kv for kv in sorted(calls.items()))
assert got == sys.argv[2], (got, sys.argv[2])
never = sorted(e["name"] for e in ev if e["ph"] == "E" and (e.get("args") or {}).get("never_returned"))
# the same frames as the report counts open: main, and leaf when the cut
# fell inside it
assert never == (["main"] if sys.argv[4] == "1" else ["leaf", "main"]), (never, sys.argv[4])
assert sum(e["args"]["count"] for e in ev if e.get("cat") == "calltrace-lost") == int(sys.argv[3])
assert [e["name"] for e in ev if e.get("ph") == "i" and e.get("cat") != "calltrace-lost"] == ["ten calls"], "user event"
PY

# times: folded (self ns per stack) against callgrind (self and call costs),
# within the 1 ns of rounding each
"$R" --export folded -o "$T/ns.folded" "$T/out.raw"
f_main=$(awk '$1 == "main" { print $2 }' "$T/ns.folded")
f_leaf=$(awk '$1 == "main;leaf" { print $2 }' "$T/ns.folded")
c_main=$(awk '/^fn=main/ { getline; print $2; exit }' "$T/cg.out")
c_leaf=$(awk '/^fn=leaf/ { getline; print $2; exit }' "$T/cg.out")
for p in "main $f_main $c_main" "leaf $f_leaf $c_leaf"; do
    set -- $p
    d=$(( $2 - $3 )); d=${d#-}
    [ "$d" -le 1 ] || fail "$1: folded $2 ns, callgrind $3 ns"
done
echo ok
