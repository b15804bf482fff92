#!/usr/bin/env bash
# The same programs under uftrace (where it is installed): `uftrace replay`
# and `calltrace-report --tree` give the same call tree per thread, and the
# same time order of the two threads' turns.  Differences, and why:
#  - uftrace records calls into shared libraries through the PLT by default
#    (sem_wait, pthread_create, ...; gcc -pg's __monstartup, __cxa_atexit):
#    both trees are reduced to the program's own functions (KEEP), callees
#    of a left-out call nested in its caller, as --hide does;
#  - the two tools trace two different runs, so the threads' start order
#    (decided by the scheduler) may differ: each thread's tree is compared
#    as a whole, the set of them sorted; the turns are fixed by semaphores;
#  - uftrace keeps about 1024 levels of a thread's stack (its --max-stack;
#    asking for more did not help with the version tried): the deep case
#    recurses 1000 levels, calltrace's own tests go to 10000;
#  - durations differ (different runs, different tracers): not compared.
. "$(dirname "$0")/lib.sh"
command -v uftrace > /dev/null || skip "uftrace is not installed"
CHECK="python3 $CT_ROOT/tests/e2e/views_check.py"

# two threads taking turns
KEEP=main,worker_a,worker_b,step_a,step_b,leaf
build_traced "$T/threads" "$PROGRAMS/views_threads.c"
gcc -std=gnu11 -O1 -g -pg -o "$T/threads.pg" "$PROGRAMS/views_threads.c" -lpthread
run_traced "$T/t.raw" "$T/threads" || fail "views_threads failed"
"$REPORT_SAN" --tree "$T/t.raw" > "$T/ct.tree" || fail "--tree failed"
(cd "$T" && uftrace record -d "$T/u.data" "$T/threads.pg" > /dev/null 2>&1) ||
    skip "uftrace record does not work here"
uftrace replay -d "$T/u.data" > "$T/u.tree" 2> "$T/u.err" || fail "uftrace replay"
$CHECK thread-trees "$T/ct.tree" $KEEP > "$T/ct.trees"
$CHECK thread-trees "$T/u.tree" $KEEP > "$T/u.trees"
[ "$(wc -l < "$T/u.trees")" -eq 3 ] || fail "uftrace: $(cat "$T/u.trees")"
cmp -s "$T/ct.trees" "$T/u.trees" ||
    fail "per-thread trees differ: $(diff "$T/u.trees" "$T/ct.trees" | head)"
steps() { $CHECK tree-calls "$1" $KEEP | awk '$3 ~ /^step_/ {print $3}' | tr '\n' ' '; }
expect_eq "turns" "$(steps "$T/u.tree")" "$(steps "$T/ct.tree")"

# deep recursion
build_traced "$T/deep" "$PROGRAMS/views_deep.c"
gcc -std=gnu11 -O1 -g -pg -o "$T/deep.pg" "$PROGRAMS/views_deep.c"
run_traced "$T/d.raw" "$T/deep" 1000 || fail "views_deep failed"
"$REPORT_SAN" --tree "$T/d.raw" > "$T/ct.deep" || fail "--tree failed"
(cd "$T" && uftrace record -d "$T/d.data" "$T/deep.pg" 1000 \
    > /dev/null 2>&1) || fail "uftrace record deep"
uftrace replay -d "$T/d.data" > "$T/u.deep" 2> /dev/null || fail "uftrace replay deep"
$CHECK thread-trees "$T/ct.deep" main,deep > "$T/ct.deep.trees"
$CHECK thread-trees "$T/u.deep" main,deep > "$T/u.deep.trees"
cmp -s "$T/ct.deep.trees" "$T/u.deep.trees" || fail "deep: trees differ"
echo "uftrace and calltrace: the same trees per thread"
