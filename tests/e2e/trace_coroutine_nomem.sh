#!/usr/bin/env bash
# A coroutine that switches away inside 40 nested library calls when the
# address space is full (tests/programs/coro_nomem.c): the tracer cannot
# keep the context's open calls, takes their trampolines off the stack and
# the program runs on as untraced.  It used to abort ("a library call
# returned ... with no record of where it came from").  The CONTEXT record
# of a switch that no block can hold is a counted loss too: the events
# after it wait for a block that names the context, else the reader put
# the coroutine's returns on main's stack (123 returns with no call).
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || fail "no $LIB"
gcc -shared -fPIC -O1 -o "$T/libcorolib.so" "$PROGRAMS/coro_lib.c"
build_traced "$T/cn" "$PROGRAMS/coro_nomem.c" -L"$T" -lcorolib -Wl,-rpath,"$T"
"$T/cn" > "$T/expected" || fail "untraced: status $?"
status=0
CALLTRACE_LIBCALLS=plt run_traced "$T/cn.raw" "$T/cn" > "$T/got" 2> "$T/err" || status=$?
expect_eq "status" 0 "$status"
expect_eq "output" "$(cat "$T/expected")" "$(cat "$T/got")"
! grep -q "aborting" "$T/err" || fail "the tracer aborted: $(cat "$T/err")"
"$REPORT_SAN" -b -p "$T/cn.raw" > "$T/report" || fail "report: status $?"
grep -q "qsort" "$T/report" || fail "no library calls recorded"
has -E '^ Unmatched: 0 returns with no call' "$T/report" ||
    fail "returns with no call: $(grep '^ Unmatched' "$T/report")"
# 135 calls made (84 instrumented, 51 library calls), each a call and a
# return: recorded or counted lost (a lost CONTEXT record counts one too).
calls=$(sed -n 's/^ Events: [0-9]* (\([0-9]*\) calls, \([0-9]*\) returns.*/\1 \2/p' "$T/report")
lost=$(sed -n 's/^ Lost events: \([0-9]*\).*/\1/p' "$T/report")
set -- $calls
[ $(( $1 + $2 + lost )) -ge 270 ] ||
    fail "recorded $1 calls + $2 returns + $lost lost < 270 made"
echo ok
