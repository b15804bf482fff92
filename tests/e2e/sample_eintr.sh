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

# Where perf_event_open is refused (a shim stands for a locked-down
# kernel), the CPU-clock SIGPROF timer samples and one line says so.  It
# fires while the thread runs, so EINTR is rare but not impossible: the
# count is not checked here.
cat >"$T/noperf.c" <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <sys/syscall.h>
long syscall(long n, ...)
{
    va_list ap;
    va_start(ap, n);
    long a[6];
    for (int i = 0; i < 6; i++)
        a[i] = va_arg(ap, long);
    va_end(ap);
    if (n == SYS_perf_event_open) {
        errno = EACCES;
        return -1;
    }
    long (*real)(long, ...) = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
    return real(n, a[0], a[1], a[2], a[3], a[4], a[5]);
}
EOF
gcc -std=gnu11 -shared -fPIC -O1 -o "$T/noperf.so" "$T/noperf.c" -ldl
gcc -std=gnu11 -O2 -Wall -Wextra -Werror -I"$CT_ROOT/include" \
    -o "$T/sample_decode" "$PROGRAMS/sample_decode.c"
CALLTRACE_MODE=sample CALLTRACE_SAMPLE_INTERVAL=1ms CALLTRACE_OUTPUT="$T/r.raw" \
    LD_PRELOAD="$T/noperf.so $LIB" "$T/eintr" >/dev/null 2>"$T/r.err"
expect_eq "refused: stderr lines" 1 "$(grep -vc ': EINTR$' "$T/r.err")"
grep -q "perf_event_open refused (Permission denied.*SIGPROF timer" "$T/r.err" ||
    fail "refused: stderr: $(cat "$T/r.err")"
"$T/sample_decode" "$T/r.raw" | has "^S " || fail "refused: no samples from the timer"
echo ok
