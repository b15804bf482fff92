#!/usr/bin/env bash
# The patchable-entry mode on real programs (Lua 5.4 and SQLite's shell,
# bench/realprog.sh), CPU time per call recorded, in alternating rounds:
#   plain        gcc -O2 -g, no instrumentation flag, no tracer
#   nops         built with `calltrace cflags --patchable`, no tracer
#   patched      the same under the tracer (every entry patched)
#   none         the same under the tracer, nothing selected: no entry
#                patched, no library call recorded (CALLTRACE_PATCH='-*',
#                CALLTRACE_LIBCALLS=none: the tracer's start and end alone)
#   hooks        -finstrument-functions under the tracer
# and the peers, where installed:
#   clang-plain  clang -O2 -g, no flag (XRay's baseline)
#   xray-sleds   clang -fxray-instrument -fxray-instruction-threshold=1,
#                nothing patched
#   xray-fdr     the same, every sled patched, XRay's flight-data-recorder
#                mode
#   uftrace-P    uftrace record -P . --no-libcall on the nops build
# (PEERS=0 leaves the peers out) and, with BASE=old/libcalltrace.so,
#   patched-BASE, hooks-BASE   patched and hooks under that library
# Each row is over its own plain build and per call of its own build (the
# hooks stop some inlining, so that build makes more calls): the calls of
# the gcc builds from calltrace's traces, of XRay's from its basic mode's
# log (llvm-xray account).
#   bench/patch_real.sh [RUNS]      (BUILD=build-x, PROGS="lua sqlite",
#                                    LUA_SCALE=20, SQLITE_ROWS=10000,
#                                    PEERS=1, BASE=)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}
. bench/lib.sh
bench_setup
LUA_SCALE=${LUA_SCALE:-20}
SQLITE_ROWS=${SQLITE_ROWS:-10000}
echo "command: BUILD=$BUILD PROGS=\"${PROGS:-lua sqlite}\" LUA_SCALE=$LUA_SCALE SQLITE_ROWS=$SQLITE_ROWS${PEERS:+ PEERS=$PEERS}${BASE:+ BASE=$BASE} bench/patch_real.sh $RUNS"
echo "CPU: $(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
have_xray=0
if command -v clang >/dev/null && command -v llvm-xray >/dev/null &&
   echo 'int main(void){return 0;}' | clang -x c -fxray-instrument -o "$W/x" - 2>/dev/null; then
    have_xray=1
fi
have_uftrace=0
command -v uftrace >/dev/null && have_uftrace=1
[ "${PEERS:-1}" = 0 ] && have_xray=0 have_uftrace=0

# The command of PROG's variant: VARIANT, then realprog.sh's environment.
cmd_of() {  # PROG SCALE VARIANT [VAR=VALUE...]
    local prog=$1 scale=$2 variant=$3
    shift 3
    env VARIANT="$variant" "$@" bench/realprog.sh "$prog" "$scale"
}

calls_in() {  # TRACE
    "$REPORT" -b -p "$1" | sed -n 's/^ Events: [0-9]* (\([0-9]*\) calls.*/\1/p'
}

