#!/usr/bin/env bash
# calltrace record and the verb-less run: the program's exit status, output
# and signals pass through; the closing line counts what the report counts;
# the previous recording is kept as .old.
. "$(dirname "$0")/lib.sh"
[ -x "$FRONT" ] || fail "no $FRONT"
build_traced "$T/app" "$PROGRAMS/frontend_app.c"
cd "$T"
calls() { # calls of work in the flat profile of recording $1
    "$FRONT" report -b -p "$@" | awk 'NF > 1 && $(NF-1) == "work" { print $4 }'
}

# Exit status, stdout and stderr untouched, the closing line.
set +e
"$FRONT" record ./app exit 3 7 >out.txt 2>err.txt; rc=$?
set -e
expect_eq "exit status" 3 "$rc"
expect_eq "stdout" "out" "$(cat out.txt)"
expect_eq "program's stderr" "err" "$(grep -v '^calltrace:' err.txt)"
line=$(grep '^calltrace:' err.txt)
events=$("$REPORT" -b -p calltrace.raw | sed -n 's/^ Events: \([0-9]*\) .*/\1/p')
echo "$line" | has -E "^calltrace: wrote calltrace.raw \([0-9.]+ (MiB|KiB|bytes)\): $events events, 0 lost, 1 thread, 1 process$" ||
    fail "closing line: $line (the report counts $events events)"
expect_eq "work calls" 7 "$(calls)"
expect_eq "calltrace report = calltrace-report" "$("$REPORT" -b calltrace.raw)" "$("$FRONT" report -b)"

# The previous recording is kept as calltrace.raw.old, an older one dropped.
cp calltrace.raw first.raw
"$FRONT" record -q ./app exit 0 4 >/dev/null 2>&1
cmp -s first.raw calltrace.raw.old || fail "calltrace.raw.old is not the previous recording"
expect_eq "new recording" 4 "$(calls)"
"$FRONT" record -q ./app exit 0 5 >/dev/null 2>&1
expect_eq ".old after a third run" 4 "$(calls calltrace.raw.old)"
"$FRONT" record -q -o other.raw ./app exit 0 2 >/dev/null 2>&1
expect_eq "-o" 2 "$(calls other.raw)"
[ ! -e other.raw.old ] || fail "other.raw.old made from nothing"

# Standard input reaches the program.
expect_eq "stdin" "hello" "$(echo hello | "$FRONT" record -q ./app cat 2>/dev/null)"

# A program killed by a signal: 128 + the signal, and its trace kept.
set +e
"$FRONT" record ./app kill 15 >/dev/null 2>&1; rc=$?
set -e
expect_eq "killed by SIGTERM" 143 "$rc"
expect_eq "calls before the kill" 10 "$(calls)"

# Ctrl-C: SIGINT to the whole process group reaches the program first;
# calltrace waits for it and reports its death.
# (Job control: the job gets a process group of its own, and SIGINT is not
# ignored in it as it is in a non-interactive shell's background jobs.)
rm -f ready
set -m
"$FRONT" record -o int.raw ./app wait ready >/dev/null 2>err.txt &
pid=$!
set +m
for _ in $(seq 100); do [ -e ready ] && break; sleep 0.1; done
[ -e ready ] || { kill -KILL -- "-$pid"; fail "the program did not start"; }
kill -INT -- "-$pid"
set +e; wait "$pid"; rc=$?; set -e
expect_eq "Ctrl-C" 130 "$rc"
expect_eq "calls before Ctrl-C" 10 "$(calls int.raw)"

# kill PID of calltrace alone is handed on to the program.
rm -f ready
"$FRONT" record -q -o term.raw ./app wait ready >/dev/null 2>&1 &
pid=$!
for _ in $(seq 100); do [ -e ready ] && break; sleep 0.1; done
[ -e ready ] || { kill -KILL "$pid"; fail "the program did not start"; }
kill -TERM "$pid"
set +e; wait "$pid"; rc=$?; set -e
expect_eq "SIGTERM to calltrace" 143 "$rc"
expect_eq "calls before SIGTERM" 10 "$(calls term.raw)"

# No verb: record, then the report on stdout; the program's status.
set +e
"$FRONT" ./app exit 5 6 >run.txt 2>/dev/null; rc=$?
set -e
expect_eq "verb-less exit status" 5 "$rc"
expect_eq "verb-less output starts with the program's" "out" "$(head -n 1 run.txt)"
grep -q '^Flat profile:' run.txt || fail "verb-less run printed no report"
expect_eq "verb-less recording" 6 "$(calls)"

# A program not built for tracing: said, with the way out.
gcc -O1 -o plain "$PROGRAMS/frontend_app.c" -I"$CT_ROOT/include"
"$FRONT" record -o plain.raw ./plain exit 0 >/dev/null 2>err.txt
grep -q "plain was not built with -finstrument-functions.*--sample" err.txt ||
    fail "no note for an uninstrumented program: $(cat err.txt)"
if grep -q "not built" <("$FRONT" record -q -o x.raw ./app exit 0 2>&1); then
    fail "note for an instrumented program"
fi
# -q: not even that note (the program's own "err" line stays).
"$FRONT" record -q -o plainq.raw ./plain exit 0 >/dev/null 2>err.txt
! has calltrace err.txt || fail "record -q said: $(cat err.txt)"

# A program that records nothing at all (no instrumented code, no user
# event): its process makes no file, so there is no recording, and the
# line says so; the program's status passes through.
printf 'int main(void) { return 4; }\n' > nothing.c
gcc -O1 -o nothing nothing.c
set +e
"$FRONT" record -o nothing.raw ./nothing >/dev/null 2>err.txt; rc=$?
set -e
expect_eq "nothing recorded: status" 4 "$rc"
has "no process left a trace, so nothing.raw is not written" err.txt ||
    fail "nothing recorded: message: $(cat err.txt)"
[ ! -e nothing.raw ] || fail "nothing recorded: a recording was written"

# cflags builds a program that includes calltrace.h.
# shellcheck disable=SC2046
gcc $("$FRONT" cflags) -o app2 "$PROGRAMS/frontend_app.c"
"$FRONT" record -q -o app2.raw ./app2 exit 0 3 >/dev/null 2>&1
expect_eq "built with cflags" 3 "$(calls app2.raw)"
echo "frontend_record: ok"
