#!/usr/bin/env bash
# calltrace record waits for the traced processes a program leaves running
# (a double-forked daemon) before it moves the recording into place; a
# --timeout or Ctrl-C ends the wait, names those still running, and keeps
# their traces as far as they got.  The exit status is the program's.
. "$(dirname "$0")/lib.sh"
[ -x "$FRONT" ] || fail "no $FRONT"
build_traced "$T/daemon" "$PROGRAMS/frontend_daemon.c"
cd "$T"
tick_calls() { # calls of tick in recording $1, all processes
    "$FRONT" report -b -p "$1" | awk 'NF > 1 && $(NF-1) == "tick" { n += $4 } END { print n + 0 }'
}

# The daemon's 1000 calls are in the recording; the status is the first
# process's.
set +e
"$FRONT" record -o d.raw ./daemon "$T/done" 3 >/dev/null 2>err.txt; rc=$?
set -e
expect_eq "exit status" 3 "$rc"
[ -e done ] || fail "record ended before the daemon: $(cat err.txt)"
expect_eq "the daemon's calls" 1000 "$(tick_calls d.raw)"
if grep -q "cannot write trace" err.txt; then fail "the tracer lost its file: $(cat err.txt)"; fi

# --timeout: the daemon still runs; it is named, its calls so far are kept.
rm -f done go
set +e
"$FRONT" record --timeout=0.5 -o t.raw ./daemon "$T/done" 4 hang "$T/go" >/dev/null 2>err.txt; rc=$?
set -e
touch go
expect_eq "exit status after --timeout" 4 "$rc"
grep -q "^calltrace: process [0-9]* (daemon) still runs after the --timeout" err.txt ||
    fail "the daemon was not named: $(cat err.txt)"
expect_eq "the daemon's calls up to the timeout" 100 "$(tick_calls t.raw)"

# Ctrl-C while record waits: the same.
rm -f done go
set -m
"$FRONT" record -o c.raw ./daemon "$T/done" 0 hang "$T/go" >/dev/null 2>err.txt &
pid=$!
set +m
for _ in $(seq 300); do [ -e done ] && break; sleep 0.1; done
[ -e done ] || { kill -KILL -- "-$pid"; touch go; fail "the daemon did not start"; }
kill -INT -- "-$pid"
set +e; wait "$pid"; rc=$?; set -e
touch go
expect_eq "exit status after Ctrl-C" 0 "$rc"
grep -q "^calltrace: process [0-9]* (daemon) still runs after Ctrl-C" err.txt ||
    fail "the daemon was not named after Ctrl-C: $(cat err.txt)"
expect_eq "the daemon's calls up to Ctrl-C" 100 "$(tick_calls c.raw)"

# --timeout wants a time.
set +e
"$FRONT" record --timeout=soon ./daemon x >/dev/null 2>err.txt; rc=$?
set -e
expect_eq "bad --timeout" 1 "$rc"
grep -q "timeout wants a time" err.txt || fail "bad --timeout: $(cat err.txt)"
echo "frontend_daemon: ok"
