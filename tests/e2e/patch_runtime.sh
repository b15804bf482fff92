#!/usr/bin/env bash
# Entries patched and unpatched while the program runs: CALLTRACE_PATCH at
# start and `calltrace control PID patch SPEC` (tests/programs/
# patch_toggle.c, built with `calltrace cflags --patchable` by gcc and
# clang).  Phases of calls known by construction, each run under the
# patch state set before it, give exact counts: only the calls made while
# their function was patched are recorded.  Then two threads call hot_c
# (and hot_d under it) without a pause while hot_c is patched and
# unpatched 200 times: the program runs on, every recorded call returns,
# none is lost.  Bad specs and a program without patchable entries get
# one clear refusal; record-time filters name the program's functions.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/control-lib.bash"
[ -f "$LIB" ] || fail "no $LIB"
[ -x "$FRONT" ] || fail "no $FRONT"
[ "$(uname -m)" = x86_64 ] || skip "the patchable-entry mode is x86-64 only"
read -r -a flags <<< "$("$FRONT" cflags --patchable)"
calls() { awk -v n="$2" '/^Flat profile/ { f = 1 } /Call graph/ { f = 0 }
    f && NF > 2 && $(NF-1) == n { print $4 }' "$1"; }

for cc in gcc clang; do
    command -v $cc >/dev/null || { [ $cc = clang ] && continue; fail "no $cc"; }
    prog=$T/toggle-$cc
    $cc -O2 -g "${flags[@]}" -pthread -o "$prog" "$PROGRAMS/patch_toggle.c" ||
        fail "$cc: build"
    rm -f "$T/in" "$T/out"
    mkfifo "$T/in"
    CALLTRACE_CONTROL=1 CALLTRACE_PATCH=-hot_a CALLTRACE_OUTPUT=$T/$cc.raw \
        LD_PRELOAD=$LIB "$prog" < "$T/in" > "$T/out" 2> "$T/err" &
    pid=$!
    exec 3> "$T/in"
    phase() { echo "run $1 $2" >&3; waitfor "done $1"; }
    ctl() { "$FRONT" control $pid "$@"; }
    waitfor ready
    wait_control_socket $pid
    phase a 100                                  # hot_a unpatched
    expect_eq "$cc: +hot_a,-hot_b" "patch 1 patched, 1 unpatched, 5 of 6 functions patched now" \
        "$(ctl patch '+hot_a,-hot_b')"
    phase b 200
    ctl patch '-*' > "$T/p3" || fail "$cc: -*: $(cat "$T/p3")"
    phase c 300                                  # nothing patched
    ctl patch '+hot_?' > "$T/p4" || fail "$cc: +hot_?: $(cat "$T/p4")"
    phase d 50
    # Refusals: status 2, one line, nothing changed.
    set +e
    ctl patch ',' 2> "$T/e1"; r1=$?
    ctl patch 'hot_a,' 2> "$T/e2"; r2=$?
    set -e
    expect_eq "$cc: bad spec: status" 2 "$r1"
    expect_eq "$cc: bad spec" "calltrace: control $pid: patch: ',': at offset 0: expected [+|-]GLOB" "$(cat "$T/e1")"
    expect_eq "$cc: trailing comma: status" 2 "$r2"
    expect_eq "$cc: no match" "patch 0 patched, 0 unpatched, 4 of 6 functions patched now; no function matched" \
        "$(ctl patch '-no_such_function')"
    # Patched and unpatched while two threads call it.
    echo spin >&3
    waitfor spinning
    for i in $(seq 100); do
        ctl patch '+hot_c' > /dev/null || fail "$cc: +hot_c, round $i"
        ctl patch '-hot_c' > /dev/null || fail "$cc: -hot_c, round $i"
    done
    ctl patch '+hot_c' > /dev/null
    echo stop >&3
    waitfor stopped
    echo exit >&3
    exec 3>&-
    wait $pid || fail "$cc: program status $?: $(cat "$T/err")"
    expect_eq "$cc: stderr" "" "$(cat "$T/err")"
    expect_eq "$cc: output" "made hot_a 650 hot_b 650 hot_c some" "$(tail -n 1 "$T/out")"

    "$REPORT_SAN" -b "$T/$cc.raw" > "$T/$cc.txt" || fail "$cc: report"
    expect_eq "$cc: hot_a (phases b, d)" 250 "$(calls "$T/$cc.txt" hot_a)"
    expect_eq "$cc: hot_b (phases a, d)" 150 "$(calls "$T/$cc.txt" hot_b)"
    c=$(calls "$T/$cc.txt" hot_c); d=$(calls "$T/$cc.txt" hot_d)
    [ -n "$c" ] && [ "$c" -gt 0 ] || fail "$cc: no call of hot_c recorded"
    [ -n "$d" ] && [ "$d" -ge "$c" ] || fail "$cc: hot_d $d under hot_c $c"
    expect_eq "$cc: nesting" \
        " Unmatched: 0 returns with no call, 0 calls with no return, 0 frames open at the end" \
        "$(grep '^ Unmatched:' "$T/$cc.txt")"
    expect_eq "$cc: lost" " Lost events: 0" "$(grep '^ Lost events:' "$T/$cc.txt")"
done

# Record-time filters name a patched program's functions too (they looked
# only at objects that call the hooks, and matched none of its own).
printf 'run f 10\nexit\n' | CALLTRACE_FILTER=-hot_b CALLTRACE_OUTPUT=$T/f.raw \
    LD_PRELOAD=$LIB "$T/toggle-gcc" > "$T/f.out" 2> "$T/f.err" || fail "filter run"
expect_eq "filter: stderr" "" "$(cat "$T/f.err")"
"$REPORT_SAN" -b -p "$T/f.raw" > "$T/f.txt" || fail "filter: report"
expect_eq "filter: hot_a kept" 10 "$(calls "$T/f.txt" hot_a)"
expect_eq "filter: hot_b left out" "" "$(calls "$T/f.txt" hot_b)"
has "Left out by the filter: 10 calls (10 excluded by -hot_b)" "$T/f.txt" ||
    fail "filter: $(grep 'Left out' "$T/f.txt")"

# C++: names as the views show them, with or without the parameters;
# exceptions thrown through an unpatched function into patched ones.
g++ -O1 "${flags[@]}" -o "$T/cxx" "$PROGRAMS/patch_throw.cpp" || fail "g++: build"
CALLTRACE_PATCH='-thrower,-leaf()' CALLTRACE_OUTPUT=$T/x.raw LD_PRELOAD=$LIB \
    "$T/cxx" > "$T/x.out" 2> "$T/x.err" || fail "cxx: status $?"
expect_eq "cxx: output" "$("$T/cxx")" "$(cat "$T/x.out")"
expect_eq "cxx: stderr" "" "$(cat "$T/x.err")"
"$REPORT_SAN" -b "$T/x.raw" > "$T/x.txt" || fail "cxx: report"
expect_eq "cxx: calls" "main=1 middle(int)=10 thrower(int)= leaf()=" \
    "main=$(calls "$T/x.txt" main) middle(int)=$(calls "$T/x.txt" "middle(int)") thrower(int)=$(calls "$T/x.txt" "thrower(int)") leaf()=$(calls "$T/x.txt" "leaf()")"
expect_eq "cxx: nesting" \
    " Unmatched: 0 returns with no call, 0 calls with no return, 0 frames open at the end" \
    "$(grep '^ Unmatched:' "$T/x.txt")"

# A program built with hooks, not with patchable entries.
build_traced "$T/hooks" "$PROGRAMS/patch_toggle.c"
rm -f "$T/in" "$T/out"; mkfifo "$T/in"
CALLTRACE_CONTROL=1 CALLTRACE_OUTPUT=$T/h.raw LD_PRELOAD=$LIB "$T/hooks" < "$T/in" > "$T/out" &
pid=$!
exec 3> "$T/in"
waitfor ready
wait_control_socket $pid
set +e; "$FRONT" control $pid patch '+hot_a' 2> "$T/e3"; r3=$?; set -e
echo exit >&3; exec 3>&-
wait $pid || fail "hooks: program status $?"
expect_eq "no patchable entries: status" 2 "$r3"
has "patch: the program has no patched entries" "$T/e3" || fail "no entries: $(cat "$T/e3")"
echo "entries patched and unpatched at run time, exact counts, gcc and clang"
