#!/usr/bin/env bash
# Calls left out by rules that only exclude, which the hooks settle from
# the skip table without a frame (preload/filters/filter_skip.h), on a
# program whose counts are known by construction or printed by itself
# (tests/programs/filter_skip.c): an excluded recursion 5000 deep (past
# the shadow stack) with a kept call at its bottom, excluded calls on top
# of 2001 kept frames, one left by longjmp,
# one raising a signal, a storm of timer signals whose handler calls
# both kinds, four threads, and a thread still running at exit.  Every
# kept call exact, every left-out call counted, the nesting whole, and
# the report the same however many threads decode it; with each clock
# (tsc, tsc-fenced, monotonic).
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "no $LIB: the tracer is not built"

build_traced "$T/skip" "$PROGRAMS/filter_skip.c"
"$T/skip" > "$T/plain.out" || fail "the program failed untraced"
# check CLOCK: one traced run and every check, with that clock (the
# monotonic one takes the hooks' other branch).
check() {
    local clock=$1
    rm -f "$T"/t.raw*
    CALLTRACE_CLOCK=$clock CALLTRACE_FILTER='-skip_*' run_traced "$T/t.raw" "$T/skip" \
        > "$T/out" 2> "$T/err" || fail "$clock: the program failed traced: $(cat "$T/err")"
    [ -s "$T/err" ] && fail "$clock: the tracer said: $(cat "$T/err")"
    # sink=7022 kept_leaf=K kept_mid=M on_alrm=A skip_leaf=S
    read -r sink kept mid alrm skips <<< "$(sed 's/[a-z_]*=//g' "$T/out")"
    expect_eq "$clock: the program's own sum" 7022 "$sink"
    [ "$alrm" -gt 0 ] || fail "$clock: no timer signal arrived"

    "$REPORT_SAN" -j1 -b "$T/t.raw" > "$T/r1.txt" || fail "$clock: report -j1"
    "$REPORT_SAN" -j2 -b "$T/t.raw" > "$T/r2.txt" || fail "$clock: report -j2"
    cmp -s "$T/r1.txt" "$T/r2.txt" ||
        fail "$clock: -j1 and -j2 differ: $(diff "$T/r1.txt" "$T/r2.txt" | head -20)"

    calls() { awk -v n="$2" '/^Flat profile/ { f = 1 } /Call graph/ { f = 0 }
        f && NF > 2 && $(NF-1) == n { print $4 }' "$1"; }
    # A timer signal whose handler interrupted a hook (the tracer busy) has
    # its six events (on_alrm, skip_leaf, kept_leaf) dropped and counted as
    # lost, as docs/reliability.md says; every other is recorded whole.
    cut=$((alrm - $(calls "$T/r1.txt" on_alrm)))
    expect_eq "$clock: lost: 6 events per handler that interrupted a hook" \
        " Lost events: $((6 * cut))" "$(grep '^ Lost events:' "$T/r1.txt")"
    got=""
    for f in main kept_mid kept_leaf kept_deep kept_jumper on_usr1 worker \
             lingerer kept_block skip_leaf skip_rec skip_jump skip_raise; do
        got+="$f=$(calls "$T/r1.txt" $f) "
    done
    expect_eq "$clock: calls kept" "main=1 kept_mid=$mid kept_leaf=$((kept - cut)) kept_deep=2001 kept_jumper=10 on_usr1=20 worker=4 lingerer=1 kept_block=1 skip_leaf= skip_rec= skip_jump= skip_raise= " "$got"
    # Left out: every skip_leaf but the lost handlers', 5001 skip_rec,
    # 10 x 51 skip_jump, 20 skip_raise.
    left=$((skips - cut + 5001 + 510 + 20))
    expect_eq "$clock: left out" " Left out by the filter: $left calls ($left excluded by -skip_*)" \
        "$(grep '^ Left out by the filter' "$T/r1.txt")"
    # Open at the end: the lingering thread's lingerer and kept_block (the
    # exiting thread closes its own); nothing unmatched.
    expect_eq "$clock: nesting" \
        " Unmatched: 0 returns with no call, 0 calls with no return, 2 frames open at the end" \
        "$(grep '^ Unmatched:' "$T/r1.txt")"

    # The tree: no excluded function, and kept_leaf from the bottom of the
    # recursion under main itself.
    "$REPORT_SAN" --tree "$T/t.raw" > "$T/t.tree" || fail "$clock: --tree"
    has -c 'skip_' "$T/t.tree" && fail "$clock: an excluded function in the tree"
    # The recursion's kept_leaf is the call just before kept_deep,
    # at main's level.
    awk '/\|   kept_deep\(\) \{$/ { ok = prev ~ /\|   kept_leaf\(\);$/; exit }
         { prev = $0 } END { exit !ok }' "$T/t.tree" ||
        fail "$clock: kept_leaf is not under main: $(grep -m1 -B3 "kept_deep() {" "$T/t.tree")"
}
check tsc
check tsc-fenced
check monotonic
echo ok
