#!/usr/bin/env bash
# Sampling a stripped binary: the samples are grouped by function, found
# in the unwind tables (.eh_frame_hdr), and named object+0xSTART with START
# the function's first address, not one row per instruction sampled.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "tracer library not built ($LIB)"
command -v strip >/dev/null && command -v nm >/dev/null || skip "binutils missing"

gcc -std=gnu11 -O1 -g -o "$T/full" "$PROGRAMS/sample_7030.c" -ldl
strip -o "$T/stripped" "$T/full"
readelf -S "$T/stripped" | has '\.eh_frame_hdr' || skip "no .eh_frame_hdr in this build"
CALLTRACE_MODE=sample CALLTRACE_SAMPLE_INTERVAL=1ms \
    run_traced "$T/s.raw" "$T/stripped" 5 >/dev/null
"$REPORT_SAN" -b -p "$T/s.raw" > "$T/flat.txt"

# the function starts, by the unstripped copy's symbols
nm "$T/full" | awk 'tolower($2) == "t" { print $1, $3 }' |
    while read -r a name; do printf '0x%x %s\n' "0x$a" "$name"; done > "$T/starts"
rows=$(awk '/^Flat profile/,/^\f/' "$T/flat.txt" | grep -o 'stripped+0x[0-9a-f]*' | sort -u)
[ -n "$rows" ] || fail "no row of the stripped program: $(cat "$T/flat.txt")"
for r in $rows; do
    off=${r#stripped+}
    grep -q "^$off " "$T/starts" ||
        fail "$r is not a function's start (one row per instruction?): $(cat "$T/flat.txt")"
done
# the two spinning functions are two rows, with about 70% and 30%
seventy=$(awk '$2 == "spin_seventy" { print $1 }' "$T/starts")
thirty=$(awk '$2 == "spin_thirty" { print $1 }' "$T/starts")
grep -q "stripped+$seventy \[" "$T/flat.txt" || fail "spin_seventy ($seventy) has no row"
grep -q "stripped+$thirty \[" "$T/flat.txt" || fail "spin_thirty ($thirty) has no row"
# the summary counts the unnamed functions and says how to name them
grep -q "^ Unnamed: [0-9]* functions\? in stripped objects (.*$T/stripped" "$T/flat.txt" ||
    fail "no Unnamed line naming the stripped program: $(grep Unnamed "$T/flat.txt")"
grep -q -- "-dbgsym or -dbg package" "$T/flat.txt" || fail "no hint at debug packages"
