#!/usr/bin/env bash
# --focus: a glob, an exact name (C++ without its parameter list), a unique
# prefix; one line and exit 1 when nothing matches or a prefix is ambiguous.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "tracer library not built ($LIB)"

gcc -std=gnu11 -O0 -g -finstrument-functions -I"$CT_ROOT/include" \
    -o "$T/calls" "$PROGRAMS/report_calls.c"
run_traced "$T/calls.raw" "$T/calls" >/dev/null
g++ -O0 -g -finstrument-functions -I"$CT_ROOT/include" \
    -o "$T/cxx" "$PROGRAMS/dump_cxx.cpp"
run_traced "$T/cxx.raw" "$T/cxx" >/dev/null

entries() { # the call graph's primary lines' names, in name order
    awk '/^\[[0-9]+\]/ { sub(/^\[[0-9]+\] +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9+]+ +/, "");
                         sub(/ \[[0-9]+\]$/, ""); print }' | sort | paste -sd'|'
}

# nothing matches: one line, exit 1, no report
set +e
"$REPORT_SAN" -b --focus=nosuch "$T/calls.raw" > "$T/out" 2> "$T/err"
rc=$?
set -e
expect_eq "no match: exit" 1 "$rc"
expect_eq "no match: one line" 1 "$(wc -l < "$T/err")"
grep -q "no function of that name" "$T/err" || fail "no match: $(cat "$T/err")"
[ ! -s "$T/out" ] || fail "no match: a report was printed"

# ambiguous prefix: the candidates are named
set +e
"$REPORT_SAN" -b -qis_ "$T/calls.raw" > "$T/out" 2> "$T/err"
rc=$?
set -e
expect_eq "ambiguous: exit" 1 "$rc"
grep -Eq "several names: is_(even|odd), is_(odd|even)$" "$T/err" || fail "ambiguous: $(cat "$T/err")"

# exact name, unique prefix and glob
expect_eq "exact" "fact" "$("$REPORT_SAN" -b --focus=fact "$T/calls.raw" | entries)"
expect_eq "prefix" "fact" "$("$REPORT_SAN" -b --focus=fa "$T/calls.raw" | entries)"
expect_eq "glob" "<cycle 1 as a whole>|is_even <cycle 1>|is_odd <cycle 1>|scale" \
    "$("$REPORT_SAN" -b --focus='is_*' "$T/calls.raw" | entries)"

# C++: the name without parameters or namespace names every instance
expect_eq "C++ unqualified" \
    "double shapes::area<double>(double, double)|int shapes::area<int>(int, int)" \
    "$("$REPORT_SAN" -b --focus=area "$T/cxx.raw" | entries)"
expect_eq "C++ member" "int shapes::area<int>(int, int)|shapes::Box::volume() const" \
    "$("$REPORT_SAN" -b --focus=Box::volume "$T/cxx.raw" | entries)"
expect_eq "C++ prefix" "int shapes::area<int>(int, int)|shapes::Box::volume() const" \
    "$("$REPORT_SAN" -b --focus=shapes::B "$T/cxx.raw" | entries)"
