# Helpers the bench scripts share; sourced, never run (bench/run.sh skips it).
# Times are CPU time (user + system of the child) beside elapsed time: the
# machines here are shared, and CPU time is what others' load disturbs least.

# BUILD (default build), the LIB, REPORT and FRONT (calltrace) built there
# (LIB checked), and W,
# a work folder removed on exit.
bench_setup() {
    BUILD=${BUILD:-build}
    LIB=$(cd "$BUILD" && pwd)/libcalltrace.so
    REPORT=$(cd "$BUILD" && pwd)/calltrace-report
    FRONT=$(cd "$BUILD" && pwd)/calltrace
    [ -f "$LIB" ] || { echo "no $LIB: make BUILD=$BUILD first" >&2; exit 1; }
    W=$(mktemp -d "${TMPDIR:-/tmp}/ct-bench.XXXXXX")
    trap 'rm -rf "$W"' EXIT
}

# Runs bench_prog NAME CMD... (the script's own) for each of PROGS
# (default "fib lua sqlite"; zstd too when named): fib is FIB with FIB_N,
# Lua, SQLite and zstd come from bench/realprog.sh at LUA_SCALE,
# SQLITE_ROWS and ZSTD_ROWS.
bench_programs() {  # FIB SCRIPT-NAME
    local p cmd
    for p in ${PROGS:-fib lua sqlite}; do
        case $p in
        fib) bench_prog fib "$1" "${FIB_N:-32}" ;;
        lua) mapfile -t cmd < <(bench/realprog.sh lua "${LUA_SCALE:-25}"); bench_prog lua "${cmd[@]}" ;;
        sqlite) mapfile -t cmd < <(bench/realprog.sh sqlite "${SQLITE_ROWS:-100000}"); bench_prog sqlite "${cmd[@]}" ;;
        zstd) mapfile -t cmd < <(bench/realprog.sh zstd "${ZSTD_ROWS:-50000}"); bench_prog zstd "${cmd[@]}" ;;
        *) echo "$2: unknown program $p" >&2; exit 2 ;;
        esac
    done
}

median() { sort -n | awk '{v[NR]=$1} END{print v[int((NR+1)/2)]}'; }

# CPU ns (user + system) of one run of CMD... (its stdout to /dev/null).
cpu_ns() {
    python3 - "$@" <<'PY'
import os, sys
pid = os.fork()
if pid == 0:
    fd = os.open(os.devnull, os.O_WRONLY)
    os.dup2(fd, 1)
    os.execvp(sys.argv[1], sys.argv[1:])
_, status, ru = os.wait4(pid, 0)
if status != 0:
    sys.exit("benchmark run failed: %r" % sys.argv[1:])
print(int((ru.ru_utime + ru.ru_stime) * 1e9))
PY
}

# "wall_ns cpu_ns program_cpu_ns" of one run of CMD... (its stdout to
# /dev/null): elapsed time until CMD exits, the user + system time of CMD
# and of every process it left behind, and of CMD alone.  The runner is a
# child subreaper and reaps every descendant with __WALL, so processes no
# wait() of the program sees (the tracer's stream sender and block
# supplier, cloned with no exit signal) are counted too.
wall_cpu_split_ns() {
    python3 - "$@" <<'PY'
import ctypes, os, sys, time
ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
WALL = 0x40000000
t = time.monotonic_ns()
pid = os.fork()
if pid == 0:
    fd = os.open(os.devnull, os.O_WRONLY)
    os.dup2(fd, 1)
    os.execvp(sys.argv[1], sys.argv[1:])
cpu, own, wall, status = 0.0, 0.0, None, 0
while True:
    try:
        p, st, ru = os.wait4(-1, WALL)
    except ChildProcessError:
        break
    cpu += ru.ru_utime + ru.ru_stime
    if p == pid:
        wall, status, own = time.monotonic_ns() - t, st, ru.ru_utime + ru.ru_stime
if status != 0:
    sys.exit("benchmark run failed: %r" % sys.argv[1:])
print(wall, int(cpu * 1e9), int(own * 1e9))
PY
}

# "wall_ns cpu_ns" of one run of CMD...: as wall_cpu_split_ns, every
# process's CPU time summed.
wall_cpu_ns() {
    local w c o
    read -r w c o < <(wall_cpu_split_ns "$@")
    echo "$w $c"
}

