#!/usr/bin/env bash
# The reproduction loops of docs/reliability.md ("Reproduction loops"):
# each defect class of the harm and loss issues, rerun as the end-to-end
# tests of tests/e2e/ that keep it fixed, RUNS times (default 100; the
# descriptor race runs its program 10 x RUNS times, 1000 by default, in
# one pass of its test).  A run holds when the test passes: the program's
# output, status, files, descriptors, signals and children unchanged and,
# where the test counts, every event recorded or counted lost.
#
#     bench/repro_loops.sh [RUNS] [TEST...]     # TEST: only those tests
#
# Prints one table row per test; the output of a failed run is kept, and
# named on stderr.  Some tests need root (mounts, chroot,
# prlimit): a test that cannot run here is shown as skipped, never as
# held.  Run it under `nice` on a shared machine.
set -u
cd "$(dirname "$0")/.." || exit 1
RUNS=${1:-100}
[ $# -gt 0 ] && shift
export CT_ROOT=$PWD
CT_BUILD=$(cd "${BUILD:-build}" && pwd) || exit 1
export CT_BUILD
[ -f "$CT_BUILD/libcalltrace.so" ] || { echo "make first" >&2; exit 1; }

# test | the classes of issues 20 and 21 it keeps (issue.item)
LOOPS='
trace_fd_race|20.1 the trace written into the program'"'"'s own file (dup2 race)
trace_storage|20.2 SIGBUS from the trace'"'"'s mapping: truncation, full ext2 without fallocate, full tmpfs
trace_stack_use|20.3 small alternate signal stacks
trace_notsc|20.4 a program that turns off the TSC (prctl, seccomp strict)
trace_clone|20.5, 21.3 raw clone with and without CLONE_VM, vfork
trace_aslimit|20.6 an address-space limit
sample_eintr|20.7 sampling and EINTR
trace_sigview|20.8 the program'"'"'s own signal dispositions
trace_helpers|20.8 the tracer'"'"'s helpers are not the program'"'"'s children
trace_uninstrumented|20.8 uninstrumented processes leave no file and say nothing
frontend_staging|20.8 record'"'"'s staging folder out of the program'"'"'s sight
frontend_static_san|20.9 static and sanitized programs
frontend_daemon|21.1 a double-forked daemon under record
trace_paths|21.2 chroot, mount namespace, chdir
trace_exit_busy|21.4 exit and exec while threads switch blocks
trace_tsan|21.4 ThreadSanitizer build of the tracer
trace_coroutines|21.5 swapcontext coroutines
trace_coroutine_nomem|21.5 a coroutine whose frames cannot be kept
views_damaged_header|21.7 absurd lost counts saturate
views_full_tmpfs|21.8 a trace with holes on a full tmpfs, every view
trace_filter_uftrace|21.9 an include filter with an :on trigger inside it
'

# The output of each failed run is kept here (named on stderr).
LOGS=$(mktemp -d "${TMPDIR:-/tmp}/ct-loops.XXXXXX")
echo "| class (issue.item) | test | runs | held | failed | skipped |"
echo "|---|---|---|---|---|---|"
while IFS='|' read -r name what; do
    [ -n "$name" ] || continue
    if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$name"; then
        continue
    fi
    ok=0; bad=0; skipped=0; n=$RUNS; passes=$RUNS
    if [ "$name" = trace_fd_race ]; then
        # one pass of the test runs the race program n times
        n=$((RUNS * 10)); passes=1
        export CT_FD_RACE_RUNS=$n
    fi
    for i in $(seq 1 "$passes"); do
        bash "tests/e2e/$name.sh" > "$LOGS/run.out" 2>&1
        case $? in 0) ok=$((ok + 1));; 77) skipped=$((skipped + 1));;
            *) bad=$((bad + 1))
               # what the failed run said, to find out why
               mv "$LOGS/run.out" "$LOGS/$name.$i.out"
               echo "  $name run $i failed: $LOGS/$name.$i.out" >&2 ;;
        esac
    done
    unset CT_FD_RACE_RUNS
    if [ "$name" = trace_fd_race ]; then
        # the test stops at the first harmed run
        [ $ok = 1 ] && ok=$n
        [ $bad = 1 ] && bad="1 or more"
        [ $skipped = 1 ] && skipped=$n
    fi
    echo "| $what | \`$name.sh\` | $n | $ok | $bad | $skipped |"
done <<<"$LOOPS"
