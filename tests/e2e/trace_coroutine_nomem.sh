#!/usr/bin/env bash
# A coroutine that switches away inside 40 nested library calls when the
# address space is full (tests/programs/coro_nomem.c): the tracer cannot
# keep the context's open calls, takes their trampolines off the stack and
# the program runs on as untraced.  It used to abort ("a library call
# returned ... with no record of where it came from").
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
echo ok
