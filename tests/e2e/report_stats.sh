#!/usr/bin/env bash
# calltrace-report --stats, --sort and --slowest, and calltrace slowest:
# durations known by construction.  An OpenLaszlo log with given
# timestamps (ms) makes the figures exact: work(n) lasts n ms for n =
# 1..100, called by call_odd or call_even, and spends 1 ms in inner.  A
# traced program that sleeps n * 200 us in nap(n) checks the real trace
# with lower bounds only (a sleep never ends early; no timing upper bound
# holds under load).  --jobs must not change --stats.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || fail "no $LIB"

# ns of a duration as the report prints it (812ns, 1.50us, 2.00ms, 1.20s)
to_ns() {
    awk -v d="$1" 'BEGIN {
        if (d ~ /ns$/) m = 1; else if (d ~ /us$/) m = 1e3;
        else if (d ~ /ms$/) m = 1e6; else m = 1e9;
        sub(/[a-z]+$/, "", d); printf "%.0f\n", d * m }'
}

# --- exact figures from a log with given timestamps ---
log=$T/known.log
known_work_log "$log"
"$REPORT_SAN" --stats -b "$log" > "$T/known" 2> "$T/err" ||
    fail "--stats: $(cat "$T/err")"
row() { # FUNC total|self: the figures of its line
    awk -v f="$1" -v w="$2" '
        NF > 2 && $NF ~ /^\[/ && $(NF-1) == f && $2 == "total" { hit = 1
            if (w == "total") { print $1, $3, $4, $5, $6, $7, $8; exit } next }
        hit && $1 == "self" { print "-", $2, $3, $4, $5, $6, $7; exit }
        { hit = 0 }' "$T/known"
}
expect_eq "work total" "100 1.00ms 50.00ms 90.00ms 99.00ms 100.00ms 5.05s" \
    "$(row work total)"
expect_eq "work self" "- 0ns 49.00ms 89.00ms 98.00ms 99.00ms 4.95s" \
    "$(row work self)"
expect_eq "inner total" "100 1.00ms 1.00ms 1.00ms 1.00ms 1.00ms 100.00ms" \
    "$(row inner total)"
# per arc: the odd calls 1..99, the even ones 2..100
arc() {
    awk -v f="$1" 'NF > 3 && $(NF-2) == "<-" && $(NF-1) == f && $2 == "total" {
        print $1, $3, $4, $5, $6, $7, $8 }' "$T/known"
}
expect_eq "call_odd -> work" "50 1.00ms 49.00ms 89.00ms 99.00ms 99.00ms 2.50s" \
    "$(arc call_odd | sed -n 1p)"
expect_eq "call_even -> work" \
    "50 2.00ms 50.00ms 90.00ms 100.00ms 100.00ms 2.55s" "$(arc call_even | sed -n 1p)"

