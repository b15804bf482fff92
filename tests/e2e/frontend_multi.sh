#!/usr/bin/env bash
# Several processes make one recording: a shell script running two traced
# programs, a fork, an exec.  calltrace report reads it one section per
# process, or merged.
. "$(dirname "$0")/lib.sh"
[ -x "$FRONT" ] || fail "no $FRONT"
build_traced "$T/app" "$PROGRAMS/frontend_app.c"
cd "$T"
calls() { awk 'NF > 1 && $(NF-1) == "work" { print $4 }'; }
sections() { grep -c '^==== Process [0-9]*: .*app (.*/calltrace-[0-9]*\.raw.*) ====$'; }

# A script running the program twice (4 and 6 calls); the shell itself is
# not instrumented and leaves no trace in the recording.
printf '#!/bin/sh\n./app exit 0 4\n./app exit 0 6\nexit 7\n' > two.sh
chmod +x two.sh
set +e
"$FRONT" record ./two.sh >/dev/null 2>err.txt; rc=$?
set -e
expect_eq "script's exit status" 7 "$rc"
[ -d calltrace.raw ] || fail "calltrace.raw is not a folder of traces"
expect_eq "traces" 2 "$(ls calltrace.raw | wc -l)"
grep -q "2 threads, 2 processes$" err.txt || fail "closing line: $(cat err.txt)"
"$FRONT" report -b -p > sections.txt
expect_eq "sections" 2 "$(sections < sections.txt)"
expect_eq "calls per section" "4 6" "$(calls < sections.txt | xargs)"
expect_eq "merged calls" 10 "$("$FRONT" report --merge -b -p | calls)"
"$FRONT" report --merge > merged.txt
expect_eq "merged threads" 2 "$(grep -c 'V2\? process [0-9]* starts' <("$FRONT" dump --merge))"
grep -q "^ Threads: 2 " merged.txt || fail "merged report: $(grep Threads merged.txt)"
# Every view tells the same story: the tree has the same calls.
expect_eq "tree sections" 2 "$("$FRONT" tree | sections)"
# One output file for several processes needs --merge.
set +e
"$FRONT" export lms -o x.csv >/dev/null 2>err.txt; rc=$?
set -e
expect_eq "export of a folder without --merge" 1 "$rc"
grep -q "needs --merge" err.txt || fail "no hint: $(cat err.txt)"
"$FRONT" export lms --merge -o merged.csv
expect_eq "exported merge" 10 "$("$REPORT" -b -p merged.csv | calls)"

# The previous folder is kept as calltrace.raw.old, and replaced in turn.
"$FRONT" record -q ./app exit 0 3 >/dev/null 2>&1
[ -d calltrace.raw.old ] && [ -f calltrace.raw ] || fail "folder not kept as .old"
"$FRONT" record -q ./app exit 0 3 >/dev/null 2>&1
[ -f calltrace.raw.old ] || fail ".old folder not replaced"

# fork: parent 3 calls, child 4.
"$FRONT" record -q -o fork.raw ./app fork >/dev/null 2>&1
expect_eq "fork: traces" 2 "$(ls fork.raw | wc -l)"
expect_eq "fork: calls per process" "3 4" "$("$FRONT" report -b -p fork.raw | calls | xargs)"
expect_eq "fork: merged" 7 "$("$FRONT" report --merge -b -p fork.raw | calls)"

# exec: 2 calls, then the same pid runs the program again (5 calls).
"$FRONT" record -q -o exec.raw ./app exec 2 >/dev/null 2>&1
expect_eq "exec: traces" 2 "$(ls exec.raw | wc -l)"
expect_eq "exec: calls in start order" "2 5" "$("$FRONT" report -b -p exec.raw | calls | xargs)"
expect_eq "exec: merged" 7 "$("$FRONT" report --merge -b -p exec.raw | calls)"
echo "frontend_multi: ok"
