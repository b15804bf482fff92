#!/usr/bin/env bash
# calltrace pack and record --pack: a packed trace is half the size or
# less and every view of it is the unpacked trace's, byte for byte (report,
# --jobs in pieces, tree, dump, exports, --time-range, --threads, info,
# top); counts stay those made by construction; a trace left by SIGKILL
# (blocks never closed) packs and reads the same; bad input and bad usage
# get one line naming the file, and the trace is left as it was.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || fail "no $LIB"
build_traced "$T/prog" "$PROGRAMS/profile_counts.c"
build_traced "$T/jobs" "$PROGRAMS/report_jobs.c"
build_traced "$T/spin" "$PROGRAMS/live_spin.c"

# Every view of a and b, with the file's name taken out, must be equal.
same_views() {
    local a=$1 b=$2 v i=0
    for v in "" "--jobs 1" "--tree" "--dump" "--export=folded" \
            "--export=callgrind" "--export=chrome" "--threads" \
            "--time-range=100us.." "--subtract-bias" "--info" "-p -q -b"; do
        i=$((i + 1))
        # shellcheck disable=SC2086
        "$REPORT_SAN" $v "$a" 2>&1 | sed "s|$a|TRACE|g" > "$T/va.$i" || true
        # shellcheck disable=SC2086
        "$REPORT_SAN" $v "$b" 2>&1 | sed "s|$b|TRACE|g" > "$T/vb.$i" || true
        [ -s "$T/va.$i" ] || fail "'$v' of $a: nothing"
        # What only the packed one says: its note, its size.
        has -E '^( |note: +)packed: [0-9]+ blocks of records, [0-9]+ bytes in [0-9]+ \(zstd\)$' "$T/vb.$i" ||
            [ "$v" != "" ] || fail "no note of packing: $(head "$T/vb.$i")"
        sed -i -E '/^( |note: +)packed: /d; /^size: /d; /^setting: +CALLTRACE_OUTPUT=/d' "$T/vb.$i"
        sed -i -E '/^size: /d; /^setting: +CALLTRACE_OUTPUT=/d' "$T/va.$i"
        cmp -s "$T/va.$i" "$T/vb.$i" ||
            fail "'$v' differs once packed: $(diff "$T/va.$i" "$T/vb.$i" | head -n 20)"
    done
    # In pieces, on several threads.
    CT_PIECE_BYTES=8192 "$REPORT_SAN" --jobs 3 "$b" 2> "$T/pieces" |
        sed "s|$b|TRACE|g; /^ packed: /d" > "$T/vb.jobs"
    cmp -s "$T/va.1" "$T/vb.jobs" ||
        fail "--jobs 3 of the packed trace differs: $(diff "$T/va.1" "$T/vb.jobs" | head)"
    "$FRONT" top -b -n 1 "$a" | sed "s|$a|TRACE|g; s/read [0-9.]* [KMG]*i*B//" > "$T/ta"
    "$FRONT" top -b -n 1 "$b" | sed "s|$b|TRACE|g; s/read [0-9.]* [KMG]*i*B//" > "$T/tb"
    cmp -s "$T/ta" "$T/tb" || fail "top differs: $(diff "$T/ta" "$T/tb")"
}

# 1. Four threads, sleeps (off-CPU intervals), small blocks.
CALLTRACE_BUFSIZE=16K run_traced "$T/j.raw" "$T/jobs" > /dev/null || fail "jobs run"
"$FRONT" pack -o "$T/jp.raw" "$T/j.raw" > "$T/msg" || fail "pack: $(cat "$T/msg")"
has -E "jp.raw: [0-9]+ -> [0-9]+ bytes \([0-9.]+x\), [0-9]+ blocks packed" "$T/msg" ||
    fail "pack's line: $(cat "$T/msg")"
raw=$(stat -c %s "$T/j.raw"); packed=$(stat -c %s "$T/jp.raw")
# How far the records pack depends on how regular the time deltas are:
# 2.6-5.5x on a VM whose speed changes from moment to moment, from the
# same calls; records left as they were would be near 1x.
[ $((packed * 2)) -le "$raw" ] || fail "packed $packed of $raw bytes: not half"
same_views "$T/j.raw" "$T/jp.raw"

