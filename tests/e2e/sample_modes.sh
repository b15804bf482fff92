#!/usr/bin/env bash
# Sampling mode beyond the plain profile: the kernel samples without a
# signal, so the program's own SIGPROF handler (installed after us, or
# before us by another profiler) gets its own signals and none of ours
# while sampling goes on; the wall clock sees blocked time (the kernel's
# context-switch samples, where it allows them: root in CI; elsewhere it
# says it cannot) and the CPU clock does not; `both` puts calls and
# samples of an instrumented program in one trace.
source "$(dirname "$0")/lib.sh"
[ -f "$LIB" ] || skip "no $LIB"
command -v python3 >/dev/null || skip "python3 not installed"

gcc -std=gnu11 -O2 -Wall -Wextra -Werror -I"$CT_ROOT/include" \
    -o "$T/sample_decode" "$PROGRAMS/sample_decode.c"
gcc -std=gnu11 -O1 -g -o "$T/sample_sigprof" "$PROGRAMS/sample_sigprof.c"
gcc -std=gnu11 -O1 -g -no-pie -o "$T/sample_wall" "$PROGRAMS/sample_wall.c"

# --- the program takes SIGPROF after us ------------------------------------
for how in sigaction signal; do
    arg=; [ $how = signal ] && arg=signal
    "$T/sample_sigprof" $arg >"$T/expected"
    CALLTRACE_MODE=sample CALLTRACE_SAMPLE_INTERVAL=1ms \
        run_traced "$T/p-$how.raw" "$T/sample_sigprof" $arg >"$T/got" 2>"$T/err"
    cmp -s "$T/expected" "$T/got" || fail "$how: output differs: $(cat "$T/got")"
    grep -q "foreign signals: 0" "$T/got" || fail "$how: our signals reached the program"
    expect_eq "$how: stderr" "" "$(cat "$T/err")"
    "$T/sample_decode" "$T/p-$how.raw" >"$T/p.txt" || fail "$how: trace unreadable"
    ! grep -q "^V .*sampling stopped" "$T/p.txt" || fail "$how: sampling stopped"
    grep -q "^S " "$T/p.txt" || fail "$how: no samples"
done

# --- the SIGPROF timer (where perf_event_open is refused): the program wins -
for how in sigaction signal; do
    arg=; [ $how = signal ] && arg=signal
    "$T/sample_sigprof" $arg >"$T/expected"
    CALLTRACE_SAMPLE_TIMER=1 CALLTRACE_MODE=sample CALLTRACE_SAMPLE_INTERVAL=1ms \
        run_traced "$T/t-$how.raw" "$T/sample_sigprof" $arg >"$T/got" 2>"$T/err"
    cmp -s "$T/expected" "$T/got" || fail "timer, $how: output differs: $(cat "$T/got")"
    grep -q "foreign signals: 0" "$T/got" || fail "timer, $how: our signals reached the program"
    expect_eq "timer, $how: stderr lines" 1 "$(wc -l <"$T/err")"
    grep -q "own SIGPROF handler: sampling stopped" "$T/err" || fail "timer, $how: stderr: $(cat "$T/err")"
    "$T/sample_decode" "$T/t-$how.raw" >"$T/p.txt" || fail "timer, $how: trace unreadable"
    grep -q "^V .*own SIGPROF handler: sampling stopped" "$T/p.txt" ||
        fail "timer, $how: the trace does not say sampling stopped"
done

# --- another profiler holds SIGPROF before us -------------------------------
profiler=/usr/lib/x86_64-linux-gnu/libprofiler.so
if [ -f "$profiler" ]; then
    gcc -std=gnu11 -O1 -g -o "$T/sample_7030" "$PROGRAMS/sample_7030.c" -ldl
    CPUPROFILE=$T/gperf.prof CALLTRACE_MODE=sample CALLTRACE_OUTPUT=$T/g.raw \
        LD_PRELOAD="$LIB $profiler" "$T/sample_7030" 5 >"$T/got" 2>"$T/err"
    expect_eq "with gperftools: output" "done 5 rounds" "$(cat "$T/got")"
    ! grep -q "SIGPROF already has a handler" "$T/err" || fail "with gperftools: $(cat "$T/err")"
    grep -q "PROFILE: interrupts" "$T/err" || fail "gperftools' profiler did not run"
    "$T/sample_decode" "$T/g.raw" >"$T/g.txt"
    grep -q "^S " "$T/g.txt" || fail "with gperftools: no samples of ours"
else
    echo "gperftools not installed: the pre-existing handler case is not run"
fi

