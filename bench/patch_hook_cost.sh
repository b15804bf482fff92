#!/usr/bin/env bash
# A patched call against a hooked one, in the process: bench/hook_cost.c
# (mid calls leaf twice; a loop of calls timed by the program itself, the
# fastest of 20 rounds) built four ways and run in turn, REPS times, the
# fastest run of each kept:
#   plain        no instrumentation flag, no tracer
#   nops         `calltrace cflags --patchable` (-fpatchable-function-entry),
#                no tracer
#   hooks-empty  -finstrument-functions under empty hooks
#   hooks        -finstrument-functions under calltrace
#   patched      the nops build under calltrace (every entry patched)
# and, with BASE=old/libcalltrace.so, hooks and patched under that library
# too.  The trace's one block is faulted in before the first timed call
# (CALLTRACE_BUFSIZE), so what is left is the tracers' own instructions:
# "over plain" is what a call of each costs, the ratio patched/hooks the
# patchable mode's price per call against the hooks'.
#   bench/patch_hook_cost.sh [REPS]     (BUILD=build-x, BASE=...)
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
REPS=${1:-7}
bench_setup
gcc -std=gnu11 -O2 -o "$W/plain" bench/hook_cost.c
gcc -std=gnu11 -O2 -fpatchable-function-entry=5,0 -o "$W/nops" bench/hook_cost.c
gcc -std=gnu11 -O2 -finstrument-functions -o "$W/hooks" bench/hook_cost.c
gcc -std=gnu11 -O2 -shared -fPIC -o "$W/noop.so" bench/overhead_noop.c
echo "CPU: $(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "command: BUILD=$BUILD${BASE:+ BASE=$BASE} bench/patch_hook_cost.sh $REPS"
names=(plain nops hooks-empty hooks patched)
if [ -n "${BASE:-}" ]; then names+=(BASE-hooks BASE-patched); fi
declare -A best
run() {  # NAME: ns per call, the fastest round
    local lib=$LIB
    case $1 in BASE-*) lib=$BASE ;; esac
    rm -f "$W"/t.raw*
    case $1 in
    plain) "$W/plain" 100000 20 ;;
    nops) "$W/nops" 100000 20 ;;
    hooks-empty) LD_PRELOAD="$W/noop.so" "$W/hooks" 100000 20 ;;
    *hooks|*patched)
        local bin=$W/hooks
        case $1 in *patched) bin=$W/nops ;; esac
        CALLTRACE_LIBCALLS=none CALLTRACE_BUFSIZE=256M CALLTRACE_CPUTIME=off \
            CALLTRACE_OUTPUT="$W/t.raw" LD_PRELOAD="$lib" "$bin" 100000 20 ;;
    esac
}
for ((r = 0; r < REPS; r++)); do
    for n in "${names[@]}"; do
        v=$(run "$n")
        best[$n]=$(awk -v a="$v" -v b="${best[$n]:-1e9}" 'BEGIN{print (a < b) ? a : b}')
    done
done
echo
echo "| run | ns per call (fastest) | over plain |"
echo "|---|---|---|"
for n in "${names[@]}"; do
    awk -v a="${best[$n]}" -v p="${best[plain]}" -v n="$n" \
        'BEGIN{printf "| %s | %.2f | %.2f |\n", n, a, a - p}'
done
awk -v h="${best[hooks]}" -v q="${best[patched]}" -v p="${best[plain]}" \
    'BEGIN{printf "\npatched / hooks, over plain: %.2f\n", (q - p) / (h - p)}'
if [ -n "${BASE:-}" ]; then
    awk -v h="${best[BASE-hooks]}" -v q="${best[BASE-patched]}" -v p="${best[plain]}" \
        'BEGIN{printf "BASE: patched / hooks, over plain: %.2f\n", (q - p) / (h - p)}'
fi