# 2. Counts by construction (profile_counts.c): 24 work, 72 leaf, 120 rec,
# and 300000 spin() before it waits to be killed: SIGKILL leaves every
# thread's block unclosed.
mkfifo "$T/ready"
CALLTRACE_OUTPUT=$T/k.raw LD_PRELOAD=$LIB "$T/prog" 300000 > "$T/ready" &
pid=$!
read -r _ < "$T/ready"
kill -KILL $pid
wait $pid 2>/dev/null || true
cp "$T/k.raw" "$T/kp.raw"
"$FRONT" pack -q "$T/kp.raw" > "$T/msg" 2>&1 || fail "pack in place: $(cat "$T/msg")"
[ ! -s "$T/msg" ] || fail "pack -q said: $(cat "$T/msg")"
[ "$(stat -c %s "$T/kp.raw")" -lt "$(stat -c %s "$T/k.raw")" ] || fail "not packed in place"
same_views "$T/k.raw" "$T/kp.raw"
flat() {
    "$REPORT_SAN" "$1" | awk '/^Flat profile:/{f=1;next} /call graph/{f=0}
        f && $NF ~ /^\[[0-9]+\]$/ {print $4, $(NF-1)}' | sort
}
flat "$T/kp.raw" > "$T/kflat"
for want in "24 work" "72 leaf" "120 rec" "300000 spin"; do
    has -x "$want" "$T/kflat" || fail "packed: not '$want': $(cat "$T/kflat")"
done
# Packing a packed trace changes nothing.
cp "$T/kp.raw" "$T/kpp.raw"
"$FRONT" pack "$T/kpp.raw" | has " 0 blocks packed" || fail "repacked"
cmp -s "$T/kp.raw" "$T/kpp.raw" || fail "packing twice changed the trace"

# 3. record --pack: the recording (a folder: the program forks) is packed,
# and reads as made.
(cd "$T" && "$FRONT" record --pack -o rec "$T/prog" > /dev/null 2> "$T/rec.err") ||
    fail "record --pack: $(cat "$T/rec.err")"
[ -d "$T/rec" ] || fail "record --pack: no folder"
for f in "$T"/rec/*.raw; do
    od -A n -t u2 -j $((4096 + 4)) -N 2 "$f" | has -E '^ *(16|2)$' ||
        fail "$f: its first block is neither PACKED nor MAPS"
done
counts=$("$FRONT" report "$T/rec" 2>/dev/null | awk '/^Flat profile:/{f=1;next} /call graph/{f=0}
    f && $NF ~ /^\[[0-9]+\]$/ {n[$(NF-1)] += $4} END {print n["work"], n["leaf"], n["rec"]}')
expect_eq "record --pack: work leaf rec" "24 77 120" "$counts"

# A program killed under record --pack: its unclosed blocks are packed at
# the end like the rest, and every call made before the kill is counted.
(cd "$T" && exec "$FRONT" record -q --pack -o killed.raw "$T/prog" 300000 > "$T/k.out" 2> "$T/k.err") &
rec=$!
for _ in $(seq 600); do has -x spun "$T/k.out" && break; sleep 0.1; done
has -x spun "$T/k.out" || fail "killed: the program never spun: $(cat "$T/k.err")"
kill -KILL "$(program_of $rec)"
s=0; wait $rec || s=$?
expect_eq "killed: record's status" 137 "$s"
# A folder: the program forks; the child's 5 leaf() calls are its own.
counts=$("$FRONT" report "$T/killed.raw" 2>/dev/null | awk '/^Flat profile:/{f=1;next} /call graph/{f=0}
    f && $NF ~ /^\[[0-9]+\]$/ {n[$(NF-1)] += $4} END {print n["work"], n["leaf"], n["rec"], n["spin"]}')
expect_eq "killed under --pack: work leaf rec spin" "24 77 120 300000" "$counts"
for f in "$T"/killed.raw/*.raw; do
    "$REPORT" --info "$f" | has -E '^note: +packed: ' || fail "killed: $f not packed"
done

# 4. Bad input and bad usage: one line naming the file; nothing replaced.
printf 'not a trace\n' > "$T/junk.raw"
cp "$T/junk.raw" "$T/junk.copy"
s=0; "$FRONT" pack "$T/junk.raw" 2> "$T/err" || s=$?
expect_eq "junk: status" 2 "$s"
expect_eq "junk: message" "calltrace: $T/junk.raw: byte 0: not a calltrace trace" "$(cat "$T/err")"
cmp -s "$T/junk.raw" "$T/junk.copy" || fail "junk.raw was changed"
[ -z "$(ls -A "$T" | grep packing)" ] || fail "a temporary file was left"
s=0; "$FRONT" pack "$T/none.raw" 2> "$T/err" || s=$?
expect_eq "missing: status" 2 "$s"
has "none.raw" "$T/err" || fail "missing: $(cat "$T/err")"
for bad in "--level=0" "--level=20" "--level=x" "-o $T/o.raw $T/j.raw $T/k.raw" "--bogus"; do
    s=0
    # shellcheck disable=SC2086
    "$FRONT" pack $bad "$T/j.raw" > /dev/null 2> "$T/err" || s=$?
    expect_eq "'$bad': status" 1 "$s"
    has "Try 'calltrace pack --help'" "$T/err" || fail "'$bad': $(cat "$T/err")"
done
"$FRONT" pack --help | has "Usage: calltrace pack" || fail "pack --help"
# A trace still being written: its writer would go on in the old file.
mkfifo "$T/hold"
CALLTRACE_OUTPUT=$T/run.raw LD_PRELOAD=$LIB "$T/spin" block 1000 < "$T/hold" > "$T/run.out" &
spin=$!
exec 4> "$T/hold"
for _ in $(seq 600); do has -x ready "$T/run.out" && break; sleep 0.1; done
s=0; "$FRONT" pack "$T/run.raw" 2> "$T/err" || s=$?
exec 4>&-
wait $spin
expect_eq "running: status" 2 "$s"
has "still being written by process $spin" "$T/err" || fail "running: $(cat "$T/err")"
"$FRONT" pack -q "$T/run.raw" || fail "pack once it is done"
for bad in "--flight=1M" "-o tcp:127.0.0.1:9" "--port=9"; do
    s=0
    # shellcheck disable=SC2086
    "$FRONT" record --pack $bad "$T/prog" > /dev/null 2> "$T/err" || s=$?
    expect_eq "record --pack $bad: status" 1 "$s"
    has -- "--pack and " "$T/err" || fail "record --pack $bad: $(cat "$T/err")"
done
# 5. record --pack while the program runs: the closed blocks move, packed,
# to the side file and their pages are freed, so the staged trace takes a
# third of its length on disk or less; the pair reads whole meanwhile (the
# report and top count every step() made), and once the program ends the
# recording is one packed file.
mkfifo "$T/in"
CT_LIVEPACK_STATS=1 CALLTRACE_BUFSIZE=64K "$FRONT" record --pack --control \
    -o "$T/live.raw" "$T/spin" block 2000000 < "$T/in" > "$T/live.out" \
    2> "$T/live.err" &
rec=$!
exec 3> "$T/in"   # the program's stdin: it waits until this closes
for _ in $(seq 600); do has -x ready "$T/live.out" && break; sleep 0.1; done
has -x ready "$T/live.out" || fail "live: the program never got ready: $(cat "$T/live.err")"
staged=$(ls "$T"/.calltrace-record-*/calltrace-*.raw | grep -v '\.packed$')
for _ in $(seq 600); do
    size=$(stat -c %s "$staged"); disk=$(du -B1 "$staged" | cut -f1)
    [ $((disk * 3)) -le "$size" ] && [ -s "$staged.packed" ] && break
    sleep 0.1
