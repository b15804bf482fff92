#!/usr/bin/env bash
# The summary's date when the input has no event: the start its header
# records, not the clock's origin (which showed the machine's boot time).
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "tracer library not built ($LIB)"

date_of() { sed -n 's/^ Date: //p' "$1"; }

# an instrumented program run paused: a trace without events (a program
# with no instrumented function leaves no trace at all)
printf 'int main(void) { return 0; }\n' > "$T/plain.c"
build_traced "$T/plain" "$T/plain.c"
before=$(date +%s)
CALLTRACE_START_PAUSED=1 run_traced "$T/empty.raw" "$T/plain"
after=$(date +%s)
"$REPORT_SAN" -b -p "$T/empty.raw" > "$T/empty.txt"
grep -q "^ Events: 0 " "$T/empty.txt" || fail "the trace has events: $(grep Events "$T/empty.txt")"
d=$(date -u -d "$(date_of "$T/empty.txt" | sed 's/ UTC / /')" +%s) || fail "no date"
[ "$d" -ge $((before - 1)) ] && [ "$d" -le $((after + 1)) ] ||
    fail "empty trace dated $(date_of "$T/empty.txt"), run at $(date -u -d @$before)"

# an RTL log with its header only: the date its opening line gives
printf 'opening log file 1000.5 seconds past January 1st 1970\ncorresponding to 4294967000 ms after timer start\nProcess id is 1\n' \
    > "$T/empty.log"
"$REPORT_SAN" -b -p --format=rtl "$T/empty.log" > "$T/rtl.txt"
expect_eq "rtl header-only date" "Thu Jan  1 00:16:40 UTC 1970" "$(date_of "$T/rtl.txt")"