one_program() {  # PROG SCALE
    local prog=$1 scale=$2 n
    declare -A cpu calls
    local rows=(plain nops patched none hooks)
    [ -n "${BASE:-}" ] && rows+=(patched-BASE hooks-BASE)
    [ $have_xray = 1 ] && rows+=(clang-plain xray-sleds xray-fdr)
    [ $have_uftrace = 1 ] && rows+=(uftrace-P)
    run() {  # NAME COMMAND, one string for eval
        local name=$1
        shift
        rm -rf "$W"/t.raw* "$W"/xlog-* "$W/uft"
        cpu[$name]+="$(eval "cpu_ns $*") "
    }
    q() {  # a realprog command as one string for eval (SQLite's ".read FILE"
           # is one argument)
        local -a a
        mapfile -t a < <(cmd_of "$prog" "$scale" "$@")
        printf '%q ' "${a[@]}"
    }
    local p_plain p_nops p_hooks p_cplain p_xray
    p_plain=$(q plain IFLAGS=)
    p_nops=$(q patchable IFLAGS=-fpatchable-function-entry=5,0)
    p_hooks=$(q "")
    if [ $have_xray = 1 ]; then
        p_cplain=$(q clang-plain CC=clang IFLAGS=)
        p_xray=$(q xray CC=clang "IFLAGS=-fxray-instrument -fxray-instruction-threshold=1")
    fi
    local ct="env CALLTRACE_CPUTIME=off CALLTRACE_OUTPUT=$W/t.raw LD_PRELOAD=$LIB"
    local ctb="env CALLTRACE_CPUTIME=off CALLTRACE_OUTPUT=$W/t.raw LD_PRELOAD=${BASE:-}"
    for ((r = 0; r < RUNS; r++)); do
        for n in "${rows[@]}"; do
            case $n in
            plain) run plain "$p_plain" ;;
            nops) run nops "$p_nops" ;;
            patched) run patched "$ct $p_nops" ;;
            none) run none "env CALLTRACE_PATCH='-*' CALLTRACE_LIBCALLS=none ${ct#env } $p_nops" ;;
            hooks) run hooks "$ct $p_hooks" ;;
            patched-BASE) run "$n" "$ctb $p_nops" ;;
            hooks-BASE) run "$n" "$ctb $p_hooks" ;;
            clang-plain) run "$n" "$p_cplain" ;;
            xray-sleds) run "$n" "$p_xray" ;;
            xray-fdr) run "$n" "env XRAY_OPTIONS='patch_premain=true xray_mode=xray-fdr xray_logfile_base=$W/xlog-' $p_xray" ;;
            uftrace-P) run "$n" "uftrace record -P . --no-libcall -d $W/uft $p_nops" ;;
            esac
        done
    done 2>/dev/null
    rm -f "$W"/t.raw*; eval "$ct $p_nops" > /dev/null 2>&1; calls[nops]=$(calls_in "$W/t.raw")
    rm -f "$W"/t.raw*; eval "$ct $p_hooks" > /dev/null 2>&1; calls[hooks]=$(calls_in "$W/t.raw")
    if [ $have_xray = 1 ]; then
        # XRay's calls from its basic mode's log (its FDR mode writes none
        # on this VM): every call kept, however short.
        rm -rf "$W"/xlog-*
        eval "env XRAY_BASIC_OPTIONS=func_duration_threshold_us=0 XRAY_OPTIONS='patch_premain=true xray_mode=xray-basic xray_logfile_base=$W/xlog-' $p_xray" > /dev/null 2>&1
        local xbin=${p_xray%% *} xlog
        xlog=$(find "$W" -maxdepth 1 -name 'xlog-*' | sed -n 1p)
        [ -n "$xlog" ] || { echo "patch_real: XRay wrote no log for $prog" >&2; exit 1; }
        calls[xray]=$(llvm-xray account -instr_map="$(eval echo "$xbin")" "$xlog" 2>/dev/null |
            awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ {s += $2} END {print s + 0}')
    fi
    echo
    echo "$prog: calls recorded: patched build ${calls[nops]}, hooks build ${calls[hooks]}${calls[xray]:+, XRay build ${calls[xray]}}"
    echo
    echo "| $prog | CPU ms (median of $RUNS) | ns per call over its plain build |"
    echo "|---|---|---|"
    local med base c
    for n in "${rows[@]}"; do
        med=$(printf '%s\n' ${cpu[$n]} | median)
        base=$(printf '%s\n' ${cpu[plain]} | median) c=${calls[nops]}
        case $n in
        hooks|hooks-BASE) c=${calls[hooks]} ;;
        clang-plain|xray-*) c=${calls[xray]:-0}; base=$(printf '%s\n' ${cpu[clang-plain]} | median) ;;
        esac
        awk -v n="$n" -v m="$med" -v p="$base" -v c="$c" \
            'BEGIN { printf "| %s | %.1f | %.2f |\n", n, m/1e6, c ? (m-p)/c : 0 }'
    done
}

for p in ${PROGS:-lua sqlite}; do
    case $p in
    lua) one_program lua "$LUA_SCALE" ;;
    sqlite) one_program sqlite "$SQLITE_ROWS" ;;
    *) echo "patch_real: unknown program $p (lua, sqlite)" >&2; exit 2 ;;
    esac
done
