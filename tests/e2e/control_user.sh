#!/usr/bin/env bash
# calltrace control from another user is refused and changes nothing: by
# the socket folder's mode (0700), and, should that be opened up, by the
# tracer's own SO_PEERCRED check.  Needs root to act as nobody.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/control-lib.bash"
[ -f "$LIB" ] || fail "no $LIB"
[ -x "$FRONT" ] || fail "no $FRONT"
if [ "$(id -u)" = 0 ] && setpriv --reuid=nobody --regid=nogroup --clear-groups true 2>/dev/null; then
    as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
elif [ "$(id -u)" = 0 ] && su -s /bin/sh nobody -c true 2>/dev/null; then
    as_nobody() { su -s /bin/sh nobody -c "$(printf '%q ' "$@")"; }
else
    skip "cannot run a command as nobody (needs root and setpriv or su)"
fi
build_traced "$T/ph" "$PROGRAMS/control_phases.c"
# A copy of the front end that nobody may run, and a place to write to.
PUB=$(mktemp -d "${TMPDIR:-/tmp}/ct-pub.XXXXXX")
chmod 755 "$PUB"
cp "$FRONT" "$PUB/calltrace"
mkfifo "$T/in"
CALLTRACE_CONTROL=1 CALLTRACE_OUTPUT=$T/ph.raw LD_PRELOAD=$LIB "$T/ph" < "$T/in" > "$T/out" &
pid=$!
exec 3> "$T/in"
trap 'exec 3>&-; kill -9 $pid 2>/dev/null || true; rm -rf "$T" "$PUB"' EXIT
waitfor ready
wait_control_socket $pid

set +e
as_nobody "$PUB/calltrace" control $pid off 2> "$PUB/e1"; r1=$?
set -e
expect_eq "folder refusal: status" 2 "$r1"
grep -q "calltrace: control $pid: permission denied" "$PUB/e1" || fail "folder refusal: $(cat "$PUB/e1")"

# The folder opened up by mistake: the tracer still refuses.
chmod 755 "$(dirname "$sock")"
chmod 777 "$sock"
set +e
as_nobody "$PUB/calltrace" control $pid off 2> "$PUB/e2"; r2=$?
set -e
chmod 700 "$(dirname "$sock")"
expect_eq "credential refusal: status" 2 "$r2"
grep -q "calltrace: control $pid: permission denied: uid 65534 does not own process $pid" "$PUB/e2" ||
    fail "credential refusal: $(cat "$PUB/e2")"

# Nothing changed: still tracing, every call recorded.
case $("$FRONT" control $pid status) in "pid=$pid tracing=on "*) ;;
    *) fail "status: $("$FRONT" control $pid status)";; esac
echo "b 300" >&3
waitfor "done b"
echo exit >&3
exec 3>&-
wait $pid
"$REPORT_SAN" -b "$T/ph.raw" > "$T/r.txt" || fail "report"
expect_eq "phase_b" 300 "$(awk '/^Flat profile/ { f = 1 } /Call graph/ { f = 0 }
    f && NF > 2 && $(NF-1) == "phase_b" { print $4 }' "$T/r.txt")"
echo ok
