#!/usr/bin/env bash
# The attacks tried against the tracer, each rerun RUNS times (default 3):
# every attack is an end-to-end test of tests/e2e/ that fails on any harm
# to the program (changed output, status, files, descriptors, signals,
# children, a crash or a hang) and, where it counts events, on any event
# neither recorded nor counted lost.  Prints the table of
# docs/reliability.md ("Attacks"), one row per attack:
#
#     bench/attacks.sh [RUNS] [NAME...]     # NAME: only those tests
#
# Some attacks need root (mounts, chroot, prlimit); a test that cannot run
# here is shown as skipped, never as survived.
set -u
cd "$(dirname "$0")/.."
RUNS=${1:-3}
[ $# -gt 0 ] && shift
export CT_ROOT=$PWD
export CT_BUILD=$(cd "${BUILD:-build}" && pwd)
[ -f "$CT_BUILD/libcalltrace.so" ] || { echo "make first" >&2; exit 1; }

# test | the attack | whether the test checks recorded + lost = made
ATTACKS='
trace_fd_race|dup2 of the program'"'"'s own file over the tracer'"'"'s descriptors, 8 threads, 4K blocks|no
trace_storage|trace truncated mid-run, also on btrfs and overlayfs; full tmpfs; full ext2 without fallocate|yes
trace_paths|chdir, chroot, a mount namespace over the trace'"'"'s folder|yes
trace_stack_use|every tracer path on a stack 1 KiB above the program'"'"'s need, sigaltstack handlers|no
trace_notsc|PR_SET_TSC to SIGSEGV, seccomp strict mode|no
trace_clone|raw clone with and without CLONE_VM, vfork, syscall(SYS_clone)|yes
trace_aslimit|ulimit -v at the program'"'"'s own peak plus 2 to 64 MiB|yes
sample_eintr|nanosleep, poll, select, epoll_wait, sigtimedwait while sampling|no
trace_sigview|the program sets, queries and restores every signal the tracer holds; handlers that repair faults|no
trace_helpers|a program that reaps every child with waitpid(-1, __WALL) and counts SIGCHLD, supplier and stream on|no
trace_uninstrumented|sh, dash, ls under LD_PRELOAD: no file, no word|no
frontend_staging|ls -A and tar of the working directory during record; read-only folder|no
frontend_static_san|static, AddressSanitizer and ThreadSanitizer programs under record|no
frontend_daemon|a double-forked daemon under record, --timeout, Ctrl-C|yes
trace_exit_busy|exit() and exec while 8 workers switch blocks|yes
trace_tsan|ThreadSanitizer build of the tracer, 16 threads with library calls|no
trace_coroutines|swapcontext ping-pong, coroutines in two threads, 4K blocks|yes
views_full_tmpfs|reading a trace with holes on a full tmpfs, every view and top|no
trace_stress|64 threads, short threads, forks, asynchronous signals with instrumented handlers|yes
trace_fds|closing and dup2 over every descriptor, close_range, a daemon closing all|yes
trace_signal_start|300 threads signalled during their first event|yes
trace_exits|every way out: exit from a thread, _exit, quick_exit, abort, exec from a thread|no
trace_fsize|ulimit -f below the trace'"'"'s size|yes
trace_lost_failure|descriptor limit, setuid, removal of the trace|yes
libcalls_reenter|a library call re-entered during its lazy binding (qsort in its comparator); 1100 library calls open at once|yes
'

echo "| attack | test | runs | survived | skipped | uncounted loss checked |"
echo "|---|---|---|---|---|---|"
while IFS='|' read -r name what counts; do
    [ -n "$name" ] || continue
    if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$name"; then
        continue
    fi
    ok=0; skipped=0
    for _ in $(seq 1 "$RUNS"); do
        bash "tests/e2e/$name.sh" >/dev/null 2>&1
        case $? in 0) ok=$((ok + 1));; 77) skipped=$((skipped + 1));; esac
    done
    echo "| $what | \`$name.sh\` | $RUNS | $ok | $skipped | $counts |"
done <<<"$ATTACKS"
