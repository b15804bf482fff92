#!/usr/bin/env bash
# The flat profile's per-call columns: no figure reads 0.00 because a long
# function set the unit; every one has at least three significant digits
# (>= 1.00 in the columns' unit), also when main's one call is a million
# times a leaf's.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "tracer library not built ($LIB)"

cat > "$T/wide.c" <<'C'
static volatile unsigned long sink;
__attribute__((noinline)) void tiny(void) { sink++; }
__attribute__((noinline)) void slow(void)
{
    for (long i = 0; i < 20000000; i++)
        sink += i;
}
int main(void)
{
    for (int i = 0; i < 1000; i++)
        tiny();
    slow();
    return 0;
}
C
build_traced "$T/wide" "$T/wide.c"
run_traced "$T/wide.raw" "$T/wide"
for f in "$T/wide.raw"; do
    "$REPORT_SAN" -b -p "$f" > "$T/flat.txt"
    awk '/^Flat profile/,/^\f/' "$T/flat.txt" |
        awk 'NF >= 7 && $1 ~ /^[0-9.]+$/ && $4 ~ /^[0-9]+$/ {
                 if ($5 + 0 < 1 || $6 + 0 < 1) { print "small:", $0; bad = 1 }
                 n++ }
             END { if (n < 3) { print "rows:", n; bad = 1 }; exit bad }' ||
        fail "a per-call figure below 1.00: $(cat "$T/flat.txt")"
done
# the heading names the unit, and the columns stay aligned with it
head=$(grep -m1 '/call' "$T/flat.txt")
row=$(grep -m1 ' tiny \[' "$T/flat.txt")
expect_eq "heading and row end their per-call columns together" \
    "$(echo "$head" | awk '{ print index($0, "/call  name") + 4 }')" \
    "$(echo "$row" | awk '{ print index($0, "  tiny") - 1 }')"
