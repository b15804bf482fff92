#!/bin/bash
# --export perfetto: protoc decodes the trace with Perfetto's own message
# definitions (the subset in tests/proto), the slices begin before they
# end and nest per thread, and the counts (calls, frames that never
# returned, user events, overhead) are the report's and the chrome
# export's; every reader's input is exported or refused clearly.
. "$(dirname "$0")/lib.sh"
command -v protoc >/dev/null || skip "protoc is not installed"
PROTO=$CT_ROOT/tests/proto
decode() {
    protoc --decode=perfetto.protos.Trace -I "$PROTO" \
        "$PROTO/perfetto_subset.proto" <"$1" 2>"$T/protoc.err" ||
        fail "protoc cannot decode $1: $(cat "$T/protoc.err")"
    [ ! -s "$T/protoc.err" ] || fail "protoc warns: $(cat "$T/protoc.err")"
}
check() { decode "$1" | python3 "$CT_ROOT/tests/e2e/tools/check_perfetto.py"; }

g++ -O1 -g -finstrument-functions -I"$CT_ROOT/include" -o "$T/mix" \
    "$PROGRAMS/export_mix.cpp" -lpthread
run_traced "$T/mix.raw" "$T/mix" >/dev/null
"$REPORT_SAN" -b -p "$T/mix.raw" >"$T/report"
calls=$(sed -n 's/^ Events: .*(\([0-9]*\) calls.*/\1/p' "$T/report")
open_end=$(sed -n 's/.* \([0-9]*\) frames open at the end.*/\1/p' "$T/report")
"$REPORT_SAN" --export perfetto -o "$T/mix.pftrace" "$T/mix.raw"
expect_eq "perfetto counts" \
    "calls=$calls never_returned=$open_end user=3 calltrace-lost=0 overhead=2" \
    "$(check "$T/mix.pftrace")"
decode "$T/mix.pftrace" >"$T/mix.txt"
grep -q 'name: "ns::Grid<int>::step(int)"' "$T/mix.txt" ||
    fail "interned C++ name"
grep -q 'thread_name: "thread ' "$T/mix.txt" || fail "thread names"

# the same slices as the chrome export, from every reader's input
F=$CT_ROOT/tests/formats
"$REPORT_SAN" --export lms -o "$T/mix.csv" "$T/mix.raw" 2>/dev/null
for f in "$T/mix.raw" "$F/calltrace_small.raw" "$F/evlog_be_cross.log" \
         "$F/openlaszlo_edge.profiler" "$F/rtl_wrap_1.log" "$T/mix.csv"; do
    "$REPORT_SAN" --export perfetto -o "$T/x.pftrace" "$f" 2>/dev/null ||
        fail "perfetto from $f"
    "$REPORT_SAN" --export chrome -o "$T/x.json" "$f" 2>/dev/null
    expect_eq "perfetto and chrome from $f" \
        "$(python3 "$CT_ROOT/tests/e2e/tools/check_chrome.py" "$T/x.json")" \
        "$(check "$T/x.pftrace")"
done
set +e
"$REPORT_SAN" --export perfetto -o "$T/y" "$F/samplingprof_two_docs.txt" \
    2>"$T/err"
st=$?
set -e
expect_eq "perfetto from aggregated samples: exit" 2 "$st"
grep -q 'per-function sample counts but no' "$T/err" || fail "$(cat "$T/err")"
echo ok
