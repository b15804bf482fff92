#!/usr/bin/env bash
# calltrace record and a filling disk: on a small tmpfs a steadily growing
# trace draws exactly one early warning naming the file system; a small
# quick program draws none; a run that loses events ends with a line
# giving the report's exact lost count and the reason (the disk full, the
# limit).  Needs root to mount the tmpfs.
. "$(dirname "$0")/lib.sh"
[ -x "$FRONT" ] || fail "no $FRONT"
MNT=$T/mnt
mkdir -p "$MNT"
mount -t tmpfs -o size=16m tmpfs "$MNT" 2>/dev/null ||
    skip "cannot mount a tmpfs here (not root, or no mount permission)"
trap 'umount "$MNT" 2>/dev/null; rm -rf "$T"' EXIT
build_traced "$T/fill" "$PROGRAMS/disk_fill.c"
cd "$T"
warnings() { grep -cE "^calltrace: (at .* the trace fills the .* free on $MNT in about|the trace filled the file system $MNT )" "$1" || true; }
lost_of() { "$REPORT" -b --stats "$1" | sed -n 's/^ Lost events: \([0-9]*\)$/\1/p'; }
events_of() { "$REPORT" -b --stats "$1" | sed -n 's/^ Events: \([0-9]*\) .*/\1/p'; }

# A trace that keeps growing: 16 MB fill within the horizon at any rate
# the rule notices (over 27 kB/s), so the warning comes whatever the load.
"$FRONT" record -o "$MNT/grow.raw" ./fill "$T/stop" 10000000 100 >out.txt 2>err.txt &
rec=$!
for _ in $(seq 3000); do
    [ "$(warnings err.txt)" -ge 1 ] && break
    kill -0 "$rec" 2>/dev/null || break
    sleep 0.1
done
touch "$T/stop"
wait "$rec" || fail "record failed: $(cat err.txt)"
expect_eq "program output" done "$(cat out.txt)"
expect_eq "warnings" 1 "$(warnings err.txt)"
rm -f "$MNT"/grow.raw* "$T/stop"

# A small quick program: no word beside the closing line.
"$FRONT" record -o "$MNT/small.raw" ./fill "$T/stop" 10 >/dev/null 2>err.txt
expect_eq "messages for a small run" "" "$(grep '^calltrace:' err.txt | grep -v '^calltrace: wrote ' || true)"
rm -f "$MNT"/small.raw*

# The disk full: the end line counts what the report counts as lost.
umount "$MNT"
mount -t tmpfs -o size=1m tmpfs "$MNT"
"$FRONT" record --bufsize=64K -o "$MNT/full.raw" ./fill "$T/stop" 20000 0 >out.txt 2>err.txt ||
    fail "the program failed on a full disk: $(cat err.txt)"
expect_eq "program output on a full disk" done "$(cat out.txt)"
lost=$(lost_of "$MNT/full.raw")
events=$(events_of "$MNT/full.raw")
[ "$lost" -gt 0 ] || fail "nothing lost on a full disk: $(cat err.txt)"
has -Fx "calltrace: $lost events were not recorded (counted as lost, beside the $events recorded): the file system $MNT was full" err.txt ||
    fail "no end line for the full disk ($lost lost): $(cat err.txt)"

# The limit, by option or by the environment: the same line, its reason.
for how in option env; do
    if [ $how = option ]; then
        "$FRONT" record --bufsize=4K --limit=16K -o lim.raw ./fill "$T/stop" 200 0 >/dev/null 2>err.txt
    else
        CALLTRACE_LIMIT=16K "$FRONT" record --bufsize=4K -o lim.raw ./fill "$T/stop" 200 0 >/dev/null 2>err.txt
    fi
    lost=$(lost_of lim.raw)
    events=$(events_of lim.raw)
    [ "$lost" -gt 0 ] || fail "$how: nothing lost past the limit"
    has -Fx "calltrace: $lost events were not recorded (counted as lost, beside the $events recorded): each trace stops at the limit of 16K (--limit, CALLTRACE_LIMIT)" err.txt ||
        fail "$how: no end line for the limit ($lost lost): $(cat err.txt)"
done

# Nothing lost: no such line.
"$FRONT" record -o all.raw ./fill "$T/stop" 20 0 >/dev/null 2>err.txt
has "not recorded" err.txt && fail "an end line with nothing lost: $(cat err.txt)"
echo ok
