#!/usr/bin/env bash
# A call into an instrumented shared library through the PLT is two
# frames: the library call `lib_entry@plt` (recorded by the caller's
# patched GOT slot, timed from the caller's call to its return: the PLT
# jump and the tracer's stub included) and inside it the instrumented
# function `lib_entry` (recorded by its own hooks).  They are kept apart,
# not merged: the outer one is where the caller crossed into another
# object, and the difference of their times is the cost of that crossing.
# Every view shows the same nesting: --dump, --tree, the call graph,
# callgrind and the folded stacks (tests/programs/libcalls_into.c with
# tests/programs/dump_lib.c).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/libcalls-lib.bash"
[ -f "$LIB" ] || skip "no $LIB"
unset CALLTRACE_LIBCALLS   # the default

gcc -O1 -g -fPIC -shared -finstrument-functions -o "$T/libdumplib.so" \
    "$PROGRAMS/dump_lib.c"
build_traced "$T/main" "$PROGRAMS/libcalls_into.c" -L"$T" -ldumplib
export LD_LIBRARY_PATH=$T
expect_eq "untraced output" 42 "$("$T/main")"
expect_eq "traced output" 42 "$(run_traced "$T/t.raw" "$T/main")"

expected() {
    echo main
    for _ in 1 2 3; do
        printf '%s\n' "  lib_entry@plt" "    lib_entry"
        for _ in 1 2 3 4; do echo "      lib_square"; done
    done
    echo "  printf@plt"
}
expect_eq "--dump" "$(expected)" "$(thread_trees "$T/t.raw" | tree_of /dev/stdin 1)"

# --tree: the same nesting, line for line.
"$REPORT_SAN" --tree "$T/t.raw" > "$T/tree.txt"
expect_eq "--tree" "$(expected | sed 's/$/()/')" "$(awk 'match($0, /\| /) {
    line = substr($0, RSTART + 2); if (line ~ /^ *}/) next
    sub(/ \{$/, "", line); sub(/;$/, "", line); print line }' "$T/tree.txt")"

# The call graph: lib_entry is called 3 times, by lib_entry@plt alone.
expect_eq "report: lib_entry@plt" 3 "$(report_calls "$T/t.raw" lib_entry@plt)"
expect_eq "report: lib_entry" 3 "$(report_calls "$T/t.raw" lib_entry)"
"$REPORT_SAN" -b -q "$T/t.raw" > "$T/graph.txt"
caller=$(grep -B1 -E '^\[[0-9]+\] .* lib_entry \[[0-9]+\]$' "$T/graph.txt" | sed -n 1p)
case $caller in
*" 3/3 "*" lib_entry@plt ["*) ;;
*) fail "call graph: lib_entry's caller: $caller" ;;
esac

# callgrind: 3 calls from lib_entry@plt into lib_entry, none from main.
"$REPORT_SAN" --export=callgrind -o "$T/cg.out" "$T/t.raw"
expect_eq "callgrind" "lib_entry@plt 3" "$(awk '/^fn=/ { fn = substr($0, 4) }
    /^cfn=/ { f = ($0 == "cfn=lib_entry") }
    /^calls=/ && f { split($0, a, /[= ]/); n[fn] += a[2]; f = 0 }
    END { for (k in n) print k, n[k] }' "$T/cg.out")"

# folded stacks: lib_square only ever under main;lib_entry@plt;lib_entry.
"$REPORT_SAN" --export=folded -o "$T/f.folded" "$T/t.raw"
expect_eq "folded" "main;lib_entry@plt;lib_entry;lib_square" \
    "$(awk '{ sub(/ [0-9]+$/, "") } /lib_square/' "$T/f.folded" | sort -u)"

# --hide='*@plt' merges each pair into the function alone.
"$REPORT_SAN" --tree --hide='*@plt' "$T/t.raw" > "$T/hidden.txt"
expect_eq "--hide='*@plt': lib_entry under main" 3 "$(grep -c '|   lib_entry() {$' "$T/hidden.txt")"
expect_eq "--hide='*@plt': no library call" 0 "$(grep -c '@plt' "$T/hidden.txt" || true)"

# uftrace 0.13 draws the same picture, naming the PLT call after its
# symbol: `lib_entry() { lib_entry() { lib_square(); ... } }`, so its
# report counts lib_entry 6 times (3 PLT calls, 3 of the function).
if command -v uftrace >/dev/null 2>&1; then
    if timeout 120 uftrace record -d "$T/u.data" "$T/main" > "$T/u.out" 2>&1; then
        uftrace report -d "$T/u.data" > "$T/u.rep" 2>/dev/null
        expect_eq "uftrace: lib_square calls" 12 \
            "$(awk '$NF == "lib_square" { print $(NF-1) }' "$T/u.rep")"
        expect_eq "uftrace: lib_entry calls (the PLT call and the function)" 6 \
            "$(awk '$NF == "lib_entry" { print $(NF-1) }' "$T/u.rep")"
    else
        echo "note: uftrace could not record here ($(tail -1 "$T/u.out")); comparison skipped"
    fi
fi
echo ok
