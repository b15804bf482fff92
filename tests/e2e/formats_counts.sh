#!/usr/bin/env bash
# Each reader's summary counts (events, calls, returns, user events,
# samples, lost) against inputs whose counts are known by construction.
. "$(dirname "$0")/lib.sh"
F=$CT_ROOT/tests/formats

events() { # FILE [ARGS]: the summary's Events line, without its label
    "$REPORT_SAN" -b -p "$@" | sed -n 's/^ Events: //p'
}

# OpenLaszlo: C main loop, C init, C draw (merged into a V), C2 worker,
# C again (merged) = 5 calls; R init, R draw, R main loop, R2 worker,
# "returns:nothing open" = 5 returns; one user event (tick), "lost: 3
# events" is lost, not a user event; S and E: 14 events in all.
expect_eq "openlaszlo" "14 (5 calls, 5 returns, 1 user events, 0 samples)" \
    "$(events "$F/openlaszlo_edge.profiler")"
expect_eq "openlaszlo lost" " Lost events: 3" \
    "$("$REPORT_SAN" -b -p "$F/openlaszlo_edge.profiler" | grep '^ Lost events')"

# RTL: { A::run, { phase one, { B::go = 3 calls; their 3 ends; two '|'
# messages ("clock stepped back" and B::go's empty one).
expect_eq "rtl" "8 (3 calls, 3 returns, 2 user events, 0 samples)" \
    "$(events "$F/rtl_wrap_1.log")"

# SamplingProf: samples are the self counts: 0+2+2 in the first document,
# 1+0 in the second.  (It said "0 samples".)
expect_eq "samplingprof" "0 (0 calls, 0 returns, 0 user events, 5 samples)" \
    "$(events "$F/samplingprof_two_docs.txt")"
"$REPORT_SAN" -b -p "$F/samplingprof_two_docs.txt" |
    has "^ Sampled: figures are statistical; 5 samples" || fail "samplingprof: Sampled line"
# ten samples, one document: fib on top of 5
printf '100\n\nx.rb:1:main,0\nx.rb:5:fib,1\n\n0,5,10\n1,5,5\n\n-1,0,10\n0,1,5\n' > "$T/ten.txt"
expect_eq "samplingprof ten" "0 (0 calls, 0 returns, 0 user events, 10 samples)" \
    "$(events "$T/ten.txt")"

# lms: three spans (outer twice, inner once inside the first outer)
printf '2,0,outer\n2,1,inner\n0,0,0\n0,1,10\n1,1,20\n1,0,30\n0,0,40\n1,0,50\n' > "$T/c.csv"
expect_eq "lms" "6 (3 calls, 3 returns, 0 user events, 0 samples)" "$(events "$T/c.csv")"
