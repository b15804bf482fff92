#!/usr/bin/env bash
# CALLTRACE_OUTPUT naming something other than a regular file: a device, a
# FIFO or a socket stops tracing with one line and creates nothing; a
# directory receives calltrace-<pid>.raw.  The program runs unchanged.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || fail "no $LIB"
DEC=$T/ct_decode
gcc -std=gnu11 -O1 -I"$CT_ROOT/include" -o "$DEC" "$PROGRAMS/ct_decode.c"
build_traced "$T/calls" "$PROGRAMS/trace_calls.c" -no-pie
set +e
"$T/calls" > "$T/plain.out"; plain=$?
set -e
mkfifo "$T/fifo"
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$T/sock"
null_before=$(ls -d /dev/null* | wc -l)
check_refused() {  # NAME KIND
    set +e
    CALLTRACE_OUTPUT=$1 LD_PRELOAD=$LIB "$T/calls" > "$T/out" 2> "$T/err"; rc=$?
    set -e
    expect_eq "$1: status" "$plain" "$rc"
    cmp -s "$T/plain.out" "$T/out" || fail "$1: output differs"
    expect_eq "$1: message" "calltrace: cannot write trace to $1: it is $2, not a regular file; tracing stopped" "$(cat "$T/err")"
}
check_refused /dev/null "a character device"
expect_eq "/dev/null: nothing created" "$null_before" "$(ls -d /dev/null* | wc -l)"
check_refused "$T/fifo" "a FIFO"
check_refused "$T/sock" "a socket"
expect_eq "nothing beside them" "" "$(ls "$T" | grep -E '^(fifo|sock)\.' || true)"

mkdir "$T/dir"
set +e
CALLTRACE_OUTPUT=$T/dir LD_PRELOAD=$LIB "$T/calls" > "$T/out" 2> "$T/err"; rc=$?
set -e
expect_eq "dir: status" "$plain" "$rc"
expect_eq "dir: quiet" "" "$(cat "$T/err")"
raw=$(ls "$T/dir")
case $raw in calltrace-[0-9]*.raw) ;; *) fail "dir: file '$raw'";; esac
"$DEC" "$T/dir/$raw" > "$T/dir.txt" || fail "dir: decode"
tail -n 1 "$T/dir.txt" | has "check ok" || fail "dir: $(tail -n 1 "$T/dir.txt")"
echo ok
