#!/usr/bin/env bash
# The kernel sampler's samples belong to the threads they were taken of:
# burn-a spins in burn_a only, burn-b in burn_b only, so every burn_a
# sample is burn-a's and every burn_b sample burn-b's, in the per-thread
# report, under --tid, and in the exports.  (The perf_event sampler writes
# them all from its own thread, as SAMPLE_OF records.)
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "no $LIB: the tracer is not built"
gcc -std=gnu11 -O1 -g -o "$T/st" "$PROGRAMS/sample_threads.c" -lpthread
CALLTRACE_MODE=sample CALLTRACE_SAMPLE_INTERVAL=1ms \
    run_traced "$T/s.raw" "$T/st" 100 > "$T/out.txt" 2> "$T/err.txt" ||
    fail "the program failed: $(cat "$T/err.txt")"
[ -s "$T/s.raw" ] || skip "the tracer wrote no trace"
"$FRONT" info "$T/s.raw" > "$T/info.txt" 2>/dev/null || fail "info failed"
has " name=calltrace-sampler " "$T/info.txt" ||
    skip "the kernel refused perf_event sampling: $(cat "$T/err.txt")"
tid() { awk -v n="$1" '$1==n{print $2}' "$T/out.txt"; }
A=$(tid burn-a) B=$(tid burn-b)

# samples FN [REPORT OPTION]...: FN's self samples in the flat profile
# (% time, +-, cumulative, self, samples, per-call x2, name, index).  awk
# reads to the end: leaving at the match, the report could be killed by
# SIGPIPE, which pipefail makes the script's status (141).
samples() {
    local fn=$1; shift
    "$REPORT_SAN" -p -b "$@" "$T/s.raw" |
        awk -v fn="$fn" 'NF==9 && $(NF-1)==fn && !seen {print $5; seen = 1}'
}
na=$(samples burn_a) nb=$(samples burn_b)
[ "${na:-0}" -gt 0 ] && [ "${nb:-0}" -gt 0 ] ||
    fail "no samples: burn_a '$na', burn_b '$nb'"
expect_eq "burn_a of burn-a" "$na" "$(samples burn_a --tid="$A")"
expect_eq "burn_b of burn-a" "" "$(samples burn_b --tid="$A")"
expect_eq "burn_b of burn-b" "$nb" "$(samples burn_b --tid="$B")"
expect_eq "burn_a of burn-b" "" "$(samples burn_a --tid="$B")"

# --threads: each function in its thread's section only.
"$REPORT_SAN" --threads -p -b "$T/s.raw" | awk '
    /^==== Thread/ { t = $5 }
    NF == 9 && $(NF-1) ~ /^burn_/ { print t, $(NF-1), $5 }' > "$T/sections"
expect_eq "sections" "$A burn_a $na
$B burn_b $nb" "$(sed 's/[),]//g' "$T/sections")"

# The info's per-thread counts: all of burn-a's samples, those that fell
# outside burn_a too (a thread's start and end), as its --threads section
# counts them; and a stack export of one thread.
all_a=$("$REPORT_SAN" --threads -p -b "$T/s.raw" | awk -v a="$A" '
    /^==== Thread/ { t = $5; gsub(/[),]/, "", t) }
    t == a && /^ Events: / && !seen { print $(NF-1); seen = 1 }')
[ "${all_a:-0}" -ge "$na" ] ||
    fail "burn-a's section: '$all_a' samples, burn_a $na"
grep "^  thread $A " "$T/info.txt" | has " samples=$all_a " ||
    fail "info: $(grep "^  thread $A " "$T/info.txt") (section: $all_a)"
"$REPORT_SAN" --tid="$B" --export=folded "$T/s.raw" > "$T/b.folded"
expect_eq "folded burn-b" "$nb" \
    "$(awk '$1 ~ /;burn_b$/ {s += $2} END {print s + 0}' "$T/b.folded")"
has burn_a "$T/b.folded" && fail "burn_a in burn-b's stacks"
echo "ok"