# --- wall clock against CPU clock -------------------------------------------
# Share of samples (by weight) with sleeper on the stack; -no-pie, so nm's
# addresses are run-time addresses.
sleeper_share() {
    python3 - "$1" "$2" <<'PY'
import subprocess, sys
syms = {}
for l in subprocess.run(['nm', '-S', '--defined-only', sys.argv[2]],
                        capture_output=True, text=True).stdout.splitlines():
    p = l.split()
    if len(p) == 4 and p[3] in ('sleeper', 'burner'):
        syms[p[3]] = (int(p[0], 16), int(p[0], 16) + int(p[1], 16))
total = hit = 0
for line in open(sys.argv[1]):
    f = line.split()
    if f[0] != 'S':
        continue
    w, pcs = int(f[2]), [int(x, 16) for x in f[4:]]
    total += w
    lo, hi = syms['sleeper']
    if any(lo <= pc - (i > 0) < hi for i, pc in enumerate(pcs)):
        hit += w
print('%.1f %d' % (100.0 * hit / max(total, 1), total))
PY
}
for clock in wall cpu; do
    CALLTRACE_MODE=sample CALLTRACE_SAMPLE_CLOCK=$clock CALLTRACE_SAMPLE_INTERVAL=2ms \
        run_traced "$T/w-$clock.raw" "$T/sample_wall" "$T/walls" >"$T/got" 2>"$T/err"
    expect_eq "$clock: output" done "$(cat "$T/got")"
    "$T/sample_decode" "$T/w-$clock.raw" >"$T/w.txt"
    read -r share total < <(sleeper_share "$T/w.txt" "$T/sample_wall")
    echo "$clock clock: sleeper in $share% of $total samples"
    if [ $clock = wall ] && ! grep -q "refuses context-switch samples" "$T/err"; then
        expect_eq "wall clock: stderr" "" "$(cat "$T/err")"
        # 400 ms asleep against the burner's wall time as the program saw
        # it (longer on a loaded machine, where it also waits to run).
        read -r t_sleep t_burn < "$T/walls"
        awk -v s="$share" -v a="$t_sleep" -v b="$t_burn" 'BEGIN {
                e = 100 * a / (a + b); exit !(s >= e - 12 && s <= e + 12) }' ||
            fail "wall clock: sleeper in $share% of the samples, $t_sleep of $((t_sleep + t_burn)) ns by the program's clock"
    else
        [ "$(id -u)" != 0 ] || [ $clock = cpu ] ||
            fail "wall clock refused as root: $(cat "$T/err")"
        [ $clock = cpu ] || echo "wall clock: $(cat "$T/err")"
        [ $clock = wall ] || expect_eq "cpu clock: stderr" "" "$(cat "$T/err")"
        # The time asleep is not sampled.
        awk -v s="$share" 'BEGIN { exit !(s <= 2) }' ||
            fail "$clock clock: sleeper in $share% of the samples"
    fi
done
CALLTRACE_SAMPLE_CLOCK=sundial CALLTRACE_MODE=sample \
    run_traced "$T/w-bad.raw" "$T/sample_wall" >"$T/got" 2>"$T/err"
expect_eq "bad clock: stderr lines" 1 "$(wc -l <"$T/err")"
grep -q "CALLTRACE_SAMPLE_CLOCK=sundial" "$T/err" || fail "bad clock: $(cat "$T/err")"

# --- both: calls and samples in one trace -----------------------------------
build_traced "$T/traced_7030" "$PROGRAMS/sample_7030.c"
CALLTRACE_MODE=both CALLTRACE_SAMPLE_INTERVAL=1ms \
    run_traced "$T/b.raw" "$T/traced_7030" 20 >"$T/got"
expect_eq "both: output" "done 20 rounds" "$(cat "$T/got")"
"$T/sample_decode" "$T/b.raw" >"$T/b.txt"
flags=$(head -n 1 "$T/b.txt" | sed -E 's/.*flags=([0-9]+).*/\1/')
expect_eq "both: header has CALLS and SAMPLED" 6 $(( flags & 6 ))
# main, then spin_seventy and spin_thirty in each of 20 rounds.
expect_eq "both: calls" "C calls=41" "$(tail -n 1 "$T/b.txt")"
# ~280 ms of CPU at 1 ms; the weights count the expirations the kernel
# merged (CPU timers fire on the scheduler tick, 4 ms at 250 Hz).
n=$(awk '$1 == "S" { w += $3 } END { print w + 0 }' "$T/b.txt")
[ "$n" -ge 150 ] || fail "both: only $n samples"
echo ok
