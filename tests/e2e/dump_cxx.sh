#!/usr/bin/env bash
# --dump names C++ functions demangled: a namespace, a template at two
# types and a const member function.
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "no $LIB: the tracer is not built"
g++ -O1 -g -finstrument-functions -o "$T/cxx" "$PROGRAMS/dump_cxx.cpp"
expect_eq "output" "25 3.0" "$(run_traced "$T/cxx.raw" "$T/cxx")"
[ -s "$T/cxx.raw" ] || skip "the tracer wrote no trace"
"$REPORT_SAN" --dump "$T/cxx.raw" > "$T/dump.txt" 2> "$T/err.txt" ||
    fail "--dump exit $?: $(cat "$T/err.txt")"
grep -q ' C main$' "$T/dump.txt" || skip "the tracer recorded no calls"
n() { grep -cF " C $1" "$T/dump.txt" || true; }
expect_eq "area<int>" 2 "$(n 'int shapes::area<int>(int, int)')"
expect_eq "area<double>" 1 "$(n 'double shapes::area<double>(double, double)')"
expect_eq "Box::volume" 1 "$(n 'shapes::Box::volume() const')"
expect_eq "returns" 5 "$(awk '$2=="R"' "$T/dump.txt" | wc -l)"
echo "ok"
