#!/usr/bin/env bash
# pprof -diff_base reads two runs' --export=pprof profiles (same sample
# types, time and calls, in both): proven with Go's pprof (built as in
# export_pprof.sh) on the two builds of tests/programs/diff_work.c, whose
# changes in calls are known exactly and whose heavy/light self times move
# 10x up and down (a wrong sign is re-recorded twice before failing).
source "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "tracer library not built ($LIB)"
need_pprof

build_traced "$T/old" "$PROGRAMS/diff_work.c" "$PROGRAMS/diff_work_b.c"
build_traced "$T/new" "$PROGRAMS/diff_work.c" "$PROGRAMS/diff_work_b.c" -DNEW
record() {
    for side in old new; do
        rm -f "$T/$side.raw"
        run_traced "$T/$side.raw" "$T/$side" > /dev/null
        "$REPORT_SAN" --export=pprof -o "$T/$side.pb.gz" "$T/$side.raw" ||
            fail "pprof export of the $side run failed"
    done
}
# pprof -top's "flat cum name" rows, for sample index $1 (more options
# may follow).
top() {
    "$PPROF" -top -nodecount=1000 -sample_index="$@" \
        -diff_base="$T/old.pb.gz" "$T/new.pb.gz" 2> "$T/err" ||
        fail "pprof -diff_base failed: $(cat "$T/err")"
    grep -v "^Main binary filename not available" "$T/err" | grep . &&
        fail "pprof warned"
    return 0
}
record
# Calls: exact.  Both static helpers are one "helper" to pprof -top
# (by name): 3->3 and 2->6.
top calls | awk 'NF == 6 && $1 != "flat" { print $6, $1 }' | sort > "$T/calls"
expect_eq "pprof -diff_base calls" "chatty 3
fresh 4
gone -3
helper 4
helper_b_calls 0
main 0
pad 1" "$(cat "$T/calls")"

flat() {
    awk -v f="$1" 'NF == 6 && $6 == f { sub(/ns$/, "", $1); print $1 }' "$T/time"
}
tries=1
while :; do
    top time -unit=ns > "$T/time"
    case $(flat heavy)/$(flat light) in [0-9]*/-[0-9]*) break;; esac
    [ $tries -lt 3 ] || fail "heavy/light flat changes have wrong signs: $(cat "$T/time")"
    tries=$((tries + 1)); record
done
exit 0
