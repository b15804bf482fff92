#!/usr/bin/env bash
# calltrace control PID on|off|status|snapshot against a running process
# (CALLTRACE_CONTROL=1), with exact counts: a process started paused
# records only the phases run while switched on.  Malformed commands get
# a clear refusal and change nothing.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/control-lib.bash"
[ -f "$LIB" ] || fail "no $LIB"
[ -x "$FRONT" ] || fail "no $FRONT"
build_traced "$T/ph" "$PROGRAMS/control_phases.c"
mkfifo "$T/in"

CALLTRACE_CONTROL=1 CALLTRACE_START_PAUSED=1 CALLTRACE_OUTPUT=$T/ph.raw \
    LD_PRELOAD=$LIB "$T/ph" < "$T/in" > "$T/out" &
pid=$!
exec 3> "$T/in"
trap 'exec 3>&-; kill -9 $pid 2>/dev/null || true; rm -rf "$T"' EXIT
phase() { echo "$1 $2" >&3; waitfor "done $1"; }
ctl() { "$FRONT" control $pid "$@"; }

waitfor ready
wait_control_socket $pid
expect_eq "folder mode" 700 "$(stat -c %a "$(dirname "$sock")")"
case $(ctl status) in "pid=$pid tracing=off flight=off "*) ;;
    *) fail "status: $(ctl status)";; esac
phase a 100
expect_eq "on" "tracing on" "$(ctl on)"
phase b 200
expect_eq "off" "tracing off" "$(ctl off)"
phase c 300

# Refusals: a clear line, status 2, nothing changed.
set +e
ctl bogus 2> "$T/e1"; r1=$?
ctl "on off" 2> "$T/e2"; r2=$?
ctl 2> "$T/e3"; r3=$?
"$FRONT" control 99999999999 on 2> "$T/e4"; r4=$?
set -e
expect_eq "unknown: status" 2 "$r1"
grep -q "calltrace: control $pid: unknown command 'bogus'; expected on, off, snapshot, status, filter SPEC or patch SPEC" "$T/e1" || fail "unknown: $(cat "$T/e1")"
expect_eq "two words: status" 2 "$r2"
expect_eq "no command: status" 1 "$r3"
expect_eq "bad pid: status" 1 "$r4"
# Raw bytes no client would send: a NUL, no newline at all, too long.
python3 - "$sock" > "$T/raw" <<'PY'
import socket, sys
for msg in (b"o\0n\n", b"on", b"x" * 5000):
    s = socket.socket(socket.AF_UNIX)
    s.connect(sys.argv[1])
    s.sendall(msg)
    s.shutdown(socket.SHUT_WR)
    print(s.recv(4096).decode().strip())
    s.close()
PY
expect_eq "raw answers" "error malformed command: a NUL byte
error malformed command: expected one line shorter than 4096 bytes
error malformed command: expected one line shorter than 4096 bytes" "$(cat "$T/raw")"
case $(ctl status) in "pid=$pid tracing=off "*) ;;
    *) fail "status after refusals: $(ctl status)";; esac
# A bad filter changes nothing; a good one holds from the next call on.
set +e; ctl filter 're:(' 2> "$T/e5"; r5=$?; set -e
expect_eq "bad filter: status" 2 "$r5"
has "calltrace: control $pid: filter: " "$T/e5" || fail "bad filter: $(cat "$T/e5")"
ctl filter '-phase_d' > "$T/f" || fail "filter: $(cat "$T/f")"
# A running process after a snapshot: it goes on.
snap=$(ctl snapshot)
case $snap in "snapshot $T/ph.raw.snap1") ;; *) fail "snapshot: $snap";; esac

expect_eq "on again" "tracing on" "$(ctl on)"
phase d 400
echo exit >&3
exec 3>&-
wait $pid || fail "program status $?"
[ ! -e "$sock" ] || fail "socket left behind"

"$REPORT_SAN" -b "$T/ph.raw" > "$T/r.txt" || fail "report"
calls() { awk -v n="$2" '/^Flat profile/ { f = 1 } /Call graph/ { f = 0 }
    f && NF > 2 && $(NF-1) == n { print $4 }' "$1"; }
expect_eq "phase_a (paused)" "" "$(calls "$T/r.txt" phase_a)"
expect_eq "phase_b (on)" 200 "$(calls "$T/r.txt" phase_b)"
expect_eq "phase_c (off)" "" "$(calls "$T/r.txt" phase_c)"
expect_eq "phase_d (on again, left out by -phase_d)" "" "$(calls "$T/r.txt" phase_d)"
has "excluded by -phase_d" "$T/r.txt" || fail "summary: $(grep -i filter "$T/r.txt")"
# The switches are in the trace, though the paused calls took no slow path.
gcc -std=gnu11 -O1 -I"$CT_ROOT/include" -o "$T/dec" "$PROGRAMS/ct_decode.c"
"$T/dec" "$T/ph.raw" > "$T/dec.txt" || fail "decode: $(tail -n 1 "$T/dec.txt")"
expect_eq "toggles" "1 0 1" "$(awk '$3=="T"{print $4}' "$T/dec.txt" | paste -sd' ')"
"$REPORT_SAN" -b "$T/ph.raw.snap1" > "$T/s.txt" || fail "snapshot report"
expect_eq "snapshot phase_b" 200 "$(calls "$T/s.txt" phase_b)"
expect_eq "snapshot phase_d" "" "$(calls "$T/s.txt" phase_d)"

# Without CALLTRACE_CONTROL: no socket, and the control verb says why.
echo exit | CALLTRACE_OUTPUT=$T/n.raw LD_PRELOAD=$LIB "$T/ph" > /dev/null
set +e; ctl status 2> "$T/e6"; set -e
grep -q "no such process\|no control channel" "$T/e6" || fail "gone: $(cat "$T/e6")"
echo ok
