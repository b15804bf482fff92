#!/usr/bin/env bash
# Sampling accuracy: tests/programs/sample_periodic.c spends 70% of its CPU
# in hot() and 30% in warm() in rounds of ROUND us, by construction, for
# 1600 ms of CPU (about 1600 samples at 1 ms); "tick" rounds start every
# 4 ms of wall time, in step with a 250 Hz scheduler tick.  Each sampler
# runs RUNS times; prints hot's share per run, the largest error and the
# binomial standard error of the sample count.  Samplers: calltrace's
# kernel sampler (task-clock), its SIGPROF timer (CALLTRACE_SAMPLE_TIMER=1,
# today's fallback) and `perf record -e task-clock -c 1000000` if present.
#   bench/sample_accuracy.sh [RUNS]   (BUILD=build-x: the library; SAMPLERS="kernel perf";
#                                      CASES="2000 2000/4000 2000x4":
#                                      the rounds, "ROUND/SYNC" for tick-locked ones,
#                                      "ROUND/cN" for rounds padded to start every
#                                      N us of the thread's CPU time,
#                                      "ROUNDxTHREADS" for that many threads, each
#                                      for 1600 ms of its own CPU;
#                                      COST=0: without the cost at 1 kHz, `fib FIB_N`)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}
. bench/lib.sh
bench_setup
gcc -std=gnu11 -O1 -g -o "$W/periodic" tests/programs/sample_periodic.c
gcc -std=gnu11 -O2 -Iinclude -o "$W/decode" tests/programs/sample_decode.c

share_calltrace() {  # DECODED -> "hot_share n"
    python3 - "$1" "$W/periodic" <<'PY'
import subprocess, sys
syms = {}
for l in subprocess.run(['nm', '-S', '--defined-only', sys.argv[2]],
                        capture_output=True, text=True).stdout.splitlines():
    p = l.split()
    if len(p) == 4 and p[3] in ('hot', 'warm'):
        syms[p[3]] = (int(p[0], 16), int(p[1], 16))
maps, c = [], {'hot': 0, 'warm': 0}
# the longest row of samples in one of the two, in the order taken
row, last, longest = 0, None, 0
for line in open(sys.argv[1]):
    f = line.split()
    if f[0] == 'M' and ' '.join(f[4:]) == sys.argv[2]:
        maps.append((int(f[2], 16), int(f[3], 16), int(f[1], 16)))
    elif f[0] == 'S':
        pc, w = int(f[4], 16), int(f[2])
        for lo, hi, base in maps:
            if lo <= pc < hi:
                for n, (s, size) in syms.items():
                    if s <= pc - base < s + size:
                        c[n] += w
                        row = row + 1 if n == last else 1
                        last, longest = n, max(longest, row)
n = c['hot'] + c['warm']
print('%.1f %d %d' % (100.0 * c['hot'] / max(n, 1), n, longest))
PY
}
share_perf() {
    perf report -i "$W/perf.data" --stdio --sort symbol -q -n 2>/dev/null |
        awk '$4 == "hot" { h = $2 } $4 == "warm" { w = $2 }
             END { printf "%.1f %d -\n", 100 * h / (h + w), h + w }'
}

run_one() {  # SAMPLER ROUND SYNC THREADS
    local args="$2 1600 ${3:-0} ${4:-1}"
    case $1 in
    kernel|timer)
        rm -f "$W/a.raw"*
        env $([ "$1" = timer ] && echo CALLTRACE_SAMPLE_TIMER=1) CALLTRACE_MODE=sample \
            CALLTRACE_SAMPLE_INTERVAL=1ms CALLTRACE_OUTPUT="$W/a.raw" LD_PRELOAD="$LIB" \
            "$W/periodic" $args >/dev/null
        "$W/decode" "$W/a.raw" >"$W/a.txt"
        share_calltrace "$W/a.txt" ;;
    perf)
        perf record -q -o "$W/perf.data" -e task-clock -c 1000000 "$W/periodic" $args \
            >/dev/null 2>&1
        share_perf ;;
    esac
}

