#!/usr/bin/env bash
# Threads one after another that the kernel gives the same tid (a pid
# namespace of the test's own makes it ask for it): the report, --dump and
# calltrace top's piped table tell the same threads and calls.
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
echo ok
