#!/bin/bash
# --export flamegraph: the SVG is well-formed XML, rsvg-convert renders it
# (PNG in build/exports/), its frames' widths add up to the report's total
# (the folded export's sum), and in headless Chromium a click zooms and
# the search finds; --icicle and sampled/foreign inputs too.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tools/viewers.sh"
command -v rsvg-convert >/dev/null || skip "rsvg-convert is not installed"
command -v xmllint >/dev/null || skip "xmllint is not installed"
SHOTS=$CT_BUILD/exports
mkdir -p "$SHOTS"
check() { python3 "$CT_ROOT/tests/e2e/tools/check_flamegraph.py" "$@"; }

build_traced "$T/rc" "$PROGRAMS/report_calls.c"
run_traced "$T/rc.raw" "$T/rc" >/dev/null
"$REPORT_SAN" --export flamegraph -o "$T/rc.svg" "$T/rc.raw"
xmllint --noout "$T/rc.svg" || fail "not well-formed"
"$REPORT_SAN" --export folded -o "$T/rc.folded" "$T/rc.raw"
sum=$(awk '{s += $NF} END {print s}' "$T/rc.folded")
check "$T/rc.svg" "$sum" >/dev/null || fail "widths"
rsvg-convert -o "$SHOTS/flamegraph.png" "$T/rc.svg" || fail "rsvg-convert"
[ "$(stat -c %s "$SHOTS/flamegraph.png")" -gt 5000 ] || fail "empty PNG"

# calls: report_calls makes 200 calls of work
"$REPORT_SAN" --export flamegraph --folded-value=calls --icicle \
    -o "$T/calls.svg" "$T/rc.raw"
calls=$(sed -n 's/^ Events: .*(\([0-9]*\) calls.*/\1/p' \
    <("$REPORT_SAN" -b -p "$T/rc.raw"))
check "$T/calls.svg" "$calls" >/dev/null || fail "calls widths"
grep -q 'data-n="work"[^>]*><title>work: [0-9]* calls ([0-9.]*%), own 200 calls<' \
    "$T/calls.svg" ||
    fail "work's calls"
rsvg-convert -o "$SHOTS/icicle.png" "$T/calls.svg" || fail "rsvg-convert"

# threads and awkward names
g++ -O1 -g -finstrument-functions -I"$CT_ROOT/include" -o "$T/mix" \
    "$PROGRAMS/export_mix.cpp" -lpthread
run_traced "$T/mix.raw" "$T/mix" >/dev/null
"$REPORT_SAN" --export flamegraph --threads -o "$T/mix.svg" "$T/mix.raw"
xmllint --noout "$T/mix.svg" || fail "mix: not well-formed"
check "$T/mix.svg" >/dev/null || fail "mix widths"
# by calls, so the frame is wide enough to be drawn whatever the timing
"$REPORT_SAN" --export flamegraph --threads --folded-value=calls \
    -o "$T/mix.svg" "$T/mix.raw"
check "$T/mix.svg" 85 >/dev/null || fail "mix calls"
grep -q 'data-n="ns::Grid&lt;int&gt;::step(int)"' \
    "$T/mix.svg" || fail "escaped C++ name"

# foreign inputs
F=$CT_ROOT/tests/formats
for f in "$F/evlog_be_cross.log" "$F/openlaszlo_edge.profiler" \
         "$F/rtl_wrap_1.log"; do
    "$REPORT_SAN" --export flamegraph -o "$T/x.svg" "$f" 2>/dev/null ||
        fail "flamegraph from $f"
    check "$T/x.svg" >/dev/null || fail "widths from $f"
done
set +e
"$REPORT_SAN" --export flamegraph -o "$T/y" "$F/samplingprof_two_docs.txt" \
    2>"$T/err"
st=$?
set -e
expect_eq "flamegraph from aggregated samples: exit" 2 "$st"

# interactive: in Chromium a click zooms, the search finds
if command -v node >/dev/null && [ -x /usr/bin/chromium ] &&
   (need_speedscope) >/dev/null 2>&1; then
    NODE_PATH=$NPM_DIR/node_modules timeout 120 node \
        "$CT_ROOT/tests/e2e/tools/flamegraph_click.js" "$T/rc.svg" work \
        "$SHOTS/flamegraph-chromium.png" || fail "flamegraph in Chromium"
fi
echo ok
