#!/usr/bin/env bash
# The trace goes on when its path is taken away: the file keeper holds the
# file open in a table of its own, with its own root and working directory
# (docs/tracer.md, "The program's descriptors and signals").  A program
# that chdirs (a relative trace name), chroots, or mounts over the trace's
# folder in a mount namespace of its own: no line, every call recorded,
# nothing lost.  Before, a chroot stopped tracing with "the file was
# removed or replaced" (untrue) and about half the calls missing with
# "Lost events: 0".
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || fail "no $LIB"
build_traced "$T/prog" "$PROGRAMS/path_change.c"
N=200000
check() {  # NAME TRACE: the run's output in $T/out, its stderr in $T/err
    expect_eq "$1: output" "f=$((2 * N))" "$(cat "$T/out")"
    [ ! -s "$T/err" ] || fail "$1: tracer spoke: $(cat "$T/err")"
    "$REPORT" -b -p "$2" > "$T/report" 2>&1 || fail "$1: report: $(tail -n 2 "$T/report")"
    expect_eq "$1: calls of f" $((2 * N)) \
        "$(awk 'NF > 1 && $(NF-1) == "f" && $4 ~ /^[0-9]+$/ {print $4}' "$T/report")"
    expect_eq "$1: lost" 0 "$(awk '/^ Lost events:/ {print $3}' "$T/report")"
}

# A relative name, and a chdir: the trace stays where it was made.
mkdir "$T/start" "$T/elsewhere"
(cd "$T/start" && CALLTRACE_OUTPUT=t.raw LD_PRELOAD=$LIB "$T/prog" chdir "$T/elsewhere" $N \
    > "$T/out" 2> "$T/err") || fail "chdir: status $?: $(cat "$T/err")"
check chdir "$T/start/t.raw"
expect_eq "chdir: nothing made elsewhere" "" "$(ls "$T/elsewhere")"

[ "$(id -u)" = 0 ] || { echo "ok (chroot and the mount namespace need root)"; exit 0; }
mkdir "$T/jail" "$T/traces"
CALLTRACE_OUTPUT="$T/traces/t.raw" LD_PRELOAD=$LIB "$T/prog" chroot "$T/jail" $N \
    > "$T/out" 2> "$T/err" || fail "chroot: status $?: $(cat "$T/err")"
check chroot "$T/traces/t.raw"

rm -rf "$T/traces"; mkdir "$T/traces"
set +e
CALLTRACE_OUTPUT="$T/traces/t.raw" LD_PRELOAD=$LIB "$T/prog" mountns "$T/traces" $N \
    > "$T/out" 2> "$T/err"; rc=$?
set -e
if [ $rc = 2 ] && has '^mountns' "$T/err"; then
    echo "no mount namespace here ($(cat "$T/err")): that part skipped"
else
    expect_eq "mount namespace: status" 0 "$rc"
    check "mount namespace" "$T/traces/t.raw"
fi
echo "ok: the trace goes on when its path is taken away"
