#!/usr/bin/env bash
# No blocking call of a sampled program returns EINTR because of the
# sampling, whatever the clock: nanosleep, poll, select, epoll_wait and
# sigtimedwait are never restarted after a signal handler, so the sampler
# must send the program no signal (tests/programs/sample_eintr.c).
. "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "no $LIB"

gcc -std=gnu11 -O1 -g -o "$T/eintr" "$PROGRAMS/sample_eintr.c"
expect_eq "untraced" "eintr 0" "$("$T/eintr" 5)"
for clock in cpu wall; do
    got=$(CALLTRACE_MODE=sample CALLTRACE_SAMPLE_INTERVAL=1ms \
          CALLTRACE_SAMPLE_CLOCK=$clock CALLTRACE_QUIET=1 \
          run_traced "$T/$clock.raw" "$T/eintr" 2>"$T/$clock.err")
    expect_eq "$clock clock: blocking calls interrupted ($(sort "$T/$clock.err" | uniq -c | tr '\n' ' '))" \
        "eintr 0" "$got"
    "$REPORT_SAN" "$T/$clock.raw" >/dev/null || fail "$clock: report failed"
done
# The same in both mode, calls traced and samples taken.
build_traced "$T/eintr_i" "$PROGRAMS/sample_eintr.c"
got=$(CALLTRACE_MODE=both CALLTRACE_SAMPLE_INTERVAL=1ms CALLTRACE_SAMPLE_CLOCK=wall \
      CALLTRACE_QUIET=1 run_traced "$T/b.raw" "$T/eintr_i" 2>"$T/b.err")
expect_eq "both mode, wall clock" "eintr 0" "$got"
echo ok
