#!/usr/bin/env bash
# CALLTRACE_FILTER=size=N, uftrace's -Z N: the functions smaller than N
# bytes are left out as by -NAME, their callers and callees kept
# (tests/programs/filter_size.c, counts by construction).  N is read off
# the binary as uftrace's own t278_size_filter1 does: one byte more than
# tiny(), the smallest, so that it alone goes.  Bad values are refused
# with one line.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "no $LIB: the tracer is not built"
build_traced "$T/size" "$PROGRAMS/filter_size.c"
size_of() { local s; s=$(nm -S --defined-only "$T/size" | awk -v n="$1" '$4 == n { print $2 }'); [ -n "$s" ] && echo $((16#$s)); }
tiny=$(size_of tiny) mid=$(size_of mid)
[ -n "$tiny" ] && [ -n "$mid" ] && [ "$tiny" -lt "$mid" ] || fail "sizes: tiny $tiny, mid $mid"

calls() { awk -v n="$2" '/^Flat profile/ { f = 1 } /Call graph/ { f = 0 }
    f && NF > 2 && $(NF-1) == n { print $4 }' "$1"; }

"$T/size" > "$T/plain.out"
CALLTRACE_FILTER="size=$((tiny + 1))" run_traced "$T/t.raw" "$T/size" > "$T/t.out" 2> "$T/t.err" ||
    fail "traced: status $?"
cmp -s "$T/plain.out" "$T/t.out" || fail "output changed"
[ ! -s "$T/t.err" ] || fail "said: $(cat "$T/t.err")"
"$REPORT_SAN" -b "$T/t.raw" > "$T/t.txt" || fail "report"
expect_eq "kept" "big=3 mid=5 main=1" \
    "big=$(calls "$T/t.txt" big) mid=$(calls "$T/t.txt" mid) main=$(calls "$T/t.txt" main)"
expect_eq "left out" "" "$(calls "$T/t.txt" tiny)"
grep -q "size=$((tiny + 1))" "$T/t.txt" || fail "the summary does not name the rule"

# One byte less: tiny is not smaller than N, and stays.
CALLTRACE_FILTER="size=$tiny" run_traced "$T/u.raw" "$T/size" > /dev/null 2> "$T/u.err" ||
    fail "traced at size=$tiny: status $?"
"$REPORT_SAN" -b "$T/u.raw" > "$T/u.txt" || fail "report at size=$tiny"
expect_eq "size=$tiny keeps tiny" 7 "$(calls "$T/u.txt" tiny)"

# PATTERN:size=N (uftrace's -T F@size=N): only those functions.  mid is
# smaller than 1000 bytes too, but not named.  A library call counts as
# its 16-byte PLT entry, as uftrace's -Z sees it: size=17 leaves
# printf@plt out and every function of the program in.
CALLTRACE_FILTER="tiny:size=1000" run_traced "$T/p.raw" "$T/size" > /dev/null ||
    fail "tiny:size=1000: status $?"
"$REPORT_SAN" -b "$T/p.raw" > "$T/p.txt" || fail "report of tiny:size=1000"
expect_eq "tiny:size=1000" "tiny= mid=5" \
    "tiny=$(calls "$T/p.txt" tiny) mid=$(calls "$T/p.txt" mid)"
CALLTRACE_LIBCALLS=plt CALLTRACE_FILTER="size=17" run_traced "$T/l.raw" "$T/size" > /dev/null ||
    fail "size=17: status $?"
"$REPORT_SAN" -b "$T/l.raw" > "$T/l.txt" || fail "report of size=17"
expect_eq "size=17" "printf@plt= tiny=7" \
    "printf@plt=$(calls "$T/l.txt" printf@plt) tiny=$(calls "$T/l.txt" tiny)"
CALLTRACE_LIBCALLS=plt CALLTRACE_FILTER="size=16" run_traced "$T/m.raw" "$T/size" > /dev/null ||
    fail "size=16: status $?"
"$REPORT_SAN" -b "$T/m.raw" > "$T/m.txt" || fail "report of size=16"
expect_eq "size=16 keeps printf@plt" 3 "$(calls "$T/m.txt" printf@plt)"

# Bad values: one line, and the program runs traced without the filter.
for bad in size=0 size=x size=-3 size=1,size=2 tiny:size=0 tiny:notrace:size=5; do
    CALLTRACE_FILTER=$bad run_traced "$T/b.raw" "$T/size" > /dev/null 2> "$T/b.err" ||
        fail "$bad: status $?"
    expect_eq "$bad: lines" 1 "$(grep -c . "$T/b.err")"
    grep -q "size=N" "$T/b.err" || fail "$bad: said $(cat "$T/b.err")"
    rm -f "$T"/b.raw*
done
echo ok
