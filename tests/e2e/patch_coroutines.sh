#!/usr/bin/env bash
# Coroutines in the patchable-entry mode: tests/programs/coro_ucontext.c
# (makecontext/swapcontext ping-pong, the shape of uftrace's t014) built
# with `calltrace cflags --patchable`, gcc and clang at -O0 and -O2.
# Each context keeps its own patched frames, as it keeps its own hooked
# ones: before, a call in the coroutine, whose stack lies above the
# switching frame's, took that frame for one a jump had left and dropped
# it, and the frame's return then found none: the program was aborted.
# Counts known by construction (foo ROUNDS + 1, baz ROUNDS), every call
# returned, nothing lost, the coroutine a lane of its own.  A switch of
# a coroutine library of its own, which no wrapper sees, is survived too.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "no $LIB"
[ "$(uname -m)" = x86_64 ] || skip "the patchable-entry mode is x86-64 only"
read -r -a flags <<< "$("$FRONT" cflags --patchable)"
rounds=50

for cc in gcc clang; do
    command -v $cc > /dev/null || { [ $cc = clang ] && continue; fail "no $cc"; }
    for opt in 0 2; do
        b=$T/co_${cc}_O$opt
        $cc -std=gnu11 -O$opt "${flags[@]}" -o "$b" "$PROGRAMS/coro_ucontext.c"
        set +e
        out=$(CALLTRACE_OUTPUT="$b.raw" LD_PRELOAD="$LIB" "$b" $rounds 2> "$b.err")
        rc=$?
        set -e
        expect_eq "$cc -O$opt: exit status" 0 "$rc"
        expect_eq "$cc -O$opt: output" "count=$rounds" "$out"
        expect_eq "$cc -O$opt: stderr" "" "$(cat "$b.err")"
        "$REPORT_SAN" -b -p "$b.raw" > "$b.txt" || fail "$cc -O$opt: report"
        expect_eq "$cc -O$opt: lost" " Lost events: 0" "$(grep '^ Lost events:' "$b.txt")"
        has "0 returns with no call, 0 calls with no return, 0 frames open at the end" "$b.txt" ||
            fail "$cc -O$opt: $(grep Unmatched "$b.txt")"
        has -E '^ Threads: 2 \(tid [0-9]+, [0-9]+:1\)$' "$b.txt" ||
            fail "$cc -O$opt: threads: $(grep Threads "$b.txt")"
        for fc in main:1 foo:$((rounds + 1)) bar:1 baz:$rounds; do
            f=${fc%:*} n=${fc#*:}
            has -E "^ +[0-9.]+ +[0-9.]+ +[0-9.]+ +$n +.* $f \[" "$b.txt" ||
                fail "$cc -O$opt: $f not called $n times: $(grep " $f \[" "$b.txt")"
        done
    done
done

# A stack switch no wrapper sees (tests/programs/patch_switch.c): bar,
# called on a stack above foo's frame, makes foo look left by a jump; foo
# returns all the same, to its real caller.  Before, the tracer aborted.
for opt in 0 2; do
    b=$T/switch_O$opt
    gcc -std=gnu11 -O$opt "${flags[@]}" -o "$b" "$PROGRAMS/patch_switch.c"
    want=$("$b")
    set +e
    out=$(CALLTRACE_OUTPUT="$b.raw" LD_PRELOAD="$LIB" "$b" 2> "$b.err")
    rc=$?
    set -e
    expect_eq "switch -O$opt: exit status" 0 "$rc"
    expect_eq "switch -O$opt: output" "$want" "$out"
    expect_eq "switch -O$opt: stderr" "" "$(cat "$b.err")"
    expect_eq "switch -O$opt: tree" "$(printf 'main() {\n  foo();\n  bar();\n} /* main */')" \
        "$("$REPORT_SAN" --tree "$b.raw" | sed -n 's/^[^|]*| //p')"
done
echo ok
