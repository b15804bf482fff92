#!/usr/bin/env bash
# A trace on a full tmpfs with a hole in it (a block reserved and never
# written, the file larger than the space behind it): every view and
# `calltrace top` read the hole as "not written" and never die of SIGBUS,
# which a read fault in such a hole raises when it goes through a mapping.
# Root only: the test mounts a small tmpfs of its own and removes it.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "no $LIB: the tracer is not built"
[ "$(id -u)" = 0 ] || skip "not root: cannot mount a tmpfs"
build_traced "$T/threads" "$PROGRAMS/dump_threads.c"
run_traced "$T/t.raw" "$T/threads" >/dev/null
[ -s "$T/t.raw" ] || skip "the tracer wrote no trace"
M=$T/full
mkdir "$M"
mount -t tmpfs -o size=512k tmpfs "$M" || skip "cannot mount a tmpfs"
trap 'umount "$M" 2>/dev/null; rm -rf "$T"' EXIT
# The file header, a 64 KiB hole, then the blocks: the same trace with a
# reserved block that was never written.
head -c 4096 "$T/t.raw" > "$M/h.raw"
truncate -s $((4096 + 65536)) "$M/h.raw"
tail -c +4097 "$T/t.raw" >> "$M/h.raw"
# Fill the file system: the hole's pages can no longer be allocated.
dd if=/dev/zero of="$M/fill" bs=4k status=none 2>/dev/null || true
[ "$(stat -f -c %a "$M")" = 0 ] || fail "the tmpfs is not full"
[ "$(stat -c %b "$M/h.raw")" -lt $(( $(stat -c %s "$M/h.raw") / 512 )) ] ||
    fail "the trace has no hole"

whole=$("$REPORT" --tree "$T/t.raw")
views=("" "--tree" "--dump" "--flat" "--export=chrome" "--export=folded"
       "--export=perfetto" "--export=pprof" "--export=callgrind")
for v in "${views[@]}"; do
    rc=0
    # shellcheck disable=SC2086
    "$REPORT_SAN" $v "$M/h.raw" > "$T/out" 2> "$T/err" || rc=$?
    expect_eq "exit of '$v'" 0 "$rc"
    [ -s "$T/out" ] || fail "'$v' wrote nothing"
done
expect_eq "tree through the hole" "$whole" "$("$REPORT" --tree "$M/h.raw")"
rc=0
"$FRONT" top -n 1 -i 0.1 "$M/h.raw" > "$T/top" 2> "$T/err" || rc=$?
expect_eq "exit of calltrace top" 0 "$rc"
has worker_fn "$T/top" || fail "calltrace top: $(cat "$T/top" "$T/err")"
echo "ok"
