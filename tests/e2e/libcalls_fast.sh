#!/usr/bin/env bash
# The library-call stub's fast ways (preload/libcalls/plt.c,
# ct_plt_enter_fast and ct_plt_exit_fast, which save no vector register)
# against its full way (ct_plt_enter, ct_plt_exit and the hooks' entry
# points): the same programs traced with nothing shutting the thread's
# gate (the fast ways record every plain library call) and under a rule
# that excludes no function (CALLTRACE_FILTER=-no_such_function: the gate
# is shut, so every call takes the full way and the filters keep it) give
# the same call tree in every thread, lazily bound or not, in trace and
# nested mode: tests/programs/libcalls_main.c (malloc and free, a
# comparator that longjmps out of qsort, threads, calls through a dlsym'd
# pointer) and libcalls_cxx.cpp (an exception thrown through an
# uninstrumented library, operator new and delete, tail calls between
# libstdc++'s deletes in nested mode).  Each output is the untraced one.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/libcalls-lib.bash"
[ -f "$LIB" ] || skip "no $LIB"

build_traced "$T/main" "$PROGRAMS/libcalls_main.c"
progs=(main)
if command -v g++ > /dev/null; then
    build_cxx_with_cblib "$T/cxx" "$PROGRAMS/libcalls_cxx.cpp"
    progs+=(cxx)
fi
n=0
for p in "${progs[@]}"; do
    "$T/$p" > "$T/plain.out" || fail "$p: untraced run failed"
    for mode in plt nested; do
        for bind in lazy now; do
            for run in fast full; do
                filter="" now=""
                [ "$run" = full ] && filter=-no_such_function
                [ "$bind" = now ] && now=1
                rm -f "$T/$run.raw"*
                CALLTRACE_LIBCALLS=$mode CALLTRACE_FILTER=$filter \
                    LD_BIND_NOW=$now run_traced "$T/$run.raw" "$T/$p" \
                    > "$T/$run.out" 2> "$T/$run.err" ||
                    fail "$p $mode $bind $run: status $?: $(cat "$T/$run.err")"
                cmp -s "$T/plain.out" "$T/$run.out" ||
                    fail "$p $mode $bind $run: output changed"
                thread_trees "$T/$run.raw" | sort -s -k1,1 > "$T/$run.trees"
            done
            grep -q '@plt' "$T/fast.trees" || fail "$p $mode $bind: no library call recorded"
            diff "$T/full.trees" "$T/fast.trees" > "$T/diff" ||
                fail "$p $mode $bind: the fast ways' trees differ from the full way's: $(head -20 "$T/diff")"
            n=$((n + 1))
        done
    done
done
echo "libcalls_fast: $n pairs of runs, the fast ways record what the full way records"
