#!/usr/bin/env bash
# The tracer built with ThreadSanitizer (make tsan: build/tsan/) traces a
# sixteen-thread program built with -fsanitize=thread that makes library
# calls and starts short threads, once to its end and once ending by exit()
# while its threads work.  Any ThreadSanitizer report fails the test, save
# the suppressions of tests/e2e/tsan.supp that docs/reliability.md explains.
. "$(dirname "$0")/lib.sh"
TLIB=$CT_BUILD/tsan/libcalltrace.so
[ -f "$TLIB" ] || fail "no $TLIB (make tsan)"
echo 'int main(void){return 0;}' > "$T/probe.c"
gcc -fsanitize=thread -o "$T/probe" "$T/probe.c" 2>/dev/null ||
    skip "gcc cannot build with -fsanitize=thread here (libtsan missing)"
build_traced "$T/prog" "$PROGRAMS/tsan_threads.c" -fsanitize=thread
# TSan of gcc 12 needs the address layout it knows: without randomization.
norand() { setarch "$(uname -m)" -R "$@"; }
norand "$T/probe" 2> "$T/probe.err" ||
    skip "ThreadSanitizer programs do not start here: $(head -n 1 "$T/probe.err")"
export CALLTRACE_LIBCALLS=plt
# report_thread_leaks=0: the exit run leaves its threads unjoined on purpose
export TSAN_OPTIONS="halt_on_error=0 exitcode=66 report_thread_leaks=0 suppressions=$CT_ROOT/tests/e2e/tsan.supp"
# The third run leaves the comparator out by a rule that only excludes:
# its calls are counted by the skip table, whose counts of the threads
# still running the exiting thread writes (preload/filters/filter_skip.h).
for item in "join 400|" "exit 200000|" "exit 200000|-cmp"; do
    run=${item%|*} filter=${item#*|}
    rm -f "$T"/t.raw*
    set +e
    # only the program gets the library: not timeout, which has no TSan
    timeout 600 setarch "$(uname -m)" -R env CALLTRACE_FILTER="$filter" \
        CALLTRACE_OUTPUT="$T/t.raw" \
        LD_PRELOAD="$TLIB" "$T/prog" $run > "$T/out" 2> "$T/err"
    rc=$?
    set -e
    if grep -q 'WARNING: ThreadSanitizer' "$T/err"; then
        grep -A 12 'WARNING: ThreadSanitizer' "$T/err" | sed -n 1,60p >&2
        fail "$run: ThreadSanitizer reports ($(grep -c 'WARNING: ThreadSanitizer' "$T/err"))"
    fi
    # a ThreadSanitizer that dies (a CHECK, a FATAL) exits 66 with no
    # WARNING line: say what it printed
    [ "$rc" = 0 ] || fail "$run: status $rc: $(head -n 20 "$T/err")"
    [ ! -s "$T/err" ] || fail "$run: stderr: $(head -n 5 "$T/err")"
    "$REPORT" -p "$T/t.raw" > "$T/report" 2> "$T/rerr" || fail "$run: report: $(cat "$T/rerr")"
    threads=$(sed -n 's/^ Threads: \([0-9]*\).*/\1/p' "$T/report")
    [ "${threads:-0}" -ge 17 ] || fail "$run: threads: $threads"
    has -E ' (snprintf|qsort)@plt' "$T/report" || fail "$run: no library calls in the report"
    if [ -n "$filter" ]; then
        has -E "^ Left out by the filter: [1-9][0-9]* calls" "$T/report" ||
            fail "$run $filter: nothing left out: $(grep 'Left out' "$T/report")"
    fi
done
echo ok
