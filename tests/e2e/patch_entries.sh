#!/usr/bin/env bash
# The patchable-entry mode: programs built with `calltrace cflags
# --patchable` (NOP entries, no hooks) by gcc and clang have their
# functions' entries patched at start, and their calls recorded with the
# counts known by construction (tests/programs/patch_calls.c: nesting, a
# double through the trampolines, arguments and a result in memory,
# frames deeper than the tracer keeps, longjmp, a signal handler, threads,
# 1100 threads one after another with nothing kept of the ended ones;
# patch_throw.cpp: C++ exceptions through patched frames), every frame
# closed, the output as without the tracer, and the trace saying its mode.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || fail "no $LIB"
[ -x "$FRONT" ] || fail "no $FRONT"
[ "$(uname -m)" = x86_64 ] || skip "the patchable-entry mode is x86-64 only"
read -r -a flags <<< "$("$FRONT" cflags --patchable)"
expect_eq "cflags" "-fpatchable-function-entry=5,0" "${flags[0]}"

calls() { awk -v n="$2" '/^Flat profile/ { f = 1 } /Call graph/ { f = 0 }
    f && NF > 2 && $(NF-1) == n { print $4 }' "$1"; }

# check NAME EXPECTED-COUNTS FUNCTION...: the run of $T/NAME traced.
check() {
    local name=$1 want=$2 got="" f
    shift 2
    "$T/$name" > "$T/$name.plain" || fail "$name: status $?"
    run_traced "$T/$name.raw" "$T/$name" > "$T/$name.out" 2> "$T/$name.err" ||
        fail "$name traced: status $?: $(cat "$T/$name.err")"
    cmp -s "$T/$name.plain" "$T/$name.out" || fail "$name: output changed"
    [ ! -s "$T/$name.err" ] || fail "$name: said $(cat "$T/$name.err")"
    "$REPORT_SAN" -b "$T/$name.raw" > "$T/$name.txt" || fail "$name: report"
    for f in "$@"; do got+="$f=$(calls "$T/$name.txt" "$f") "; done
    expect_eq "$name: calls" "$want" "$got"
    expect_eq "$name: nesting" \
        " Unmatched: 0 returns with no call, 0 calls with no return, 0 frames open at the end" \
        "$(grep '^ Unmatched:' "$T/$name.txt")"
    expect_eq "$name: lost" " Lost events: 0" "$(grep '^ Lost events:' "$T/$name.txt")"
    "$REPORT_SAN" --info "$T/$name.raw" | has "^format: .*calls at patched entries" ||
        fail "$name: mode not in the header"
}

for cc in gcc clang; do
    command -v $cc > /dev/null || { [ $cc = clang ] && continue; fail "no $cc"; }
    $cc -std=gnu11 -O1 "${flags[@]}" -o "$T/c_$cc" "$PROGRAMS/patch_calls.c" -lpthread
    check c_$cc "main=1 mid=18 leaf=61 fp=1 jumper=5 handler=1 worker=2 stackargs=2 " \
        main mid leaf fp jumper handler worker stackargs
done
# Signal handlers interrupting the trampolines anywhere: every frame
# still closed, the program's own calls all there; a handler that
# interrupts the tracer is counted lost, as in the other mode, so its
# leaf calls are at most one per handler recorded or lost.
run_traced "$T/storm.raw" "$T/c_gcc" storm > "$T/storm.out" || fail "storm: status $?"
expect_eq "storm output" 300000 "$(cat "$T/storm.out")"
"$REPORT_SAN" -b "$T/storm.raw" > "$T/storm.txt" || fail "storm: report"
expect_eq "storm: nesting" \
    " Unmatched: 0 returns with no call, 0 calls with no return, 0 frames open at the end" \
    "$(grep '^ Unmatched:' "$T/storm.txt")"
h=$(calls "$T/storm.txt" handler)
lost=$(sed -n 's/^ Lost events: \([0-9]*\).*/\1/p' "$T/storm.txt")
leaves=$(calls "$T/storm.txt" leaf)
expect_eq "storm: mid" 100000 "$(calls "$T/storm.txt" mid)"
[ "$leaves" -ge 300000 ] && [ "$leaves" -le $((300000 + ${h:-0} + lost)) ] ||
    fail "storm: $leaves leaf calls, $h handlers, $lost lost"

# 1100 threads one after another: each thread's stack of patched frames
# (96 KiB) goes with the thread.  Kept, 1000 threads grew the address
# space by 100000 KiB; allowed: 8 MiB, under 9 KiB a thread.
expect_eq "threads untraced" 0 "$("$T/c_gcc" threads 1100)"
grew=$(run_traced "$T/thr.raw" "$T/c_gcc" threads 1100) || fail "threads: status $?"
[ "$grew" -le 8192 ] || fail "threads: the address space grew by $grew KiB over 1000 ended threads"
"$REPORT_SAN" -b "$T/thr.raw" > "$T/thr.txt" || fail "threads: report"
expect_eq "threads: worker, mid" "1100 4400" \
    "$(calls "$T/thr.txt" worker) $(calls "$T/thr.txt" mid)"
expect_eq "threads: lost" " Lost events: 0" "$(grep '^ Lost events:' "$T/thr.txt")"

g++ -O1 "${flags[@]}" -o "$T/cxx" "$PROGRAMS/patch_throw.cpp"
check cxx "main=1 middle(int)=10 thrower(int)=10 leaf()=26 " \
    main "middle(int)" "thrower(int)" "leaf()"

# Deeper than the 4096 frames the tracer keeps a thread: main and 4095
# levels of down() are recorded, the 905 below them run unrecorded (the
# trampoline jumps straight into them) and are counted lost.
expect_eq "deep untraced" 5000 "$("$T/c_gcc" deep 5000)"
expect_eq "deep traced" 5000 "$(run_traced "$T/deep.raw" "$T/c_gcc" deep 5000)"
"$REPORT_SAN" -b "$T/deep.raw" > "$T/deep.txt" || fail "deep: report"
expect_eq "deep: down" 4095 "$(calls "$T/deep.txt" down)"
expect_eq "deep: lost" " Lost events: 905" "$(grep '^ Lost events:' "$T/deep.txt")"
expect_eq "deep: nesting" \
    " Unmatched: 0 returns with no call, 0 calls with no return, 0 frames open at the end" \
    "$(grep '^ Unmatched:' "$T/deep.txt")"

# Built without the flag: nothing patched, nothing said.
gcc -std=gnu11 -O1 -o "$T/plain" "$PROGRAMS/patch_calls.c" -lpthread
run_traced "$T/plain.raw" "$T/plain" > /dev/null 2> "$T/plain.err" || fail "plain"
[ ! -s "$T/plain.err" ] || fail "plain: said $(cat "$T/plain.err")"
echo ok
