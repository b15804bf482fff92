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
#                                      CASES="2000 2000/4000":
#                                      the rounds, "ROUND/SYNC" for tick-locked ones)
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
n = c['hot'] + c['warm']
print('%.1f %d' % (100.0 * c['hot'] / max(n, 1), n))
PY
}
share_perf() {
    perf report -i "$W/perf.data" --stdio --sort symbol -q -n 2>/dev/null |
        awk '$4 == "hot" { h = $2 } $4 == "warm" { w = $2 }
             END { printf "%.1f %d\n", 100 * h / (h + w), h + w }'
}

run_one() {  # SAMPLER ROUND SYNC
    local args="$2 1600 $3"
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
echo "| sampler | rounds | hot % per run | largest error (points) | samples | 1 binomial s.e. |"
echo "| --- | --- | --- | --- | --- | --- |"
for case in ${CASES:-300 2000 7000 2000/4000}; do
    round=${case%/*}; sync=${case#*/}; [ "$sync" != "$case" ] || sync=
    for s in $samplers; do
        shares=() n=0
        for _ in $(seq "$RUNS"); do
            read -r sh cnt < <(run_one "$s" "$round" "$sync")
            shares+=("$sh"); [ "$cnt" -gt 0 ] && n=$cnt
        done
        python3 - "$s" "$round${sync:+ every $sync}" "$n" "${shares[@]}" <<'PY'
import math, sys
s, case, n, shares = sys.argv[1], sys.argv[2], int(sys.argv[3]), [float(x) for x in sys.argv[4:]]
err = max(abs(x - 70) for x in shares)
se = '%.2f' % (100 * math.sqrt(0.21 / n)) if n else '-'
print('| %s | %s us | %s | %.1f | %s | %s |' % (s, case, ', '.join('%.1f' % x for x in shares), err, n or '-', se))
PY
    done
done
