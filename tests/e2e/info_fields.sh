#!/usr/bin/env bash
# calltrace info: each field against what is known by construction: a
# program of three named threads (alpha, beta, gamma) calling their own
# function 2, 3 and 5 times, run with a known command line and settings.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "no $LIB: the tracer is not built"
build_traced "$T/app" "$PROGRAMS/info_threads.c"
cd "$T"
CALLTRACE_BUFSIZE=64K run_traced "$T/t.raw" ./app one 'two words' > out.txt ||
    fail "the program failed"
[ -s t.raw ] || skip "the tracer wrote no trace"
tid() { awk -v n="$1" '$1==n{print $2}' out.txt; }
"$FRONT" info t.raw > info.txt 2> err.txt || fail "info exit $?: $(cat err.txt)"
field() { sed -n "s/^$1: *//p" info.txt; }
expect_eq "command line" "./app one 'two words'" "$(field 'command line')"
expect_eq "program" "$T/app" "$(field program)"
expect_eq "pid" "$(tid main) (parent $$)" "$(field pid)"
expect_eq "state" "closed cleanly" "$(field state)"
expect_eq "mode" "trace (every call and return)" "$(field mode)"
expect_eq "size" "$(stat -c %s t.raw) bytes, $(($(stat -c %b t.raw) * $(stat -c %B t.raw))) on disk" "$(field size)"
field setting | sort > settings.txt
printf '%s\n' CALLTRACE_BUFSIZE=64K CALLTRACE_LIBCALLS=none \
    "CALLTRACE_OUTPUT=$T/t.raw" | cmp -s - settings.txt ||
    fail "settings: $(cat settings.txt)"
expect_eq "threads" 4 "$(field threads)"
# Each worker: worker() once and its function n times; main: main().
line() { grep "^  thread $1 " info.txt; }
for w in "alpha 3" "beta 4" "gamma 6"; do
    set -- $w
    line "$(tid "$1")" | has " name=$1 events=[0-9]* calls=$2 samples=0 " ||
        fail "thread $1: $(line "$(tid "$1")")"
    # its calls, their returns and its end at least (and the tracer's work)
    n=$(line "$(tid "$1")" | sed 's/.* events=\([0-9]*\) .*/\1/')
    [ "$n" -ge $((2 * $2 + 1)) ] || fail "thread $1: $n events"
done
line "$(tid main)" | has " name=- events=.* calls=1 " ||
    fail "main: $(line "$(tid main)")"
field events | has '^[0-9]* (calls 14, returns 14, samples 0, ' ||
    fail "events: $(field events)"
expect_eq "lost" 0 "$(field 'lost events')"
# The start lies within the run, the clock is named.
field start | has '^20[0-9-]* [0-9:.]* UTC$' || fail "start: $(field start)"
field clock | has -E '^(tsc|monotonic).* ns per tick$' ||
    fail "clock: $(field clock)"
# The program itself: its build-id as readelf reads it, symbols and lines.
bid=$(readelf -n app | sed -n 's/.*Build ID: *//p')
grep -A1 "^  object $T/app\$" info.txt > obj.txt || fail "app not listed"
has "build-id $bid; symbols: symbol table; lines: yes" obj.txt ||
    fail "object: $(cat obj.txt)"
# A damaged trace: what was read, where it stopped, exit status 2.
head -c $(($(stat -c %s t.raw) - 100)) t.raw > cut.raw
set +e
"$REPORT_SAN" --info cut.raw > cut.txt 2> /dev/null
expect_eq "damaged: status" 2 $?
set -e
has "^damaged: " cut.txt || fail "damage not said: $(cat cut.txt)"
has "^command line:  ./app one 'two words'\$" cut.txt || fail "cut: no command"
# The analyzer's --info says the same; a view's option is refused.
"$REPORT_SAN" --info t.raw | cmp -s - info.txt || fail "--info differs"
set +e
"$REPORT_SAN" --info --tree t.raw > /dev/null 2>&1
expect_eq "--info --tree" 1 $?
echo "ok"