# --sort: by calls (ties by self, then name); by max of the calls' totals
order() { awk '/^Flat profile/ { on = 1 } on && $NF ~ /^\[/ { print $(NF-1) }
               /^\f/ && on { exit }' "$1" | tr '\n' ' '; }
"$REPORT" -p -b --sort=calls "$log" > "$T/calls"
expect_eq "--sort=calls" "work inner call_even call_odd " "$(order "$T/calls")"
"$REPORT" -p -b --sort=max "$log" > "$T/max"
expect_eq "--sort=max" "work call_even call_odd inner " "$(order "$T/max")"
if "$REPORT" --sort=bogus "$log" > /dev/null 2> "$T/err"; then
    fail "--sort=bogus accepted"
fi
grep -q -- '--sort wants' "$T/err" || fail "--sort=bogus: $(cat "$T/err")"

# --slowest: the three longest calls of work, in order, with their starts
"$REPORT_SAN" --slowest=work -n 3 "$log" > "$T/slow" 2> "$T/err" ||
    fail "--slowest: $(cat "$T/err")"
expect_eq "slowest totals" "100.00ms 99.00ms 98.00ms" \
    "$(awk '$1 ~ /^[0-9]+$/ && NF >= 5 { printf "%s%s", s, $2; s = " " }' "$T/slow")"
grep -q "^Slowest calls of work \[[0-9]*\]: 3 of 100 call(s)" "$T/slow" ||
    fail "slowest heading: $(head -n 1 "$T/slow")"
grep -q "calltrace tree --focus='work' --time-range=" "$T/slow" ||
    fail "no tree command: $(cat "$T/slow")"
if "$REPORT" --slowest=nosuch "$log" > /dev/null 2> "$T/err"; then
    fail "--slowest of no function succeeded"
fi
if "$REPORT" -n 3 "$log" > /dev/null 2> "$T/err"; then
    fail "-n without --slowest accepted"
fi

# --- a traced program: lower bounds by construction ---
build_traced "$T/sleep" "$PROGRAMS/stats_sleep.c"
run_traced "$T/s.raw" "$T/sleep"
"$REPORT_SAN" --stats -b "$T/s.raw" > "$T/real" 2> "$T/err" ||
    fail "--stats on a trace: $(cat "$T/err")"
read -r calls min p50 p90 p99 max sum < <(awk 'NF > 2 && $(NF-1) == "nap" && $2 == "total" {
    print $1, $3, $4, $5, $6, $7, $8 }' "$T/real")
expect_eq "nap calls" 20 "$calls"
# the k-th shortest of 20 calls is at least k * 200 us; the quantile read
# from the histogram is within 0.4 % of one of them
atleast() { # WHAT DURATION NS
    [ "$(to_ns "$2")" -ge "$3" ] || fail "$1: $2 is under $3 ns"
}
atleast min "$min" 199000
atleast p50 "$p50" $((10 * 199200))
atleast p90 "$p90" $((18 * 199200))
atleast p99 "$p99" $((20 * 199200))
atleast max "$max" 4000000
atleast sum "$sum" 42000000
prev=0
for v in "$min" "$p50" "$p90" "$p99" "$max"; do
    ns=$(to_ns "$v")
    [ "$ns" -ge "$prev" ] || fail "quantiles out of order: $min $p50 $p90 $p99 $max"
    prev=$ns
done
# calltrace slowest: longest first, the first one the maximum
(cd "$T" && "$FRONT" slowest nap -n 5 s.raw) > "$T/fslow" 2> "$T/err" ||
    fail "calltrace slowest: $(cat "$T/err")"
totals=$(awk '$1 ~ /^[0-9]+$/ && NF >= 5 { print $2 }' "$T/fslow")
expect_eq "slowest rows" 5 "$(echo "$totals" | wc -l)"
expect_eq "slowest first = max" "$max" "$(echo "$totals" | sed -n 1p)"
prev=
for v in $totals; do
    ns=$(to_ns "$v")
    [ -z "$prev" ] || [ "$ns" -le "$prev" ] || fail "slowest not in order: $totals"
    prev=$ns
done
# the tree command it prints shows that call
cmd=$(grep -m1 'calltrace tree' "$T/fslow" | sed 's/^ *calltrace //')
(cd "$T" && eval "\"$FRONT\" $cmd") > "$T/tree" || fail "tree command: $cmd"
grep -q 'nap()' "$T/tree" || fail "tree command shows no nap: $(cat "$T/tree")"

# --- --jobs: the same --stats from pieces decoded in parallel ---
build_traced "$T/jobs" "$PROGRAMS/report_jobs.c"
CALLTRACE_BUFSIZE=4K run_traced "$T/j.raw" "$T/jobs" > /dev/null
"$REPORT" --jobs 1 --stats "$T/j.raw" > "$T/j1" || fail "--jobs 1 --stats"
for jobs in 2 3; do
    CT_PIECE_BYTES=8192 "$REPORT_SAN" --jobs $jobs --stats "$T/j.raw" \
        > "$T/j$jobs" 2> "$T/e$jobs" || fail "--jobs $jobs: $(cat "$T/e$jobs")"
    grep -q ' pieces on ' "$T/e$jobs" || fail "--jobs $jobs: not in pieces"
    cmp -s "$T/j1" "$T/j$jobs" ||
        fail "--jobs $jobs: --stats differs: $(diff "$T/j1" "$T/j$jobs" | sed -n 1,20p)"
done
echo ok
