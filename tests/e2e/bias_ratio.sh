#!/usr/bin/env bash
# A loose form of issue 22's goal, in ratios only (no absolute time, so a
# loaded machine does not make it fail): with --subtract-bias, a parent
# whose own work is a loop around 1000 calls of a 20 ns leaf loses at
# least half the hooks' part outside those calls (the summary's "in its
# caller" per call, unless its self time runs out first; left in it, it
# would lose only its own calls' inside part, 1/1000 of that), and the
# parent's and a heavy function's totals per call are within a factor of
# 4 of their untraced CPU time, which the program measures itself on
# uninstrumented copies of the same code (raw, the parent's is 2-3 times
# it).  The parent's self against its leaf's is no test: how much of the
# hooks the leaf's latency-bound body hides moves with the machine, and
# CI saw ratios of 0.7-1.7 with the callers' share rightly taken off.
# The bias is the calibration at start (--subtract-bias=start): the figure
# measured in the run would come from the one leaf there is, whose
# latency-bound body hides most of the hooks' part inside it (docs/
# analysis.md, "Overlap"); bias_run.sh holds the run's figure to a program
# with an empty leaf.
. "$(dirname "$0")/lib.sh"
build_traced "$T/bc" "$PROGRAMS/bias_costs.c" -O2
# flat profile: %time cumulative self calls self/call total/call name
# (the subtracted one; the raw one with a third argument, raw)
field() { awk -v n="$1" -v f="$2" '$7 == n && $4 ~ /^[0-9]+$/ {print $f}' "$T/${3:-sub}"; }
truth() { awk -v n="$1" '$1 == n {print $2}' "$T/truth"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b > 0) ? a / b : 1e9 }'; }
within() { awk -v r="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(r >= lo && r <= hi) }'; }
# attempt: one traced run and its checks; 0, or 1 with the reason in $why.
# The calibration is taken at start and the truth beside the traced calls:
# on a virtual machine whose speed changes from one moment to the next (a
# neighbour's load counts as the program's CPU time), one run can see its
# hooks cost twice what the calibration saw.  So the checks may take up to
# three runs; a subtraction that leaves the callers' share in, or takes
# off the wrong amount, fails all three.
#
# The parent's ratio is held with CALLTRACE_CLOCK=tsc-fenced alone: with
# the default clock its leaf's latency-bound body hides the hooks' work
# under its own (docs/analysis.md, "Overlap"), by how much the CPU says:
# on one Intel VM the parent kept 10-21 us of 16 with the bias off, on an
# AMD EPYC VM the hooks added 3 ns a call to its leaf's 17 (raw 20.6 us
# against 17.3 untraced) where the calibration, on an empty leaf, saw 19,
# and 1.2-1.8 us were left.  The fences make the hooks' cost add to the
# body's, which is what the subtraction assumes.  The heavy function,
# which calls nothing, is held to it with either clock.
attempt() {
    rm -f "$T"/b.raw*
    CALLTRACE_CLOCK=$clock run_traced "$T/b.raw" "$T/bc" > "$T/truth" ||
        fail "bias_costs failed ($clock)"
    cpu=--cpu
    "$REPORT_SAN" -p -b --cpu "$T/b.raw" > /dev/null 2>&1 || cpu=
    "$REPORT_SAN" -p -b $cpu --subtract-bias=start "$T/b.raw" > "$T/sub" ||
        fail "report --subtract-bias failed"
    has -E '^ Bias: subtracted, [0-9.]+ ns per call \([0-9.]+ inside the call, [0-9.]+ in its caller; spread [0-9.]+\)' "$T/sub" ||
        fail "no split bias in the summary: $(grep Bias "$T/sub")"
    expect_eq "leaf calls" 200000 "$(field t_leaf 4)"
    "$REPORT_SAN" -p -b $cpu "$T/b.raw" > "$T/raw" || fail "report failed"
    # per call of the parent (ns): taken off its self, and what the
    # callers' share of its 1000 calls comes to
    caller=$(sed -nE 's/^ Bias: subtracted.* ([0-9.]+) in its caller.*/\1/p' "$T/sub")
    taken=$(awk -v r="$(field t_parent 5 raw)" -v s="$(field t_parent 5)" 'BEGIN { print r - s }')
    want=$(awk -v r="$(field t_parent 5 raw)" -v b="$caller" 'BEGIN { w = 1000 * b; print (r < w ? r : w) / 2 }')
    if ! awk -v t="$taken" -v w="$want" 'BEGIN { exit !(w > 0 && t >= w) }'; then
        why="$clock: parent lost $taken ns a call, under half of its calls' share in their caller ($caller ns each): it stayed in"
        return 1
    fi
    held=heavy
    [ "$clock" = tsc-fenced ] && held="parent heavy"
    for f in $held; do
        r=$(ratio "$(field t_$f 6)" "$(truth $f)")
        if ! within "$r" 0.25 4; then
            why="$clock: $f: total per call $(field t_$f 6) ns with the bias off, untraced $(truth $f) ns ($r)"
            return 1
        fi
    done
    return 0
}
for clock in tsc tsc-fenced; do
    three_tries attempt
    echo "$clock, bias off: parent lost $taken ns a call (1000 calls, $caller ns each in the caller), parent $(ratio "$(field t_parent 6)" "$(truth parent)"), heavy $(ratio "$(field t_heavy 6)" "$(truth heavy)") of untraced"
done
