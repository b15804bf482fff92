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
# libstdc++'s deletes in nested mode); then libcalls_main.c with
# CALLTRACE_ARGS rules, integers and return values kept by the fast ways'
# plans, a string by the full way, the same values either way.  Each
# output is the untraced one.
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
# With CALLTRACE_ARGS: the integers and integer return values a plan
# keeps go with the fast ways' ENTRY and EXIT (args/plan.c), a string
# and the rest by the full way; the same values either way.  Values that
# differ between runs (addresses, pids) are not kept.
rules='malloc@arg1/u64;qsort@arg2,arg3/i32;getppid@retval/i32;pthread_create@retval;pthread_join@retval/i32;printf@arg1/s'
tree_values() {  # RAW: each thread's calls with their values
    "$REPORT_SAN" --tree --threads "$1" | sed -e 's/^.*\] |/|/' -e 's/(tid [0-9]*)//'
}
"$T/main" > "$T/plain.out"
for run in fast full; do
    filter=""
    [ "$run" = full ] && filter=-no_such_function
    rm -f "$T/$run.raw"*
    CALLTRACE_LIBCALLS=plt CALLTRACE_FILTER=$filter CALLTRACE_ARGS=$rules \
        run_traced "$T/$run.raw" "$T/main" > "$T/$run.out" 2> "$T/$run.err" ||
        fail "args $run: status $?: $(cat "$T/$run.err")"
    cmp -s "$T/plain.out" "$T/$run.out" || fail "args $run: output changed"
    tree_values "$T/$run.raw" > "$T/$run.vtree"
done
for want in 'malloc@plt(22);' 'qsort@plt(8, 4)' 'getppid@plt() = ' \
            'pthread_create@plt() = 0;' 'pthread_join@plt() = 0;' 'printf@plt("'; do
    grep -qF "$want" "$T/fast.vtree" || fail "args: no $want in the fast ways' tree: $(grep -F "${want%%(*}" "$T/fast.vtree" | head -3)"
done
diff "$T/full.vtree" "$T/fast.vtree" > "$T/diff" ||
    fail "args: the fast ways' values differ from the full way's: $(head -20 "$T/diff")"
n=$((n + 1))
echo "libcalls_fast: $n pairs of runs, the fast ways record what the full way records"
