#!/usr/bin/env bash
# CALLTRACE_CLOCK=tsc-fenced (docs/analysis.md, "A clock read in order"):
# the trace says it was fenced (info and the report's summary), the calls
# are the same as with the plain TSC, and a function of about 100 ns, the
# size whose body an unfenced read overlaps most, keeps its time: with
# the bias taken off (the calibration at start: the run's own figure
# would come from this one leaf), its self time per call is within a
# third of its untraced CPU time, which the program measures itself on
# an uninstrumented copy.  Ratios only; up to three runs, as a virtual
# machine's speed moves between a run's calibration and its calls.
. "$(dirname "$0")/lib.sh"
build_traced "$T/cf" "$PROGRAMS/clock_fenced.c" -O2
run_traced "$T/plain.raw" "$T/cf" > /dev/null || fail "clock_fenced failed"
"$FRONT" info "$T/plain.raw" > "$T/plain.info" || fail "info of the plain trace"
has -E '^clock: +tsc ' "$T/plain.info" || skip "the clock here is not the TSC"
has 'fenced' "$T/plain.info" && fail "plain TSC trace says fenced: $(grep clock: "$T/plain.info")"
field() { awk -v n="$1" -v f="$2" '$7 == n && $4 ~ /^[0-9]+$/ {print $f}' "$3"; }
"$REPORT_SAN" -p -b "$T/plain.raw" > "$T/plain.rep" || fail "report of the plain trace"
expect_eq "t_mid calls, plain TSC" 100000 "$(field t_mid 4 "$T/plain.rep")"

attempt() {
    rm -f "$T"/f.raw*
    CALLTRACE_CLOCK=tsc-fenced run_traced "$T/f.raw" "$T/cf" > "$T/truth" ||
        fail "clock_fenced failed under tsc-fenced"
    "$FRONT" info "$T/f.raw" > "$T/f.info" || fail "info of the fenced trace"
    has -E '^clock: +tsc [0-9.]+ GHz, read in order \(fenced\),' "$T/f.info" ||
        fail "info's clock: $(grep clock: "$T/f.info")"
    cpu=--cpu
    "$REPORT_SAN" -p -b --cpu "$T/f.raw" > /dev/null 2>&1 || cpu=
    "$REPORT_SAN" -p -b $cpu --subtract-bias=start "$T/f.raw" > "$T/f.rep" ||
        fail "report of the fenced trace"
    has -E '^ Clock: tsc [0-9.]+ GHz, read in order \(fenced\)' "$T/f.rep" ||
        fail "summary's clock: $(grep Clock: "$T/f.rep")"
    expect_eq "t_mid calls, fenced" 100000 "$(field t_mid 4 "$T/f.rep")"
    truth=$(awk '$1 == "mid" {print $2}' "$T/truth")
    self=$(field t_mid 5 "$T/f.rep")
    ratio=$(awk -v a="$self" -v b="$truth" 'BEGIN { printf "%.3f", (b > 0) ? a / b : 0 }')
    awk -v r="$ratio" 'BEGIN { exit !(r >= 0.75 && r <= 1.33) }' && return 0
    why="t_mid: $self ns a call with the bias off, untraced $truth ns ($ratio)"
    return 1
}
ok=0
for try in 1 2 3; do
    if attempt; then ok=1; break; fi
    echo "run $try: $why"
done
[ $ok = 1 ] || fail "$why (three runs)"
echo "fenced: t_mid $self ns a call with the bias off, untraced $truth ns ($ratio)"
