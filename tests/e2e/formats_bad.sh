#!/usr/bin/env bash
# Every reader treats bad input the same way: a --format forced on another
# format's file, binary bytes, a line of free text among the records: one
# error line naming the file and the line (text) or byte (binary), exit 2;
# with --lenient a text reader skips the line, counts it and exits 0.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "tracer library not built ($LIB)"
F=$CT_ROOT/tests/formats

gcc -std=gnu11 -O0 -g -finstrument-functions -I"$CT_ROOT/include" \
    -o "$T/calls" "$PROGRAMS/report_calls.c"
run_traced "$T/calls.raw" "$T/calls" >/dev/null
"$REPORT" --dump -o "$T/good.openlaszlo" "$T/calls.raw"
"$REPORT" --export=lms -o "$T/good.lms" "$T/calls.raw"
cp "$F/rtl_wrap_1.log" "$T/good.rtl"
cp "$F/samplingprof_two_docs.txt" "$T/good.samplingprof"
cp "$F/evlog_be_cross.log" "$T/good.evlog"
cp "$T/calls.raw" "$T/good.calltrace"
head -c 3000 "$T/calls" > "$T/elf.bin"   # an executable's first bytes
printf 'just some words\nand more of them\n' > "$T/prose.txt"

bad() { # WHAT WHERE-REGEX ARGS...: exit 2, one line naming file and place
    local what=$1 where=$2; shift 2
    set +e
    "$REPORT_SAN" -b -p "$@" > "$T/out" 2> "$T/err"
    local rc=$?
    set -e
    expect_eq "$what: exit status" 2 "$rc"
    grep -Eq "^calltrace-report: [^:]*: $where: " "$T/err" ||
        fail "$what: no file and place named: '$(cat "$T/err")'"
    expect_eq "$what: error lines" 1 "$(grep -vc 'warning' "$T/err")"
}

# --- a forced --format on every other reader's file ---------------------------
for fmt in calltrace openlaszlo lms rtl samplingprof evlog; do
    case $fmt in calltrace|evlog) where='byte [0-9]+';; *) where='line [0-9]+';; esac
    for other in calltrace openlaszlo lms rtl samplingprof evlog; do
        [ "$fmt" = "$other" ] && continue
        bad "--format=$fmt on $other" "$where" --format=$fmt "$T/good.$other"
    done
    bad "--format=$fmt on an executable" "$where" --format=$fmt "$T/elf.bin"
    bad "--format=$fmt on prose" "$where" --format=$fmt "$T/prose.txt"
done

# --- text logs: a line of garbage or of binary bytes among the records -----------
for fmt in openlaszlo lms rtl samplingprof; do
    good=$T/good.$fmt
    n=$(wc -l < "$good")
    mid=$((n / 2 + 1))
    for kind in words binary nul; do
        case $kind in
            words)  line='this is not a record';;
            binary) line=$'\x01\x02\x03\x7f\x1b[0m';;
            nul)    line=$'12 C na\x01me';;
        esac
        { head -n $((mid - 1)) "$good"; printf '%s\n' "$line"; tail -n +$mid "$good"; } \
            > "$T/bad.$fmt"
        bad "$fmt with $kind at line $mid" "line $mid" --format=$fmt "$T/bad.$fmt"
        "$REPORT_SAN" -b -p --lenient --format=$fmt "$T/bad.$fmt" > "$T/out" 2> "$T/err" ||
            fail "$fmt with $kind: --lenient did not go on: $(cat "$T/err")"
        grep -Eq "skipped [1-9][0-9]* malformed line" "$T/err" ||
            fail "$fmt with $kind: --lenient did not count: $(cat "$T/err")"
    done
done

# --- binary formats: damage in the middle names the byte ---------------------------
for fmt in calltrace evlog; do
    good=$T/good.$fmt
    size=$(stat -c %s "$good")
    cp "$good" "$T/bad.$fmt"
    printf '\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff' |
        dd of="$T/bad.$fmt" bs=1 seek=$((size / 2)) conv=notrunc status=none
    set +e
    "$REPORT_SAN" -b -p --format=$fmt "$T/bad.$fmt" > "$T/out" 2> "$T/err"
    rc=$?
    set -e
    # The damage may fall where the format has no checks (a timestamp): then
    # the file is read, and that is all this can ask.
    if [ "$rc" != 0 ]; then
        expect_eq "$fmt damaged: exit status" 2 "$rc"
        grep -Eq "bad\.$fmt: (byte|block|thread)" "$T/err" || fail "$fmt damaged: $(cat "$T/err")"
    fi
done
