#!/usr/bin/env bash
# Programs the preloaded tracer needs help with.  A static program cannot
# load it: record says so at once and runs the program untraced, its status
# passed through.  An AddressSanitizer or ThreadSanitizer program needs its
# runtime first in LD_PRELOAD: record puts it there and the calls are
# recorded.
. "$(dirname "$0")/lib.sh"
[ -x "$FRONT" ] || fail "no $FRONT"
cd "$T"
calls() { "$FRONT" report -b -p "$1" | awk 'NF > 1 && $(NF-1) == "work" { print $4 }'; }

# Static: one line naming the reason, the program's output and status.
gcc -static -O1 -finstrument-functions -I"$CT_ROOT/include" -o app_static \
    "$PROGRAMS/frontend_app.c" 2>/dev/null ||
    skip "no static libc (libc6-dev)"
set +e
"$FRONT" record ./app_static exit 5 >out.txt 2>err.txt; rc=$?
set -e
expect_eq "static: exit status" 5 "$rc"
expect_eq "static: output" out "$(cat out.txt)"
grep -q "^calltrace: ./app_static is linked statically: the tracer, a preloaded library, cannot load into it; running it untraced" err.txt ||
    fail "static: $(cat err.txt)"
if grep -q "did the program start" err.txt; then fail "static: misleading line"; fi
[ ! -e calltrace.raw ] || fail "static: a recording from nothing"

# Sanitizers: the runtime first, the calls recorded, the program's status.
for san in address thread; do
    if ! gcc -O1 -g -fsanitize=$san -finstrument-functions -I"$CT_ROOT/include" \
        -o app_$san "$PROGRAMS/frontend_app.c" 2>/dev/null; then
        skip "gcc cannot build with -fsanitize=$san (libasan/libtsan)"
    fi
    set +e
    # ASLR off is what TSan wants on some kernels; it changes nothing else.
    setarch "$(uname -m)" -R "$FRONT" record -o $san.raw ./app_$san exit 4 6 >out.txt 2>err.txt; rc=$?
    set -e
    expect_eq "$san: exit status" 4 "$rc"
    if grep -q "does not come first\|Sanitizer:DEADLYSIGNAL\|ERROR: .*Sanitizer" err.txt; then
        fail "$san: $(cat err.txt)"
    fi
    expect_eq "$san: calls" 6 "$(calls $san.raw)"
done
echo "frontend_static_san: ok"
