#!/usr/bin/env bash
# --short-names: the flat profile and the call graph show C++ names with
# template arguments and parameters elided, the index keeps the full ones,
# and the figures do not change.  Calls by construction (dump_cxx.cpp):
# area<int> 2, area<double> 1, Box::volume 1.
. "$(dirname "$0")/lib.sh"
g++ -O1 -g -finstrument-functions -o "$T/cxx" "$PROGRAMS/dump_cxx.cpp"
run_traced "$T/cxx.raw" "$T/cxx" >/dev/null
"$REPORT_SAN" -b --short-names "$T/cxx.raw" > "$T/short.txt"
"$REPORT_SAN" -b "$T/cxx.raw" > "$T/full.txt"
flat() { sed -n '/^Flat profile:/,/^\f/p' "$1"; }
graph() { sed -n '/Call graph/,/^\f/p' "$1"; }
index() { sed -n '/^Index by function name/,$p' "$1"; }
calls() { flat "$1" | awk -v f="$2" 'index($0, f) { print $4 }'; }
expect_eq "short area<int>" 2 "$(calls "$T/short.txt" ' int shapes::area<...>(...) [')"
expect_eq "short area<double>" 1 "$(calls "$T/short.txt" ' double shapes::area<...>(...) [')"
expect_eq "short Box::volume" 1 "$(calls "$T/short.txt" ' shapes::Box::volume() const [')"
graph "$T/short.txt" | has -F 'int shapes::area<...>(...) [' || fail "call graph not short"
if flat "$T/short.txt" | has -F 'area<int>'; then fail "full name in the short flat profile"; fi
index "$T/short.txt" | has -F 'int shapes::area<int>(int, int)' || fail "index lost the full name"
expect_eq "index unchanged" "$(index "$T/full.txt")" "$(index "$T/short.txt")"
# Only the names differ: the same figures, line by line.
strip() { sed -E 's/ [^ ].*\[[0-9]+\]$//' "$1"; }
expect_eq "figures unchanged" "$(flat "$T/full.txt" | strip /dev/stdin)" \
    "$(flat "$T/short.txt" | strip /dev/stdin)"
echo "report_short_names: ok"
