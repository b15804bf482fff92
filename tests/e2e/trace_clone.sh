#!/usr/bin/env bash
# Execution contexts made with clone() and vfork() (docs/tracer.md, "What
# is kept, and when"): a child with memory of its own writes its own trace,
# as after fork; a child sharing the memory and the TLS (CLONE_VM, vfork, a thread
# without a TLS of its own) has its events counted lost while the parent's
# are recorded.  Exact counts: recorded + lost = made, in every variant,
# with and without library calls recorded.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || fail "no $LIB"
build_traced "$T/clone" "$PROGRAMS/trace_clone.c"
n=200000
calls() {  # REPORT-OUTPUT FUNCTION: its calls in the flat profile
    awk -v f="$2" 'NF > 1 && $(NF-1) == f && $NF ~ /^\[/ {print $4; exit}' <<<"$1"
}
lost() { sed -n 's/^ Lost events: \([0-9]*\).*/\1/p' <<<"$1"; }
for libcalls in none plt; do
    for mode in process vm vfork vfork_exit vfork_call thread raw; do
        what="$mode (libcalls $libcalls)"
        rm -rf "$T/o"; mkdir "$T/o"
        out=$(timeout 120 env CALLTRACE_LIBCALLS=$libcalls CALLTRACE_OUTPUT="$T/o/t-%p.raw" \
            LD_PRELOAD="$LIB" "$T/clone" $mode $n 2> "$T/err") || fail "$what: status $?: $(cat "$T/err")"
        expect_eq "$what: output" "$mode: $n calls of f in each" "$out"
        [ ! -s "$T/err" ] || fail "$what: stderr: $(cat "$T/err")"
        files=$(ls "$T/o" | wc -l)
        for raw in "$T"/o/*.raw; do
            r=$("$REPORT" -p "$raw" 2> "$T/rerr") || fail "$what: $raw: $(cat "$T/rerr")"
            expect_eq "$what: $raw: f" $n "$(calls "$r" f)"
            if [ "$(calls "$r" child)" = 1 ]; then
                expect_eq "$what: child's lost" 0 "$(lost "$r")"
                ct_child=1
            elif [ $mode = process ] || [ $mode = raw ]; then
                expect_eq "$what: parent's lost" 0 "$(lost "$r")"
            else
                # the child's calls of f and child(), entered and left; its
                # strtol@plt too when library calls are recorded
                want=$((2 * n + 2))
                [ $libcalls = none ] || want=$((want + 2))
                # child() never returns; _exit@plt is a call too
                case $mode in vfork_exit|vfork_call)
                    want=$((want - 1))
                    [ $libcalls = none ] || want=$((want + 2))
                esac
                expect_eq "$what: lost" $want "$(lost "$r")"
            fi
        done
        if [ $mode = process ] || [ $mode = raw ]; then
            expect_eq "$what: files" 2 "$files"
            [ "${ct_child:-}" = 1 ] || fail "$what: no trace of the child"
        else
            expect_eq "$what: files" 1 "$files"
        fi
        ct_child=
    done
done
echo ok
