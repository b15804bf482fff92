#!/usr/bin/env bash
# Threads one after another that the kernel gives the same tid (a pid
# namespace of the test's own makes it ask for it): the report, --dump,
# calltrace top's piped table and the chrome export tell the same threads
# and calls.
. "$(dirname "$0")/lib.sh"
[ -f "$FRONT" ] || fail "no $FRONT"
unshare -Urpf --mount-proc true 2>/dev/null ||
    skip "no user and pid namespaces here (unshare -Urpf)"
build_traced "$T/reuse" "$PROGRAMS/threads_reuse.c"
unshare -Urpf --mount-proc env CALLTRACE_OUTPUT="$T/out.raw" LD_PRELOAD="$LIB" \
    "$T/reuse" 3 > "$T/stdout"
expect_eq sink "sink=$(( 99*100/2 + 199*200/2 + 299*300/2 ))" \
    "$(sed -n 2p "$T/stdout")"
read -r _ t1 t2 t3 < "$T/stdout"
[ "$t1" = "$t2" ] && [ "$t2" = "$t3" ] ||
    skip "the kernel did not give the tid again: $(head -n 1 "$T/stdout")"

"$REPORT_SAN" "$T/out.raw" > "$T/report" || fail "report: status $?"
has -x " Threads: 4 (tid 1, $t1, $t1, $t1)" "$T/report" ||
    fail "report: $(grep Threads: "$T/report")"
# work() per thread, by construction 100, 200, 300, each thread once.
expect_eq "dump: work per thread" "C2=100 C3=200 C4=300" \
    "$("$REPORT_SAN" --dump "$T/out.raw" |
       awk '$3 == "work" && $2 ~ /^C[0-9]/ { n[$2]++ }
            END { for (k in n) print k "=" n[k] }' | sort | paste -sd' ')"

"$FRONT" top -n 1 "$T/out.raw" > "$T/top" 2>&1 || fail "top: status $?"
has "threads 4 (3 ended)" "$T/top" ||
    fail "top: $(grep threads "$T/top" || cat "$T/top")"
# calls per function: top's table against the report's flat profile
top_calls() { awk -v f="$1" '$NF == f && $(NF-2) ~ /^[0-9]+$/ { print $(NF-2) }' "$T/top"; }
expect_eq "top: work calls" 600 "$(top_calls work)"
expect_eq "top: body calls" 3 "$(top_calls body)"
has -E "^ +[0-9.]+ +[0-9.]+ +[0-9.]+ +600 .* work \[" "$T/report" ||
    fail "report: work not 600 calls"
expect_eq "folded --threads" "thread $t1;body;work 100|thread $t1 #2;body;work 200|thread $t1 #3;body;work 300" \
    "$("$REPORT_SAN" --export folded --threads --folded-value=calls "$T/out.raw" |
       grep ';work ' | paste -sd'|')"
# chrome: a track per thread, not one for the three that shared the tid
"$REPORT_SAN" --export chrome -o "$T/c.json" "$T/out.raw" || fail "chrome: status $?"
python3 - "$T/c.json" "$t1" <<'PY' || fail "chrome: threads told apart wrongly"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
names = {e["tid"]: e["args"]["name"] for e in ev if e.get("name") == "thread_name"}
t = sys.argv[2]
assert sorted(names.values()) == sorted(["thread 1", "thread " + t, "thread %s #2" % t, "thread %s #3" % t]), names
work = {}
for e in ev:
    if e.get("name") == "work" and e.get("ph") in ("B", "X"):
        work[names[e["tid"]]] = work.get(names[e["tid"]], 0) + 1
assert work == {"thread " + t: 100, "thread %s #2" % t: 200, "thread %s #3" % t: 300}, work
PY
echo ok
