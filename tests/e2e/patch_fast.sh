#!/usr/bin/env bash
# The patchable-entry trampolines' fast paths (preload/hot/hot.c,
# ct_patch_enter_fast and ct_patch_leave_fast) against the full way
# (preload/patch/patch.c and the hooks' entry points): the same program
# traced with nothing shutting the thread's gate (the fast paths record
# every plain call) and under a rule that excludes no function
# (CALLTRACE_FILTER=-no_such_function: the gate is shut, so every call
# takes the full way and the filters keep it) gives the same call tree in
# every thread, library calls recorded or not, at -O1 and -O2
# (tests/programs/patch_calls.c: nesting, a double and a struct through
# the trampolines, longjmp past patched frames, a signal handler,
# threads).  Its output is the untraced run's either way.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || fail "no $LIB"
[ "$(uname -m)" = x86_64 ] || skip "the patchable-entry mode is x86-64 only"
read -r -a flags <<< "$("$FRONT" cflags --patchable)"

# tree RAW: each thread's calls, durations and thread ids left out.
tree() {
    "$REPORT" --tree --threads "$1" |
        sed -e 's/^.*\] |/|/' -e 's/(tid [0-9]*)//'
}

for opt in -O1 -O2; do
    gcc -std=gnu11 "$opt" "${flags[@]}" -o "$T/calls" \
        "$PROGRAMS/patch_calls.c" -lpthread
    "$T/calls" > "$T/plain.out"
    for libcalls in none all; do
        for run in fast full; do
            filter=""
            [ "$run" = full ] && filter=-no_such_function
            rm -f "$T/$run.raw"*
            CALLTRACE_LIBCALLS=$libcalls CALLTRACE_FILTER=$filter \
                run_traced "$T/$run.raw" "$T/calls" > "$T/$run.out" \
                2> "$T/$run.err" ||
                fail "$opt $libcalls $run: status $?: $(cat "$T/$run.err")"
            cmp -s "$T/plain.out" "$T/$run.out" ||
                fail "$opt $libcalls $run: output changed"
            tree "$T/$run.raw" > "$T/$run.tree"
        done
        # Known by construction (patch_calls.c): 61 calls of leaf.
        n=$(grep -c 'leaf()' "$T/fast.tree" || true)
        [ "$n" = 61 ] || fail "$opt $libcalls: $n calls of leaf, not 61"
        if [ "$libcalls" = all ]; then
            grep -q '@plt' "$T/fast.tree" ||
                fail "$opt: no library call recorded"
        fi
        diff "$T/full.tree" "$T/fast.tree" > "$T/diff" ||
            fail "$opt $libcalls: the fast paths' tree differs from the full way's: $(head -20 "$T/diff")"
    done
done
echo "patch_fast: the fast paths record what the full way records"
