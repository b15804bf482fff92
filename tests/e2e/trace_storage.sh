#!/usr/bin/env bash
# The storage behind the trace's shared mappings goes away, and the program
# never notices (docs/tracer.md, "When the storage goes").
#  - The trace is truncated (`: > t.raw`, logrotate's copytruncate) while
#    threads write it: one line, tracing stops, the program's output and
#    exit status are those of a run without the tracer (it died of SIGBUS).
#    Also truncated and given its length back at once, so that no store
#    faults: the header's magic, gone, tells.
#  - As root: the disk fills, on a small tmpfs (fallocate) and on a
#    loop-mounted ext2 (no fallocate: the keeper writes the zeros, so a full
#    disk is ENOSPC, not SIGBUS): one line, the program runs on, and
#    recorded plus lost is exactly what the program made.  The file
#    systems are made here and removed after.
#  - As root: the trace truncated on a btrfs and on an overlayfs, whose
#    mappings may show another device and inode in /proc/self/maps than
#    stat does.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || fail "no $LIB"
build_traced "$T/work" "$PROGRAMS/storage_work.c"
total() {  # calls and returns recorded, plus events lost
    awk '/^ Events:/ {c = substr($3, 2); r = $5}
         /^ Lost events:/ {l = $3} END {print c + r + l}' "$1"
}
lost_of() { awk '/^ Lost events:/ {print $3}' "$1"; }
plain=$("$T/work" 4 400000) || fail "untraced run"

# truncated NAME HOW DIR: the trace, in DIR, truncated in the middle of
# the run (HOW is mark: at the program's mark), or after HOW seconds.
truncated() {
    local name=$1 how=$2 dir=$3 pid rc mark=()
    rm -f "$dir/t.raw" "$T/mark"
    [ "$how" = mark ] || [ "$how" = restored ] && mark=("$T/mark")
    CALLTRACE_BUFSIZE=64K CALLTRACE_OUTPUT="$dir/t.raw" LD_PRELOAD=$LIB \
        "$T/work" 4 400000 "${mark[@]}" > "$T/out" 2> "$T/err" &
    pid=$!
    if [ "$how" = mark ] || [ "$how" = restored ]; then
        for _ in $(seq 1 2000); do [ -e "$T/mark" ] && break; sleep 0.01; done
        [ -e "$T/mark" ] || { kill $pid; fail "$name: the mark never came"; }
        size=$(stat -c %s "$dir/t.raw")
        truncate -s 0 "$dir/t.raw"
        # Its length given back at once, and more (the threads may have
        # added blocks meanwhile): the pages are holes, where no store
        # faults (what a truncation between the keeper's check and its
        # extension of the file leaves).
        [ "$how" = restored ] && truncate -s $((size + (64 << 20))) "$dir/t.raw"
        rm -f "$T/mark"
    else
        sleep "$how"
        truncate -s 0 "$dir/t.raw" 2>/dev/null || true
    fi
    set +e; wait $pid; rc=$?; set -e
    expect_eq "$name ($how): status" 0 "$rc"
    expect_eq "$name ($how): output" "$plain" "$(cat "$T/out")"
    [ "$(wc -l < "$T/err")" -le 1 ] || fail "$name ($how): more than one line: $(cat "$T/err")"
    if [ "$how" = mark ] || [ "$how" = restored ]; then
        has "^calltrace: cannot write trace to $dir/t.raw: the file \(lost the storage under its mapping\|was truncated by another program\).*; tracing stopped$" "$T/err" ||
            fail "$name ($how): message: $(cat "$T/err")"
    fi
}

# Truncated in the middle of the run (at the mark), and at moments left to
# chance.
for how in mark restored 0.05 0.2; do
    truncated truncated "$how" "$T"
done

[ "$(id -u)" = 0 ] || { echo "ok (the full file systems need root)"; exit 0; }
want=${plain#*events=}
full() {  # NAME DIR: trace into DIR until it is full
    CALLTRACE_BUFSIZE=64K CALLTRACE_OUTPUT="$2/t.raw" LD_PRELOAD=$LIB \
        "$T/work" 4 400000 > "$T/out" 2> "$T/err" || fail "$1: status $?: $(cat "$T/err")"
    expect_eq "$1: output" "$plain" "$(cat "$T/out")"
    expect_eq "$1: one line" 1 "$(wc -l < "$T/err")"
    has "No space left on device; events are counted lost until it can$" "$T/err" ||
        fail "$1: message: $(cat "$T/err")"
    "$REPORT" -b -p "$2/t.raw" > "$T/report" || fail "$1: report"
    expect_eq "$1: calls and returns, recorded or counted lost" "$want" "$(total "$T/report")"
    [ "$(lost_of "$T/report")" -gt 0 ] || fail "$1: nothing lost on a full disk"
}
unmount() {  # the keeper is gone with the program: nothing holds the fs
    umount "$1" 2>/dev/null || { sleep 1; umount "$1"; }
}

mkdir "$T/tmpfs"
if mount -t tmpfs -o size=1m tmpfs "$T/tmpfs" 2>/dev/null; then
    trap 'umount "$T/tmpfs" 2>/dev/null || true; rm -rf "$T"' EXIT
    full "tmpfs" "$T/tmpfs"
    unmount "$T/tmpfs"
else
    echo "no tmpfs could be mounted: that part skipped"
fi

mkdir "$T/ext2"
dd if=/dev/zero of="$T/ext2.img" bs=1M count=2 2>/dev/null
command -v mkfs.ext2 > /dev/null || fail "no mkfs.ext2 (e2fsprogs)"
mkfs.ext2 -q -F "$T/ext2.img"
if mount -o loop "$T/ext2.img" "$T/ext2" 2>/dev/null; then
    trap 'umount "$T/ext2" 2>/dev/null || true; rm -rf "$T"' EXIT
    full "ext2" "$T/ext2"
    unmount "$T/ext2"
else
    echo "no loop device could be mounted: the ext2 part skipped"
fi
# On btrfs stat gives a subvolume's device, /proc/self/maps the file
# system's; on overlayfs (older kernels) the maps show the file
# underneath.  The truncated trace's fault is still known as the trace's.
mkdir "$T/btrfs"
truncate -s 128M "$T/btrfs.img"
command -v mkfs.btrfs > /dev/null || fail "no mkfs.btrfs (btrfs-progs)"
mkfs.btrfs -q -f "$T/btrfs.img" > /dev/null 2>&1 || fail "mkfs.btrfs failed"
if mount -o loop "$T/btrfs.img" "$T/btrfs" 2>/dev/null; then
    trap 'umount "$T/btrfs" 2>/dev/null || true; rm -rf "$T"' EXIT
    truncated btrfs mark "$T/btrfs"
    unmount "$T/btrfs"
else
    echo "no btrfs could be mounted (no btrfs in this kernel?): that part skipped"
fi
mkdir -p "$T/ovl/lower" "$T/ovl/upper" "$T/ovl/work" "$T/ovl/merged"
if mount -t overlay overlay -o "lowerdir=$T/ovl/lower,upperdir=$T/ovl/upper,workdir=$T/ovl/work" \
        "$T/ovl/merged" 2>/dev/null; then
    trap 'umount "$T/ovl/merged" 2>/dev/null || true; rm -rf "$T"' EXIT
    truncated overlayfs mark "$T/ovl/merged"
    unmount "$T/ovl/merged"
else
    echo "no overlayfs could be mounted: that part skipped"
fi
echo "ok: the trace's storage went and the program never knew"
