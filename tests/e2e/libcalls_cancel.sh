#!/usr/bin/env bash
# Threads cancelled (deferred cancellation) while blocked in library calls
# (tests/programs/libcalls_cancel.c: read, nanosleep, pthread_cond_wait
# under pthread_cleanup_push; libcalls_cancel_cxx.cpp: read under two C++
# objects).  The unwinding glibc starts must not meet the return
# trampoline: the programs stay alive, their cleanup handlers and
# destructors all run (the same output as without the tracer), and every
# thread's tree is the one below.
#
# What the trees show (docs/tracer.md, "Calls into shared libraries"):
# in C, pthread_cleanup_push saves its buffer with __sigsetjmp (a call
# that returns at once in the tree: it returns twice), glibc leaves the
# library call by a jump of its own to that buffer, and runs the handler
# there: the call
# ends when the unwinding begins, and the handler shows in the function
# that pushed it, after the call.  In C++ the destructor runs in a landing
# pad the unwinder jumps to, where the call the cancellation interrupted
# ends (the _Unwind_SetIP wrapper): each destructor shows in the function
# it runs in, after the call.  Each cleanup resumes the unwinding with
# _Unwind_Resume, which never returns: worker's, after worker's own exit
# hook, sits at the thread's top; it was lost before, as the second call
# through a lazily bound slot whose first call never returned.  The
# frames the cancellation leaves never return: they end with the thread.
#
# uftrace 0.13 on the same binaries: both programs die of SIGSEGV in the
# cancelled thread (its return trampoline is met by the unwinder), so
# nothing is compared with it; the test only notes what it did.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/libcalls-lib.bash"
[ -f "$LIB" ] || skip "no $LIB"
unset CALLTRACE_LIBCALLS   # the default

build_traced "$T/cancel" "$PROGRAMS/libcalls_cancel.c"
g++ -O1 -g -finstrument-functions -o "$T/cxx" "$PROGRAMS/libcalls_cancel_cxx.cpp" -lpthread
expect_eq "C: the program itself" "canceled=3 cleaned=3 after=1" "$("$T/cancel")"
expect_eq "C++: the program itself" "canceled=1 dtors=2" "$("$T/cxx")"

out=$(CALLTRACE_OUTPUT="$T/c.raw" LD_PRELOAD="$LIB" "$T/cancel" 2>"$T/err")
expect_eq "C: output" "canceled=3 cleaned=3 after=1" "$out"
expect_eq "C: stderr" "" "$(cat "$T/err")"
thread_trees "$T/c.raw" > "$T/c.trees"
main_tree() {
    echo main
    echo "  pipe@plt"
    for _ in 1 2 3; do printf '%s\n' "  pthread_create@plt" "  usleep@plt" \
        "  pthread_cancel@plt" "  pthread_join@plt"; done
    printf '%s\n' "  after_cancel" "    getpid@plt" "  printf@plt"
}
expect_eq "C: main thread's tree" "$(main_tree)" "$(tree_of "$T/c.trees" 1)"
expect_eq "C: the thread in read" "$(printf '%s\n' in_read \
    "  __sigsetjmp@plt" "  __pthread_register_cancel@plt" "  read@plt" "  cleanup" \
    "  __pthread_unwind_next@plt")" "$(tree_of "$T/c.trees" 2)"
expect_eq "C: the thread in nanosleep" "$(printf '%s\n' in_sleep \
    "  __sigsetjmp@plt" "  __pthread_register_cancel@plt" "  nanosleep@plt" "  cleanup" \
    "  __pthread_unwind_next@plt")" "$(tree_of "$T/c.trees" 3)"
expect_eq "C: the thread in pthread_cond_wait" "$(printf '%s\n' in_wait \
    "  pthread_mutex_lock@plt" "  __sigsetjmp@plt" "  __pthread_register_cancel@plt" \
    "  pthread_cond_wait@plt" "  unlock" "    pthread_mutex_unlock@plt" \
    "    cleanup" "  __pthread_unwind_next@plt")" "$(tree_of "$T/c.trees" 4)"
# The library call ends before its handler begins (--dump, in time order).
for th in 2 3 4; do
    "$REPORT_SAN" --dump "$T/c.raw" | awk -v th="$th" '
        $2 == "R" th && $3 ~ /^(read|nanosleep|pthread_cond_wait)@plt$/ { ended = 1 }
        $2 == "C" th && ($3 == "cleanup" || $3 == "unlock") && !seen++ { ok = ended }
        END { exit !ok }' || fail "C: thread $th: its handler began before the library call ended"
done
"$REPORT_SAN" -b "$T/c.raw" > "$T/c.rep"
grep -q "Lost events: 0" "$T/c.rep" || fail "C: lost events"
# Each cancelled thread leaves its function and __pthread_unwind_next open.
grep -q "0 returns with no call, 0 calls with no return, 6 frames open at the end" "$T/c.rep" ||
    fail "C: $(grep Unmatched "$T/c.rep")"

# pthread_exit under a cleanup handler lands at the handler's buffer too:
# leave() and pthread_exit@plt end before the handler runs in in_exit.
build_traced "$T/exit" "$PROGRAMS/libcalls_exit_cleanup.c"
out=$(CALLTRACE_OUTPUT="$T/e.raw" LD_PRELOAD="$LIB" "$T/exit" 2>"$T/err")
expect_eq "exit: output" "exited=1 cleaned=1" "$out"
thread_trees "$T/e.raw" > "$T/e.trees"
expect_eq "exit: the thread" "$(printf '%s\n' in_exit \
    "  __sigsetjmp@plt" "  __pthread_register_cancel@plt" "  getpid@plt" "  leave" \
    "    pthread_exit@plt" "  cleanup" "  __pthread_unwind_next@plt")" \
    "$(tree_of "$T/e.trees" 2)"

out=$(CALLTRACE_OUTPUT="$T/x.raw" LD_PRELOAD="$LIB" "$T/cxx" 2>"$T/err")
expect_eq "C++: output (both destructors ran)" "canceled=1 dtors=2" "$out"
expect_eq "C++: stderr" "" "$(cat "$T/err")"
thread_trees "$T/x.raw" > "$T/x.trees"
expect_eq "C++: the cancelled thread" "$(printf '%s\n' "worker(void*)" \
    "  blocked()" "    read@plt" "    guard::~guard()" \
    "  _Unwind_Resume@plt" "  guard::~guard()" "_Unwind_Resume@plt")" \
    "$(tree_of "$T/x.trees" 2)"

if command -v uftrace >/dev/null 2>&1; then
    for p in cancel cxx; do
        set +e
        timeout 120 uftrace record -d "$T/u-$p" "$T/$p" > "$T/u-$p.out" 2>&1
        rc=$?
        set -e
        echo "note: uftrace record $p: exit status $rc"
    done
fi
echo ok