samplers=${SAMPLERS:-kernel timer}
[ -n "${SAMPLERS:-}" ] || ! command -v perf >/dev/null || samplers="$samplers perf"
# Besides each run's share: their spread (standard deviation) and, for
# calltrace's samplers, the longest row of samples in one function, in
# the order taken (a sampler whose period keeps step with the rounds for
# a while gives long rows; independent samples give about 20 in 1600).
echo "| sampler | rounds | hot % per run | largest error (points) | spread | longest row | samples | 1 binomial s.e. |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
for case in ${CASES:-100 2000 20000 2000/4000 100x4 2000x4 20000x4}; do
    threads=1
    case $case in *x*) threads=${case#*x}; case=${case%x*} ;; esac
    round=${case%/*}; sync=${case#*/}; [ "$sync" != "$case" ] || sync=
    for s in $samplers; do
        shares=() n=0 longest=-
        for _ in $(seq "$RUNS"); do
            read -r sh cnt row < <(run_one "$s" "$round" "$sync" "$threads")
            shares+=("$sh"); [ "$cnt" -gt 0 ] && n=$cnt
            if [ "$row" != - ] && { [ "$longest" = - ] || [ "$row" -gt "$longest" ]; }; then
                longest=$row
            fi
        done
        python3 - "$s" "$round${sync:+ every $sync} us, $threads thread$([ "$threads" = 1 ] || echo s)" "$n" "$longest" "${shares[@]}" <<'PY'
import math, statistics, sys
s, case, n, longest = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
shares = [float(x) for x in sys.argv[5:]]
err = max(abs(x - 70) for x in shares)
sd = '%.2f' % statistics.pstdev(shares) if len(shares) > 1 else '-'
se = '%.2f' % (100 * math.sqrt(0.21 / n)) if n else '-'
print('| %s | %s | %s | %.1f | %s | %s | %s | %s |'
      % (s, case, ', '.join('%.1f' % x for x in shares), err, sd, longest, n or '-', se))
PY
    done
done

# Cost at 1 kHz: CPU time (user + sys of the process and its children:
# the sampler's thread, perf's own process) of `fib FIB_N` built without
# instrumentation (~FIB_N frames deep), plain and under each sampler, the
# runs interleaved; the least of RUNS and its ratio to the plain run's.
[ "${COST:-1}" = 1 ] || exit 0
gcc -std=gnu11 -O2 -g -o "$W/fib" bench/overhead_fib.c
cpu_of() {  # CMD... -> seconds of user + sys
    local TIMEFORMAT='%3U %3S' t
    t=$( { time "$@" >/dev/null 2>&1; } 2>&1 )
    awk '{ print $1 + $2 }' <<<"$t"
}
cost_one() {  # SAMPLER
    case $1 in
    plain) cpu_of "$W/fib" "${FIB_N:-42}" ;;
    kernel|timer)
        cpu_of env $([ "$1" = timer ] && echo CALLTRACE_SAMPLE_TIMER=1) CALLTRACE_MODE=sample \
            CALLTRACE_SAMPLE_INTERVAL=1ms CALLTRACE_OUTPUT="$W/c.raw" LD_PRELOAD="$LIB" \
            "$W/fib" "${FIB_N:-42}" ;;
    perf) cpu_of perf record -q -o "$W/c.data" -e task-clock -c 1000000 "$W/fib" "${FIB_N:-42}" ;;
    esac
    rm -f "$W/c.raw"* "$W/c.data"
}
echo
echo "| run, fib ${FIB_N:-42}, 1 ms | min CPU (s) | ratio to plain |"
echo "| --- | --- | --- |"
declare -A best
for _ in $(seq "$RUNS"); do
    for s in plain $samplers; do
        c=$(cost_one "$s")
        if [ -z "${best[$s]:-}" ] || awk -v a="$c" -v b="${best[$s]}" 'BEGIN { exit !(a < b) }'; then
            best[$s]=$c
        fi
    done
done
for s in plain $samplers; do
    awk -v s="$s" -v c="${best[$s]}" -v p="${best[plain]}" \
        'BEGIN { printf "| %s | %.3f | %.3f |\n", s, c, c / p }'
done
