#!/usr/bin/env bash
# Streaming cost, in one invocation:
#   - tracer ns per call writing a local file vs streaming over loopback
#     to calltrace recv, against empty hooks (bench/overhead_noop.c);
#   - calltrace recv's throughput in MB/s vs nc -l to /dev/null, for the
#     same stream sent by nc -N over loopback.
#   bench/stream.sh [RUNS]     (BUILD=build-x, FIB_N=30)
# Each figure is the median of RUNS; the variants alternate so that a busy
# machine slows them alike.  Prints a Markdown table.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}
BUILD=${BUILD:-build}
LIB=$(cd "$BUILD" && pwd)/libcalltrace.so
FRONT=$(cd "$BUILD" && pwd)/calltrace
[ -f "$LIB" ] && [ -x "$FRONT" ] || { echo "no $LIB or $FRONT: make BUILD=$BUILD first" >&2; exit 1; }
command -v nc > /dev/null || { echo "no nc (netcat-openbsd)" >&2; exit 1; }
W=$(mktemp -d "${TMPDIR:-/tmp}/ct-bench.XXXXXX")
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$W"' EXIT
gcc -std=gnu11 -O2 -finstrument-functions -o "$W/fib" bench/overhead_fib.c
gcc -std=gnu11 -O2 -shared -fPIC -o "$W/noop.so" bench/overhead_noop.c
N=${FIB_N:-30}
C=$(fib_calls "$N")
median() { sort -n | awk '{v[NR]=$1} END{print v[int((NR+1)/2)]}'; }
now() { date +%s%N; }
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# recv on PORT into DIR for one stream; returns once it listens.
recv_bg() {
    mkdir -p "$2"
    "$FRONT" recv -q --port "$1" -d "$2" --streams 1 2> "$2.log" &
    RPID=$!
    until grep -q listening "$2.log" 2>/dev/null; do sleep 0.02; done
}
declare -A t
for ((r = 0; r < RUNS; r++)); do
    a=$(now); LD_PRELOAD="$W/noop.so" "$W/fib" "$N" > /dev/null; b=$(now)
    t[noop]+="$((b - a)) "
    rm -f "$W"/t.raw*; sync
    a=$(now); /usr/bin/time -o "$W/cpu" -f "%U %S" env CALLTRACE_OUTPUT="$W/t.raw" LD_PRELOAD="$LIB" "$W/fib" "$N" > /dev/null; b=$(now)
    t[file]+="$((b - a)) "
    t[file_cpu]+="$(awk '{printf "%d", ($1 + $2) * 1e9}' "$W/cpu") "
    p=$(port); rm -rf "$W/in"; recv_bg "$p" "$W/in"
    a=$(now); /usr/bin/time -o "$W/cpu" -f "%U %S" env CALLTRACE_OUTPUT=tcp:127.0.0.1:$p LD_PRELOAD="$LIB" "$W/fib" "$N" > /dev/null; b=$(now)
    t[stream_cpu]+="$(awk '{printf "%d", ($1 + $2) * 1e9}' "$W/cpu") "
    wait "$RPID"; c=$(now)
    t[stream]+="$((b - a)) "
    t[stream_all]+="$((c - a)) "
done
stream_file=$(ls "$W"/in/calltrace-*.raw)
size=$(stat -c %s "$stream_file")
for ((r = 0; r < RUNS; r++)); do
    p=$(port); rm -rf "$W/in2"; recv_bg "$p" "$W/in2"
    a=$(now); nc -N 127.0.0.1 "$p" < "$stream_file"; wait "$RPID"; b=$(now)
    t[recv]+="$((b - a)) "
    p=$(port); nc -l -p "$p" -s 127.0.0.1 > /dev/null < /dev/null & npid=$!
    until awk -v h=$(printf ':%04X' "$p") 'index($2,h) && $4=="0A"{f=1} END{exit !f}' /proc/net/tcp; do sleep 0.02; done
    a=$(now); nc -N 127.0.0.1 "$p" < "$stream_file"; wait "$npid"; b=$(now)
    t[nc]+="$((b - a)) "
    p=$(port); rm -f "$W/nc.raw"; nc -l -p "$p" -s 127.0.0.1 > "$W/nc.raw" < /dev/null & npid=$!
    until awk -v h=$(printf ':%04X' "$p") 'index($2,h) && $4=="0A"{f=1} END{exit !f}' /proc/net/tcp; do sleep 0.02; done
    a=$(now); nc -N 127.0.0.1 "$p" < "$stream_file"; wait "$npid"; b=$(now)
    t[ncfile]+="$((b - a)) "
done
m() { printf '%s\n' ${t[$1]} | median; }
noop=$(m noop)
per() { awk -v x="$1" -v n="$noop" -v c="$C" 'BEGIN{printf "%.1f", (x - n) / c}'; }
mbs() { awk -v x="$1" -v s="$size" 'BEGIN{printf "%.0f", s / (x / 1e9) / 1e6}'; }
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | sed -n 1p)
echo "CPU: $cpu; fib($N): $C calls; $RUNS runs, medians"
echo
echo "| tracer output | wall ms | ns/call over empty hooks | vs file |"
echo "|---|---|---|---|"
printf '| empty hooks | %.1f | - | - |\n' "$(awk -v x="$noop" 'BEGIN{print x/1e6}')"
printf '| local file | %.1f | %s | 1.00 |\n' "$(awk -v x="$(m file)" 'BEGIN{print x/1e6}')" "$(per "$(m file)")"
printf '| tcp loopback to recv | %.1f | %s | %.2f |\n' "$(awk -v x="$(m stream)" 'BEGIN{print x/1e6}')" "$(per "$(m stream)")" \
    "$(awk -v s="$(m stream)" -v f="$(m file)" -v n="$noop" 'BEGIN{print (s-n)/(f-n)}')"
printf '| program CPU (user + sys), local file | %.1f | - | 1.00 |\n' "$(awk -v x="$(m file_cpu)" 'BEGIN{print x/1e6}')"
printf '| program CPU (user + sys), streaming (the sender not counted) | %.1f | - | %.2f |\n' "$(awk -v x="$(m stream_cpu)" 'BEGIN{print x/1e6}')" \
    "$(awk -v s="$(m stream_cpu)" -v f="$(m file_cpu)" 'BEGIN{print s/f}')"
printf '| ... until recv stored it all | %.1f | %s | %.2f |\n' "$(awk -v x="$(m stream_all)" 'BEGIN{print x/1e6}')" "$(per "$(m stream_all)")" \
    "$(awk -v s="$(m stream_all)" -v f="$(m file)" -v n="$noop" 'BEGIN{print (s-n)/(f-n)}')"
echo
echo "| receiver of a $((size / 1000000)) MB stream (nc -N over loopback) | MB/s | vs nc |"
echo "|---|---|---|"
printf '| nc -l > /dev/null | %s | 1.00 |\n' "$(mbs "$(m nc)")"
printf '| nc -l > FILE (the folder recv writes in) | %s | %.2f |\n' "$(mbs "$(m ncfile)")" \
    "$(awk -v a="$(m nc)" -v b="$(m ncfile)" 'BEGIN{print a/b}')"
printf '| calltrace recv -d DIR | %s | %.2f |\n' "$(mbs "$(m recv)")" \
    "$(awk -v a="$(m nc)" -v b="$(m recv)" 'BEGIN{print a/b}')"
