#!/usr/bin/env bash
# The front end says what is so: a mistyped verb is suggested, not run as
# a program; a program that does not exist is said so; control names where
# a snapshot will be once the run ends; top -- PROGRAM keeps the previous
# calltrace.raw as .old and ends on the whole run; --flight says when its
# ring is not the size asked for; Command: quotes the arguments as a shell
# would; a sampled profile's count column is headed samples; the closing
# line and the report count the same events.
. "$(dirname "$0")/lib.sh"
[ -x "$FRONT" ] || fail "no $FRONT"
build_traced "$T/app" "$PROGRAMS/frontend_app.c"
build_traced "$T/spin" "$PROGRAMS/live_spin.c"
cd "$T"

# A mistyped verb.
set +e
"$FRONT" repot >out.txt 2>err.txt; rc=$?
set -e
expect_eq "typo: status" 1 "$rc"
grep -q "^calltrace: 'repot' is neither a verb nor a program in PATH; did you mean 'report'?" err.txt ||
    fail "typo: $(cat err.txt)"
if grep -q "calltrace-record" err.txt; then fail "typo: the staging folder named"; fi
# A program that exists nowhere: said, nothing recorded, 127 as a shell.
set +e
"$FRONT" record no-such-program-here >out.txt 2>err.txt; rc=$?
set -e
expect_eq "missing program: status" 127 "$rc"
expect_eq "missing program: message" \
    "calltrace: cannot run no-such-program-here: no such program in PATH" "$(cat err.txt)"
[ ! -e calltrace.raw ] || fail "missing program: a recording"

# control: the path the snapshot will have once the run ends.
rm -f ready
"$FRONT" record -q --control --flight=8M -o ctl.raw ./app wait ready >/dev/null 2>&1 &
rec=$!
for _ in $(seq 200); do [ -e ready ] && break; sleep 0.05; done
[ -e ready ] || { kill "$rec"; fail "control: the program did not start"; }
pid=$(program_of "$rec")
snap=$("$FRONT" control "$pid" snapshot)
case $snap in
    "snapshot $T/ctl.raw.snap1 (until the run ends: "*"/.calltrace-record-"*"/calltrace-$pid.raw.snap1)") ;;
    *) fail "control snapshot: $snap";;
esac
st=$("$FRONT" control "$pid" status)
case $st in
    *" trace=$T/ctl.raw (until the run ends: "*) ;;
    *) fail "control status: $st";;
esac
kill -TERM "$rec"
set +e; wait "$rec"; set -e
[ -s ctl.raw.snap1 ] || fail "control: no ctl.raw.snap1 after the run"

# top -- PROGRAM: the previous calltrace.raw kept as .old, the new one where
# calltrace report looks; the last table is the whole run.
"$FRONT" record -q ./app exit 0 2 >/dev/null 2>&1
cp calltrace.raw before.raw
"$FRONT" top -i 0.2 -- ./spin spin 1 > top.txt 2>&1 || fail "top: status $?"
cmp -s before.raw calltrace.raw.old || fail "top: the previous trace is not calltrace.raw.old"
[ ! -e calltrace.raw.1 ] || fail "top: wrote calltrace.raw.1"
"$FRONT" report -b -p | has " hot " || fail "top: calltrace.raw is not the new trace"
last=$(grep '^sorted by ' top.txt | tail -n 1)
expect_eq "top: last table" "sorted by self time since start" "$last"

# --flight: the ring's real size when it is not the size asked for.
# The slots are made smaller for a small ring (16 of them, 64K at least),
# and there are at least 4 of them.
"$FRONT" record --flight=100K -o fl.raw ./app exit 0 1 >/dev/null 2>err.txt
grep -q "^calltrace: --flight=100K: the ring is 256K, whole blocks of 64K" err.txt ||
    fail "--flight note: $(cat err.txt)"
"$FRONT" record --flight=1000K -o fl.raw ./app exit 0 1 >/dev/null 2>err.txt
grep -q "^calltrace: --flight=1000K: the ring is 960K, whole blocks of 64K" err.txt ||
    fail "--flight note: $(cat err.txt)"
expect_eq "--flight=1000K: the slots" "15" \
    "$("$FRONT" report -b fl.raw | sed -n 's/.*flight recorder: ring of \([0-9]*\) blocks.*/\1/p')"
for exact in 1M 8M 3M; do
    "$FRONT" record --flight=$exact -o fl.raw ./app exit 0 1 >/dev/null 2>err.txt
    if grep -q -- "--flight" err.txt; then fail "--flight note for an exact ring: $exact"; fi
done

# Command: quoted as a shell would.
"$FRONT" record -q -o q.raw ./app exit 0 1 "a b" "" "it's" '$x' plain-1.2 >/dev/null 2>&1
expect_eq "Command" " Command: ./app exit 0 1 'a b' '' 'it'\\''s' '\$x' plain-1.2" \
    "$("$FRONT" report -b q.raw | grep '^ Command:')"

# A sampled profile: the count column is samples.
"$FRONT" record -q --sample=1ms -o s.raw ./app exit 0 1 >/dev/null 2>&1
"$FRONT" report -b -p s.raw | has "^ time .* samples .* name" ||
    fail "sampled heading: $("$FRONT" report -b -p s.raw | grep '^ time')"
"$FRONT" report -b -p q.raw | has "^ time .*    calls .* name" ||
    fail "measured heading: $("$FRONT" report -b -p q.raw | grep '^ time')"

# The closing line's events are the report's, with the clock's
# records in the trace (CPU time readings, --cputime=clock).
rm -f ready
"$FRONT" record --cputime=clock --filter=work -o ev.raw ./app wait ready >/dev/null 2>err.txt &
rec=$!
for _ in $(seq 200); do [ -e ready ] && break; sleep 0.05; done
sleep 0.2
kill -TERM "$rec"
set +e; wait "$rec"; set -e
closing=$(sed -n 's/^calltrace: wrote ev.raw (.*): \([0-9]*\) events.*/\1/p' err.txt)
report=$("$FRONT" report -b ev.raw | sed -n 's/^ Events: \([0-9]*\) .*/\1/p')
expect_eq "events: closing line = report" "$report" "$closing"
echo "frontend_truths: ok"