done
if has "punches no holes" "$T/live.err"; then
    exec 3>&-; wait $rec || true
    skip "live: $T's file system punches no holes: $(cat "$T/live.err")"
fi
[ $((disk * 3)) -le "$size" ] ||
    fail "live: the staged trace takes $disk bytes on disk of $size"
flat "$staged" > "$T/lflat"
has -x "2000000 step" "$T/lflat" || fail "live: the pair read: $(cat "$T/lflat")"
"$FRONT" top -b -n 1 "$staged" | has -E ' 2000000 .* step$' ||
    fail "live: top on the pair: $("$FRONT" top -b -n 1 "$staged")"
# A snapshot copies the moved blocks as they are: their records are in
# the trace's side file, and record packs the snapshot before the trace.
"$FRONT" control "$(program_of $rec)" snapshot > /dev/null ||
    fail "live: snapshot refused"
exec 3>&-
wait $rec || fail "live: record failed: $(cat "$T/live.err")"
flat "$T/live.raw.snap1" > "$T/sflat"
has -x "2000000 step" "$T/sflat" || fail "live: the snapshot: $(cat "$T/sflat")"
"$REPORT" --info "$T/live.raw.snap1" | has -E '^note: +packed: ' ||
    fail "live: the snapshot is not packed"
has -E "live pack: [1-9][0-9]+ blocks moved" "$T/live.err" ||
    fail "live: no blocks moved: $(cat "$T/live.err")"
[ ! -e "$T/live.raw.packed" ] || fail "live: a side file was left"
[ -z "$(ls -d "$T"/.calltrace-record-* 2>/dev/null)" ] || fail "live: staging left"
flat "$T/live.raw" > "$T/lflat"
has -x "2000000 step" "$T/lflat" || fail "live: the recording: $(cat "$T/lflat")"
"$REPORT" --info "$T/live.raw" | has -E '^note: +packed: ' || fail "live: not packed"

echo ok
