#!/usr/bin/env bash
# Sampling mode cost: uninstrumented programs run plain, under calltrace's
# sampler at 10 ms (the default) and 1 ms (the kernel's task-clock), its
# SIGPROF timer at 1 ms (CALLTRACE_SAMPLE_TIMER=1, the fallback), under
# `perf record --call-graph=dwarf` at 1 ms when perf is installed, and
# under gperftools' CPU profiler at 100 Hz and 1000 Hz, all in one
# hyperfine invocation per
# program.  Prints a Markdown table of mean wall times and ratios to the
# plain run (the minimum is the steadier figure on a shared machine: noise
# only adds); the figures in RESULTS-sampling.md come from it.
#   bench/sample.sh [RUNS]        (BUILD=build-x to pick the library)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-10}
. bench/lib.sh
bench_setup
command -v hyperfine >/dev/null || { echo "hyperfine not installed" >&2; exit 1; }
PROFILER=/usr/lib/x86_64-linux-gnu/libprofiler.so

# fib: deep recursion (~40 frames to unwind); 7030: two flat loops.
gcc -std=gnu11 -O2 -g -o "$W/fib" bench/overhead_fib.c
gcc -std=gnu11 -O1 -g -o "$W/7030" tests/programs/sample_7030.c -ldl
declare -A ARGS=([fib]=42 [7030]=100)

for prog in fib 7030; do
    cmd="$W/$prog ${ARGS[$prog]}"
    names=(plain "calltrace 10ms" "calltrace 1ms")
    cmds=("$cmd"
          "rm -f $W/t.raw*; CALLTRACE_MODE=sample CALLTRACE_OUTPUT=$W/t.raw LD_PRELOAD=$LIB $cmd"
          "rm -f $W/t.raw*; CALLTRACE_MODE=sample CALLTRACE_SAMPLE_INTERVAL=1ms CALLTRACE_OUTPUT=$W/t.raw LD_PRELOAD=$LIB $cmd")
    names+=("calltrace timer 1ms")
    cmds+=("rm -f $W/t.raw*; CALLTRACE_SAMPLE_TIMER=1 CALLTRACE_MODE=sample CALLTRACE_SAMPLE_INTERVAL=1ms CALLTRACE_OUTPUT=$W/t.raw LD_PRELOAD=$LIB $cmd")
    if command -v perf >/dev/null; then
        names+=("perf record dwarf 1ms")
        cmds+=("perf record -q -o $W/perf.data -e task-clock -c 1000000 --call-graph=dwarf $cmd")
    fi
    if [ -f "$PROFILER" ]; then
        names+=("gperftools 100Hz" "gperftools 1000Hz")
        cmds+=("CPUPROFILE=$W/g.prof CPUPROFILE_FREQUENCY=100 LD_PRELOAD=$PROFILER $cmd"
               "CPUPROFILE=$W/g.prof CPUPROFILE_FREQUENCY=1000 LD_PRELOAD=$PROFILER $cmd")
    fi
    args=()
    for i in "${!cmds[@]}"; do args+=(-n "${names[$i]}" "${cmds[$i]}"); done
    hyperfine --warmup 1 --runs "$RUNS" --export-json "$W/$prog.json" \
        --style none "${args[@]}" >/dev/null 2>&1
    echo
    echo "### $prog (\`$prog ${ARGS[$prog]}\`, $RUNS runs)"
    echo
    python3 - "$W/$prog.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))['results']
base = r[0]['mean']
bmin = min(r[0]['times'])
print('| run | mean wall (s) | ± sd | min wall (s) | user+sys (s) | mean ratio | min ratio |')
print('| --- | --- | --- | --- | --- | --- | --- |')
for x in r:
    print('| %s | %.3f | %.3f | %.3f | %.3f | %.4f | %.4f |' % (
        x['command'], x['mean'], x['stddev'], min(x['times']),
        x['user'] + x['system'], x['mean'] / base, min(x['times']) / bmin))
PY
done
