#!/usr/bin/env bash
# Under an address-space limit (ulimit -v) that the program fits untraced,
# the traced program runs too: same output, same status, and every call it
# made is recorded or counted lost.  The tracer used to take 3.7 MB at
# start (its .bss, which the limit counts whole) and a block and a state
# per thread whatever the limit left, so the program's pthread_create
# failed; now it takes at most an eighth of the room the program leaves,
# and what it has no memory for is dropped and counted.  The limits are
# set above the program's own peak (VmPeak untraced, measured here), from
# tight to roomy, so the test does not depend on this machine's libc.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || fail "no $LIB"
build_traced "$T/as" "$PROGRAMS/aslimit_threads.c"
THREADS=8 CALLS=100000
total() {  # calls and returns recorded, plus events lost
    awk '/^ Events:/ {c = substr($3, 2); r = $5}
         /^ Lost events:/ {l = $3} END {print c + r + l}' "$1"
}
want=$("$T/as" $THREADS $CALLS 2> "$T/err") || fail "untraced: $want $(cat "$T/err")"
need=$(awk '/^vmpeak/ {print $2}' "$T/err")
[ -n "$need" ] && [ "$need" -gt 0 ] || fail "no VmPeak: $(cat "$T/err")"
(ulimit -v "$need"; "$T/as" $THREADS $CALLS > /dev/null 2>&1) ||
    skip "the program does not run untraced at its own peak ($need KiB)"
made=$(echo "$want" | sed -n 's/^events=//p')
for extra in 2048 4096 8192 65536; do
    limit=$((need + extra))
    rm -f "$T"/t.raw*
    set +e
    out=$(ulimit -v $limit
          CALLTRACE_OUTPUT="$T/t.raw" LD_PRELOAD=$LIB "$T/as" $THREADS $CALLS \
              2> "$T/err"); rc=$?
    set -e
    expect_eq "limit $limit KiB: status ($(grep -v '^vmpeak' "$T/err" || true))" 0 "$rc"
    expect_eq "limit $limit KiB: output" "$want" "$out"
    "$REPORT" -b -p "$T/t.raw" > "$T/report" 2> "$T/rerr" ||
        fail "limit $limit KiB: report: $(cat "$T/rerr")"
    got=$(total "$T/report")
    expect_eq "limit $limit KiB: calls and returns, recorded or counted lost" \
        "$made" "$got"
    lost=$(awk '/^ Lost events:/ {print $3}' "$T/report")
    echo "limit: need + $extra KiB: ${lost:-0} of $made events lost"
done
# Library calls recorded too (the default): the program still runs as
# untraced at the tightest limit.
set +e
out=$(ulimit -v $((need + 2048))
      CALLTRACE_LIBCALLS=plt CALLTRACE_OUTPUT="$T/p.raw" LD_PRELOAD=$LIB \
          "$T/as" $THREADS $CALLS 2> "$T/err"); rc=$?
set -e
expect_eq "plt: status ($(grep -v '^vmpeak' "$T/err" || true))" 0 "$rc"
expect_eq "plt: output" "$want" "$out"
# A block refused under a limit for want of a descriptor (EMFILE), not of
# memory: the smaller sizes tried fail too, and the thread goes on with a
# gap (a loop over one size once hung here).
build_traced "$T/lost" "$PROGRAMS/lost_after_failure.c"
mkdir "$T/lo"
set +e
out=$(ulimit -v $((need + 65536))
      timeout 600 env CALLTRACE_BUFSIZE=64K CALLTRACE_OUTPUT="$T/lo/t.raw" \
          LD_PRELOAD=$LIB "$T/lost" 2> "$T/err"); rc=$?
set -e
expect_eq "EMFILE: status ($(cat "$T/err"))" 0 "$rc"
"$REPORT" -b -p "$T/lo/t.raw" > "$T/report" || fail "EMFILE: report"
expect_eq "EMFILE: calls and returns, recorded or counted lost" 4000002 \
    "$(total "$T/report")"
echo "ok: under ulimit -v the traced program runs as untraced, its events counted"
