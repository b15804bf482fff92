#!/usr/bin/env bash
# --dump of three threads: the main thread's lines have bare keys, the
# workers' carry their index (C2, C3), and all lines are in time order.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "no $LIB: the tracer is not built"
build_traced "$T/threads" "$PROGRAMS/dump_threads.c"
expect_eq "output" 11 "$(run_traced "$T/t.raw" "$T/threads")"
[ -s "$T/t.raw" ] || skip "the tracer wrote no trace"
"$REPORT_SAN" --dump "$T/t.raw" > "$T/dump.txt" 2> "$T/err.txt" ||
    fail "--dump exit $?: $(cat "$T/err.txt")"
grep -q ' C main$' "$T/dump.txt" || skip "the tracer recorded no calls"
keys() { awk -v n="$1" '$3==n{print $2}' "$T/dump.txt" | sort | uniq -c |
         awk '{printf "%s=%s ", $2, $1}'; }
expect_eq "main_work" "C=2 R=2 " "$(keys main_work)"
expect_eq "worker_fn" "C2=3 C3=3 R2=3 R3=3 " "$(keys worker_fn)"
expect_eq "worker" "C2=1 C3=1 R2=1 R3=1 " "$(keys worker)"
sort -s -n -k1,1 "$T/dump.txt" | cmp -s - "$T/dump.txt" || fail "not in time order"
# The first worker ran entirely before the second one started.
expect_eq "worker order" "C2 C3" \
    "$(awk '$3=="worker" && $2 ~ /^C/ {print $2}' "$T/dump.txt" | paste -sd' ')"
echo "ok"
