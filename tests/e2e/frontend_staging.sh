#!/usr/bin/env bash
# Where calltrace record writes while the program runs: never in the
# program's working directory (ls -A, tar c . must not see the tracer's
# files); the recording is moved into place at the end, copied when the
# staging folder is on another file system.  A folder recording has a
# plain folder's mode, like its files.  A working directory record cannot
# write to: the program still runs, untraced, with one line.
. "$(dirname "$0")/lib.sh"
[ -x "$FRONT" ] || fail "no $FRONT"
build_traced "$T/app" "$PROGRAMS/frontend_app.c"
mkdir "$T/w"
cd "$T/w"

# The program lists its working directory: nothing of the tracer's.
expect_eq "ls -A during record" "" "$("$FRONT" record -q ls -A 2>/dev/null)"
rm -rf calltrace.raw*
expect_eq "ls -A during a verb-less run" "" "$("$FRONT" -q ls -A 2>/dev/null | sed '/^Profiling:/,$d')"
rm -rf calltrace.raw*
"$FRONT" record -q tar cf "$T/w.tar" . 2>/dev/null
expect_eq "tar of the working directory" "./" "$(tar tf "$T/w.tar")"
rm -rf calltrace.raw*

# Several processes, the output in the working directory: a folder, the
# mode a plain folder gets.
printf '#!/bin/sh\n%s exit 0 4\n%s exit 0 6\n' "$T/app" "$T/app" > "$T/two.sh"
chmod +x "$T/two.sh"
(umask 022; "$FRONT" record -q "$T/two.sh" >/dev/null 2>&1)
[ -d calltrace.raw ] || fail "no folder recording"
expect_eq "folder mode" 755 "$(stat -c %a calltrace.raw)"
expect_eq "trace mode" 644 "$(stat -c %a "$(ls -d calltrace.raw/* | sed -n 1p)")"
rm -rf calltrace.raw*

# Staging on another file system (TMPDIR on a tmpfs): copied into place.
other=
for d in /dev/shm /run/shm; do
    if [ -d "$d" ] && [ -w "$d" ] && [ "$(stat -c %d "$d")" != "$(stat -c %d .)" ]; then
        other=$d; break
    fi
done
if [ -n "$other" ]; then
    TMPDIR=$other "$FRONT" record -q ./../app exit 0 7 >/dev/null 2>&1
    expect_eq "copied single trace" 7 \
        "$("$FRONT" report -b -p | awk 'NF > 1 && $(NF-1) == "work" { print $4 }')"
    TMPDIR=$other "$FRONT" record -q "$T/two.sh" >/dev/null 2>&1
    expect_eq "copied folder" 2 "$(ls calltrace.raw | wc -l)"
    if ls -A "$other" | has '^\.calltrace-record-'; then
        fail "staging folder left in $other"
    fi
    rm -rf calltrace.raw*
fi

# A working directory record cannot write to: run untraced, one line.
# Root writes anywhere: then a read-only bind mount in a mount namespace
# of its own, or else another user.
mkdir "$T/ro"
cp "$T/app" "$T/ro/app"
chmod 555 "$T/ro"
run_ro() { cd "$T/ro" && "$FRONT" record ./app exit 3 2; }
if [ "$(id -u)" = 0 ]; then
    if unshare -m true 2>/dev/null; then
        run_ro() {
            unshare -m sh -c 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" &&
                cd "$1" && exec "$2" record ./app exit 3 2' sh "$T/ro" "$FRONT"
        }
    else
        chmod o+rx "$T"
        setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$FRONT" ||
            skip "no mount namespace, and user nobody cannot run $FRONT"
        run_ro() {
            cd "$T/ro" && setpriv --reuid=65534 --regid=65534 --clear-groups \
                "$FRONT" record ./app exit 3 2
        }
    fi
fi
set +e
(run_ro) >"$T/out.txt" 2>"$T/err.txt"; rc=$?
set -e
expect_eq "read-only: the program's status" 3 "$rc"
grep -Eq "^calltrace: cannot write calltrace.raw in $T/ro \((Permission denied|Read-only file system)\); running ./app untraced$" "$T/err.txt" ||
    fail "read-only: $(cat "$T/err.txt")"
expect_eq "read-only: the program's output" out "$(cat "$T/out.txt")"
echo "frontend_staging: ok"
