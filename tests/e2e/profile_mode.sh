#!/usr/bin/env bash
# The profile mode (CALLTRACE_MODE=profile) counts every call as the trace
# mode does: on a program with known call counts, threads and a fork, and
# on coroutines, the flat profile's and the call graph's counts and the
# call paths' counts (folded) equal the trace's; a SIGKILL keeps the profile up to the kill;
# paths beyond CALLTRACE_PROFILE_PATHS are counted; views that need every
# call refuse a profile in one line; sleeps show as off-CPU time.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || fail "no $LIB"
build_traced "$T/prog" "$PROGRAMS/profile_counts.c"

# The flat profile's calls and names; the call graph's "called" column
# and names (indices and times differ between runs); folded calls.
flat() {
    "$REPORT_SAN" "$1" | awk '/^Flat profile:/{f=1;next} /call graph/{f=0}
        f && $NF ~ /^\[[0-9]+\]$/ {print $4, $(NF-1)}' | sort
}
graph() {
    "$REPORT_SAN" "$1" | awk '/Call graph \(explanation/{g=1} /^ Each entry is one function/{g=0}
        g && $NF ~ /^\[[0-9]+\]$/ && $(NF-2) ~ /^[0-9]+([\/+][0-9]+)?$/ {
            print ($1 ~ /^\[/ ? "P" : "-"), $(NF-2), $(NF-1)}' | sort
}
folded() {
    "$REPORT_SAN" --export folded --folded-value=calls "$1" | sort
}

run_traced "$T/t.raw" "$T/prog" || fail "trace run"
CALLTRACE_MODE=profile run_traced "$T/p.raw" "$T/prog" || fail "profile run"
tchild=$(ls "$T"/t.raw.*); pchild=$(ls "$T"/p.raw.*)
for v in flat graph folded; do
    $v "$T/t.raw" > "$T/t.$v"; $v "$T/p.raw" > "$T/p.$v"
    [ -s "$T/t.$v" ] || fail "$v: empty"
    diff "$T/t.$v" "$T/p.$v" > /dev/null || fail "$v differs: $(diff "$T/t.$v" "$T/p.$v")"
    $v "$tchild" > "$T/tc.$v"; $v "$pchild" > "$T/pc.$v"
    diff "$T/tc.$v" "$T/pc.$v" > /dev/null || fail "child's $v differs: $(diff "$T/tc.$v" "$T/pc.$v")"
done
# Coroutines (swapcontext): the table follows each context's frames.
build_traced "$T/coro" "$PROGRAMS/coro_ucontext.c"
run_traced "$T/ct.raw" "$T/coro" > /dev/null || fail "coro trace run"
CALLTRACE_MODE=profile run_traced "$T/cp.raw" "$T/coro" > /dev/null || fail "coro profile run"
for v in flat folded; do
    diff <($v "$T/ct.raw") <($v "$T/cp.raw") > /dev/null ||
        fail "coroutines' $v differs: $(diff <($v "$T/ct.raw") <($v "$T/cp.raw"))"
done
# and by construction: 24 work, 72 leaf, 24 x 5 rec (24 from work)
expect_eq "work calls" "24 work" "$(grep ' work$' "$T/p.flat")"
expect_eq "leaf calls" "72 leaf" "$(grep ' leaf$' "$T/p.flat")"
expect_eq "child's leaf" "5 leaf" "$(grep ' leaf$' "$T/pc.flat")"
expect_eq "rec from work" "P 24+96 rec" "$(grep '^P .* rec$' "$T/p.graph")"
"$REPORT_SAN" "$T/p.raw" | has "calls outside the tables' room (CALLTRACE_PROFILE_PATHS): 0 " ||
    fail "summary: no profile line"

# Events count a profile's calls as the trace would record them: a call
# and a return each, in the report's summary and in --info alike.
ev=$("$REPORT_SAN" "$T/p.raw" | sed -n 's/^ Events: \([0-9]*\) (\([0-9]*\) calls, \([0-9]*\) returns.*/\1 \2 \3/p')
read -r ev_all ev_calls ev_rets <<<"$ev"
expect_eq "profile calls = returns" "$ev_calls" "$ev_rets"
[ "$ev_calls" -gt 0 ] && [ "$ev_all" -ge $((2 * ev_calls)) ] ||
    fail "Events: $ev does not count the profile's calls and returns"
expect_eq "--info events" "$ev_all" \
    "$("$REPORT_SAN" --info "$T/p.raw" | sed -n 's/^events: *\([0-9]*\) .*/\1/p')"

"$REPORT_SAN" --info "$T/p.raw" | has "^mode: *profile" || fail "--info: not a profile"
expect_eq "--info calls" "$(awk '{s += $1} END {print s}' "$T/p.flat")" \
    "$("$REPORT_SAN" --info "$T/p.raw" | sed -n 's/^calls: *\([0-9]*\) .*/\1/p')"

# Views that need every call: one line, non-zero exit.
for view in --tree --dump "--export chrome" "--export perfetto" --stats \
            "--time-range 0..1s"; do
    set +e
    # shellcheck disable=SC2086
    "$REPORT_SAN" $view "$T/p.raw" > "$T/out" 2> "$T/err"; rc=$?
    set -e
    [ "$rc" -ne 0 ] || fail "$view: exit 0"
    expect_eq "$view: one line" 1 "$(wc -l < "$T/err")"
    has "is a profile" "$T/err" || fail "$view: $(cat "$T/err")"
done

# calltrace top follows calls as they are written: a profile has none.
set +e
"$FRONT" top -n 1 "$T/p.raw" > "$T/out" 2> "$T/err"; rc=$?
set -e
[ "$rc" -ne 0 ] || fail "top: exit 0"
expect_eq "top: one line" 1 "$(wc -l < "$T/err")"
has "a profile" "$T/err" || fail "top: $(cat "$T/err")"

# The table's room: the paths beyond it are counted, with all the calls.
rm -f "$T"/p.raw*
CALLTRACE_PROFILE_PATHS=4 CALLTRACE_MODE=profile run_traced "$T/p.raw" "$T/prog" ||
    fail "capped run"
"$REPORT_SAN" "$T/p.raw" > "$T/capped"
over=$(sed -n "s/.*PROFILE_PATHS): \([0-9]*\) .*/\1/p" "$T/capped")
calls=$(sed -n 's/ Events: [0-9]* (\([0-9]*\) calls.*/\1/p' "$T/capped")
[ "${over:-0}" -gt 0 ] || fail "no call counted outside the table"
tcalls=$("$REPORT_SAN" "$T/t.raw" | sed -n 's/ Events: [0-9]* (\([0-9]*\) calls.*/\1/p')
expect_eq "calls kept + outside" "$tcalls" "$((calls + over))"

# SIGKILL: the table is in the file; the calls made before it are there.
rm -f "$T"/p.raw*
CALLTRACE_MODE=profile CALLTRACE_OUTPUT=$T/k.raw LD_PRELOAD=$LIB \
    "$T/prog" 1000 > "$T/fifo.out" &
pid=$!
for _ in $(seq 600); do
    has spun "$T/fifo.out" && break
    sleep 0.1
done
has spun "$T/fifo.out" || { kill -9 "$pid"; fail "the program never spun"; }
kill -9 "$pid"
wait "$pid" 2> /dev/null || true
expect_eq "spin calls after SIGKILL" "1000 spin" "$(flat "$T/k.raw" | grep ' spin$')"
expect_eq "work calls after SIGKILL" "24 work" "$(flat "$T/k.raw" | grep ' work$')"
# Off-CPU time per path, from the thread's switches: 4 sleeps of at
# least 50 ms each are off the CPU inside sleeper (a lower bound only).
cat > "$T/sleep.c" <<'C'
#include <unistd.h>
__attribute__((noinline)) void sleeper(void) { usleep(50000); }
int main(void) { for (int i = 0; i < 4; i++) sleeper(); return 0; }
C
build_traced "$T/sleep" "$T/sleep.c"
CALLTRACE_MODE=profile run_traced "$T/s.raw" "$T/sleep" || fail "sleep run"
"$REPORT_SAN" "$T/s.raw" > "$T/sleep.txt"
if has "On-CPU: from context switches" "$T/sleep.txt"; then
    off=$(sed -n 's/.* \([0-9.]*\)ms(off-CPU: blocked.*/\1/p' "$T/sleep.txt")
    awk -v o="${off:-0}" 'BEGIN { exit !(o >= 200) }' ||
        fail "off-CPU ${off:-none} ms, at least 200 expected: $(grep On-CPU "$T/sleep.txt")"
else
    echo "no context-switch records here (perf_event_open refused): off-CPU part not checked"
fi
echo ok
