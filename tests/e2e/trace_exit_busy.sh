#!/usr/bin/env bash
# exit() and exec while eight workers call an instrumented function and
# switch blocks: the exiting thread ends each worker with a last block of
# its own, and no worker block may follow it, in number or in time.  Every
# trace reads, shows main and the eight workers, and holds or counts every
# call the workers made: those made after the exit began are counted lost
# (two events each), so 2 made <= 2 recorded + lost <= 2 made + what a
# call under way adds in each worker and in main (lost counts are the
# trace's, main's events among them).  A call under way adds up to three
# events: its ENTRY recorded (two in "2 recorded"), its return counted
# lost once the exit began, and the thread ended by the exit before it
# counted the call as made (CI saw 19 over 2 made with eight workers).
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || fail "no $LIB"
build_traced "$T/busy" "$PROGRAMS/exit_busy.c"
n=8
check() {  # WHAT RAW COUNTS
    local out made calls lost threads
    out=$("$REPORT" -b -p "$2" 2> "$T/err") || fail "$1: refused: $(cat "$T/err")"
    made=$(od -An -td8 -N $((8 * n)) -v "$3" | tr -s ' ' '\n' | awk '{s+=$1} END {print s}')
    calls=$(awk 'NF > 1 && $(NF-1) == "f" && $NF ~ /^\[/ {print $4; exit}' <<<"$out")
    lost=$(sed -n 's/^ Lost events: \([0-9]*\).*/\1/p' <<<"$out")
    threads=$(sed -n 's/^ Threads: \([0-9]*\).*/\1/p' <<<"$out")
    expect_eq "$1: threads" $((n + 1)) "$threads"
    # in events, a call and its return for each call made
    [ $((2 * calls + lost)) -ge $((2 * made)) ] &&
        [ $((2 * calls + lost)) -le $((2 * made + 3 * (n + 1))) ] ||
        fail "$1: $calls calls recorded + $lost events lost for $made calls made"
}
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
    rm -f "$T"/e.raw
    run_traced "$T/e.raw" "$T/busy" exit $n $((10000 + i * 3000)) "$T/counts" ||
        fail "exit run $i: status $?"
    check "exit run $i" "$T/e.raw" "$T/counts"
done
for i in 1 2 3 4; do
    rm -rf "$T/x"; mkdir "$T/x"
    run_traced "$T/x/t.raw" "$T/busy" exec $n $((10000 + i * 5000)) "$T/counts" ||
        fail "exec run $i: status $?"
    check "exec run $i" "$T/x/t.raw" "$T/counts"
done
echo ok