# OUT CMD...: "cpu_seconds peak_rss_kib" of CMD, the median CPU time of
# three runs (stdout to OUT, stderr to OUT.err or to /dev/null with OUT) and
# the last run's peak RSS.
cpu_rss_median3() {
    local out=$1 err=$1.err runs=() u s rss t
    shift
    [ "$out" = /dev/null ] && err=/dev/null
    t=$(mktemp "${TMPDIR:-/tmp}/ct-time.XXXXXX")
    for _ in 1 2 3; do
        /usr/bin/time -f "%U %S %M" -o "$t" "$@" > "$out" 2> "$err"
        read -r u s rss < "$t"
        runs+=("$(awk -v u="$u" -v s="$s" 'BEGIN{printf "%.2f", u + s}')")
    done
    rm -f "$t"
    echo "$(printf '%s\n' "${runs[@]}" | median) $rss"
}

# CMD...: the peak anonymous (heap) RSS of CMD in KiB, polled every 20 ms.
heap_peak_kib() {
    "$@" >/dev/null 2>&1 &
    local pid=$! peak=0 v
    while kill -0 "$pid" 2>/dev/null; do
        v=$(awk '/^RssAnon:/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
        [ "${v:-0}" -gt "$peak" ] && peak=$v
        sleep 0.02
    done
    wait "$pid" || true
    echo "$peak"
}

# Bytes of records written (sum of the blocks' `used`) and the file size.
trace_bytes() {
    python3 - "$1" <<'PY'
import mmap, struct, sys
with open(sys.argv[1], 'rb') as f:
    data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
off, used = 4096, 0
while off + 64 <= len(data):
    magic, kind, hsz, size, u = struct.unpack_from('<IHHII', data, off)
    if magic != 0x4b4c4243 or size == 0:
        break
    if kind == 1:
        used += u
    off += size
print(used, len(data))
PY
}

# fib_calls N: the calls bench/overhead_fib.c makes for fib N, main's
# included (2 fib(N+1)).
fib_calls() {
    local a=0 b=1 i t
    for ((i = 0; i < $1 + 1; i++)); do t=$((a + b)); a=$b; b=$t; done
    echo $((2 * a))
}

# timed_run NAME CMD...: runs CMD once and appends its wall and CPU
# nanoseconds to the caller's wall[NAME] and cpu[NAME] (declare -A wall
# cpu).  The previous run's trace may still be being written back: sync
# first, so that it does not slow this one.
timed_run() {
    local name=$1 w c
    shift
    sync
    read -r w c < <(wall_cpu_ns "$@")
    wall[$name]+="$w "
    cpu[$name]+="$c "
}

# best_run NAME CMD...: runs CMD, a program that prints its own time per
# call (its fastest round), after taking away the last run's trace
# ($W/r.raw*), and keeps the smallest of NAME's runs in the caller's
# best[NAME] (declare -A best).
best_run() {
    local name=$1 v
    shift
    rm -f "$W"/r.raw*
    v=$("$@")
    best[$name]=$(awk -v a="$v" -v b="${best[$name]:-1e9}" 'BEGIN { print (a < b) ? a : b }')
}

# best_table TITLE, then LABEL NAME BASE on each line of stdin: a Markdown
# table of best[NAME] and its difference from best[BASE].
best_table() {
    echo
    echo "$1"
    echo
    echo "| run | ns per call | over its baseline |"
    echo "|---|---|---|"
    while IFS='|' read -r label name base; do
        awk -v l="$label" -v c="${best[$name]}" -v b="${best[$base]}" \
            'BEGIN { printf "| %s | %.2f | %+.2f |\n", l, c, c - b }'
    done
}

# cpu_run NAME CMD...: runs CMD once, after taking away the last run's
# trace ($W/t.raw*) and uftrace data ($W/u.data), and appends its CPU
# nanoseconds to the caller's cpu[NAME] (declare -A cpu).
cpu_run() {
    local name=$1
    shift
    rm -f "$W"/t.raw*
    rm -rf "$W/u.data"
    cpu[$name]+="$(cpu_ns "$@") "
}

# cpu_row LABEL NAME BASE: a Markdown row of NAME's median CPU time, per
# call of N over BASE's, and the ratio to it.
cpu_row() {
    local c b
    c=$(printf '%s\n' ${cpu[$2]:-0} | median)
    b=$(printf '%s\n' ${cpu[$3]:-0} | median)
    awk -v l="$1" -v c="$c" -v b="$b" -v n="$N" \
        'BEGIN { printf "| %s | %.1f | %+.1f | %.3f |\n", l, c/1e6, (c-b)/n, c/b }'
}
