#!/usr/bin/env bash
# Children started with an environment of their own are traced: each of
# posix_spawn, posix_spawnp, execve, execvpe, execle, fexecve, vfork +
# execve (envp without LD_PRELOAD or CALLTRACE_*), and execv, system and
# popen after clearenv start an instrumented child.  The child's trace must
# exist and hold its calls; its other variables must be exactly what the
# program passed (the child prints them, compared with an untraced run);
# what the program already passed is never duplicated; CALLTRACE_FOLLOW=0
# leaves the child untraced and its environment untouched.
#
# Against uftrace 0.13 (`uftrace record` / `uftrace replay` on the same
# programs): it traces the children of posix_spawn, execve, fexecve and
# vfork + execve too (it also wraps them), but not those of execle (libc's
# execle reaches execve inside libc, where no wrapper sees it; calltrace
# rebuilds execle on execve) and not those of system and popen after
# clearenv (their shell gets the scrubbed environment; calltrace exports
# the settings at the head of the shell command).
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || fail "no $LIB"
build_traced "$T/child" "$PROGRAMS/spawn_child.c"
build_traced "$T/parent" "$PROGRAMS/spawn_parent.c"
cd "$T"

# child_trace DIR: the trace in DIR that holds child_work, or nothing.
child_trace() {
    local f
    for f in "$1"/*.raw*; do
        [ -e "$f" ] || continue
        "$REPORT_SAN" --dump "$f" | has ' C child_work$' && { echo "$f"; return; }
    done
}
ours() { grep -E '^E (LD_PRELOAD|CALLTRACE_)' || true; }
others() { grep -Ev '^E (LD_PRELOAD|CALLTRACE_)' || true; }

for how in spawn spawnp execve execvpe execle fexecve vfork execv system popen partial; do
    order=cat
    # The shell of system and popen lists its environment in its own order
    # (and adds PWD, traced or not).
    case $how in system|popen) order=sort;; esac
    mkdir "$T/$how" "$T/$how-off"
    # "partial" passes the last argument as CALLTRACE_OUTPUT: the same one
    # untraced and with CALLTRACE_FOLLOW=0, where nothing is written there.
    ./parent "$how" ./child "$T/$how-off/mine-%p.raw" > "$T/$how.plain" ||
        fail "$how: untraced run failed"
    CALLTRACE_OUTPUT="$T/$how/o-%p.raw" CALLTRACE_BUFSIZE=64K LD_PRELOAD=$LIB \
        ./parent "$how" ./child "$T/$how/mine-%p.raw" > "$T/$how.traced" ||
        fail "$how: traced run failed"
    expect_eq "$how: the child's other variables" \
        "$(others < "$T/$how.plain" | $order)" "$(others < "$T/$how.traced" | $order)"
    # lib.sh's CALLTRACE_LIBCALLS is one of the settings passed on.
    libcalls=${CALLTRACE_LIBCALLS+E CALLTRACE_LIBCALLS=$CALLTRACE_LIBCALLS}
    want_out="E CALLTRACE_OUTPUT=$T/$how/o-%p.raw"
    [ "$how" = partial ] && want_out="E CALLTRACE_OUTPUT=$T/$how/mine-%p.raw"
    expect_eq "$how: what the child got added" \
        "$(printf '%s\n' "E CALLTRACE_BUFSIZE=64K" ${libcalls:+"$libcalls"} "$want_out" "E LD_PRELOAD=$LIB")" \
        "$(ours < "$T/$how.traced" | sort)"
    trace=$(child_trace "$T/$how")
    [ -n "$trace" ] || fail "$how: no trace of the child in $(ls "$T/$how" | paste -sd' ')"
    [ "$how" = partial ] && case $trace in */mine-*) ;; *) fail "partial: the child's trace is $trace, not mine-*";; esac
    expect_eq "$how: the child's calls" "main() {|  child_work() {|    child_leaf();|  } /* child_work */|} /* main */" \
        "$("$REPORT_SAN" --tree "$trace" | sed -n 's/^.*\] | //p' | paste -sd'|')"

    CALLTRACE_FOLLOW=0 CALLTRACE_OUTPUT="$T/$how-off/o-%p.raw" LD_PRELOAD=$LIB \
        ./parent "$how" ./child "$T/$how-off/mine-%p.raw" > "$T/$how.off" ||
        fail "$how: run with CALLTRACE_FOLLOW=0 failed"
    expect_eq "$how: CALLTRACE_FOLLOW=0 leaves the environment" \
        "$($order < "$T/$how.plain")" "$($order < "$T/$how.off")"
    [ -z "$(child_trace "$T/$how-off")" ] || fail "$how: traced with CALLTRACE_FOLLOW=0"
    ls "$T/$how-off"/o-*.raw > /dev/null 2>&1 || fail "$how: no trace of the parent with CALLTRACE_FOLLOW=0"
done

# LD_PRELOAD already naming the library (by the name it was loaded by) is
# left as it is, and another preload is kept, ours appended.
printf '%s\n' '#include <unistd.h>' 'int main(int c, char **v) { (void)c;' \
    'char *a[] = {v[1], 0}; char *e[] = {v[2], "KEEP=1", 0};' \
    'execve(v[1], a, e); return 9; }' > "$T/pre.c"
gcc -o "$T/pre" "$T/pre.c"
CALLTRACE_OUTPUT="$T/p-%p.raw" LD_PRELOAD=$LIB ./pre ./child "LD_PRELOAD=$LIB" > "$T/pre.out"
expect_eq "LD_PRELOAD with us already" "E LD_PRELOAD=$LIB" "$(grep LD_PRELOAD "$T/pre.out")"
gcc -shared -fPIC -o "$T/other.so" -x c /dev/null
CALLTRACE_OUTPUT="$T/p-%p.raw" LD_PRELOAD=$LIB ./pre ./child "LD_PRELOAD=$T/other.so" > "$T/pre.out"
expect_eq "LD_PRELOAD with another library" "E LD_PRELOAD=$T/other.so:$LIB" "$(grep LD_PRELOAD "$T/pre.out")"
echo ok
