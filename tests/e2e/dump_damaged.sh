#!/usr/bin/env bash
# A real trace cut short at many offsets and with bytes overwritten: the
# sanitizer build of calltrace-report must read what is whole, exit 0 or 2
# with one-line errors, and never crash.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "no $LIB: the tracer is not built"
build_traced "$T/threads" "$PROGRAMS/dump_threads.c"
run_traced "$T/t.raw" "$T/threads" >/dev/null
[ -s "$T/t.raw" ] || skip "the tracer wrote no trace"
size=$(stat -c %s "$T/t.raw")
full=$("$REPORT_SAN" --dump "$T/t.raw" | wc -l)
[ "$full" -gt 10 ] || skip "the tracer recorded no calls"

check() { # FILE WHAT
    local rc=0
    "$REPORT_SAN" --dump "$1" > "$T/d.txt" 2> "$T/e.txt" || rc=$?
    [ $rc -eq 0 ] || [ $rc -eq 2 ] || fail "$2: exit $rc: $(head -c 600 "$T/e.txt")"
    ! grep -q -e Sanitizer -e 'runtime error' "$T/e.txt" || fail "$2: $(head -c 600 "$T/e.txt")"
    # A changed byte can read as other records (the format has no checksum:
    # one seed in 40 turned an exit into a call, which then closed as never
    # returned, one line more), so a cut trace may not grow at all, and a
    # changed one only by a few lines a byte, never by a copy of the trace.
    local most=$full
    case $2 in corruption*) most=$((full + 3 * 8)) ;; esac
    [ "$(wc -l < "$T/d.txt")" -le "$most" ] || fail "$2: more lines than the whole trace"
    rc=0
    "$REPORT_SAN" "$1" > /dev/null 2> "$T/e.txt" || rc=$?
    [ $rc -eq 0 ] || [ $rc -eq 2 ] || fail "$2 (report): exit $rc: $(head -c 600 "$T/e.txt")"
}

for cut in 0 7 100 4095 4096 4100 4160 5000 8191 8192 8300 12000 $((size - 1)); do
    [ "$cut" -lt "$size" ] || continue
    head -c "$cut" "$T/t.raw" > "$T/cut.raw"
    check "$T/cut.raw" "cut at $cut"
done
# A cut inside the records must say where it stopped.
head -c 8300 "$T/t.raw" > "$T/cut.raw"
rc=0; "$REPORT_SAN" --dump "$T/cut.raw" >/dev/null 2> "$T/e.txt" || rc=$?
if [ "$size" -gt 8300 ]; then
    expect_eq "cut status" 2 "$rc"
    grep -q "cut.raw: byte 8300: truncated at byte 8300" "$T/e.txt" ||
        fail "cut message: $(cat "$T/e.txt")"
fi
for seed in $(seq 1 40); do
    cp "$T/t.raw" "$T/bad.raw"
    for k in 1 2 3; do
        off=$(( (seed * 7919 + k * 104729) % (size - 4096) + 4096 ))
        printf "\\x$(printf %02x $(( (seed * 31 + k) % 255 + 1 )))" |
            dd of="$T/bad.raw" bs=1 seek="$off" conv=notrunc status=none
    done
    check "$T/bad.raw" "corruption seed $seed"
done
echo "ok"
