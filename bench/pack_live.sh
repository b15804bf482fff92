#!/usr/bin/env bash
# calltrace record --pack against calltrace record on fib, Lua and SQLite
# (PROGS): the traced program's own CPU time (measured by a wrapper that
# runs it as its child), the CPU --pack adds to record's own (the packing
# thread), the
# peak disk use of the staged traces (du every 20 ms) and the recording's
# size.  Runs alternate; each figure is the median of RUNS.
#   bench/pack_live.sh [RUNS]   (FIB_N, LUA_SCALE, SQLITE_ROWS as bench/lib.sh)
# Prints a Markdown table (BENCHMARKS.md, "Packed traces").
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-3}
. bench/lib.sh
bench_setup
gcc -std=gnu11 -O2 -finstrument-functions -o "$W/fib" bench/overhead_fib.c
export CALLTRACE_LIBCALLS=none
# The program's CPU alone: the wrapper (not instrumented) waits for it.
cat > "$W/wrap.py" <<'PY'
import os, sys
pid = os.fork()
if pid == 0:
    fd = os.open(os.devnull, os.O_WRONLY)
    os.dup2(fd, 1)
    os.execvp(sys.argv[2], sys.argv[2:])
_, status, ru = os.wait4(pid, 0)
open(sys.argv[1], "w").write("%d\n" % int((ru.ru_utime + ru.ru_stime) * 1e9))
sys.exit(0 if status == 0 else 1)
PY

# One recording: "program_cpu_ns total_cpu_ns peak_disk_bytes size_bytes".
record_once() {  # OUT [--pack] -- CMD...
    local out=$1; shift
    local opts=()
    while [ "$1" != -- ]; do opts+=("$1"); shift; done
    shift
    rm -rf "$out" "$W"/.calltrace-record-*
    ( peak=0
      while :; do
          d=$(du -s -B1 "$W"/.calltrace-record-* 2>/dev/null | awk '{s += $1} END {print s + 0}')
          [ "$d" -gt "$peak" ] && peak=$d && echo "$peak" > "$W/peak"
          sleep 0.02
      done ) &
    local watcher=$!
    echo 0 > "$W/peak"
    local total
    total=$(cpu_ns "$FRONT" record -q "${opts[@]}" -o "$out" -- python3 "$W/wrap.py" "$W/prog_cpu" "$@" 2>/dev/null)
    kill $watcher; wait $watcher 2>/dev/null || true
    echo "$(cat "$W/prog_cpu") $total $(cat "$W/peak") $(stat -c %s "$out")"
}

echo "| program | calls | program CPU, --pack / plain | record's added CPU with --pack (ns/call) | peak disk, plain | peak disk, --pack | recording, plain / --pack |"
echo "|---|---|---|---|---|---|---|"
bench_prog() {  # NAME CMD...
    local name=$1; shift
    local r a b pa=() pb=() ob=() da=() db=() sa sb
    for ((r = 0; r < RUNS; r++)); do
        read -r -a a <<< "$(record_once "$W/a.raw" -- "$@")"
        read -r -a b <<< "$(record_once "$W/b.raw" --pack -- "$@")"
        # What --pack adds to record's own CPU (beside the program's).
        pa+=("${a[0]}"); pb+=("${b[0]}")
        ob+=("$(( (b[1] - b[0]) - (a[1] - a[0]) ))")
        da+=("${a[2]}"); db+=("${b[2]}"); sa=${a[3]}; sb=${b[3]}
    done
    local calls
    calls=$("$REPORT" "$W/b.raw" | sed -n 's/ Events: [0-9]* (\([0-9]*\) calls.*/\1/p')
    awk -v n="$name" -v c="$calls" \
        -v pa="$(printf '%s\n' "${pa[@]}" | median)" \
        -v pb="$(printf '%s\n' "${pb[@]}" | median)" \
        -v ob="$(printf '%s\n' "${ob[@]}" | median)" \
        -v da="$(printf '%s\n' "${da[@]}" | median)" \
        -v db="$(printf '%s\n' "${db[@]}" | median)" \
        -v sa="$sa" -v sb="$sb" 'BEGIN {
        printf "| %s | %d | %.3f | %.1f | %.1f MB | %.1f MB | %.1f / %.1f MB |\n",
            n, c, pb/pa, ob/c, da/1e6, db/1e6, sa/1e6, sb/1e6
    }'
}
bench_programs "$W/fib" pack_live.sh
