#!/usr/bin/env bash
# What tracing costs a process to start and end: an empty instrumented
# program, and a shell pipeline of 200 instrumented processes, traced and
# untraced, in alternating runs of one invocation.
#   bench/startup.sh [ROUNDS]     (BUILD=build-x, BASE=old/libcalltrace.so,
#                                  STAGES=200)
# Each traced process writes its own trace (CALLTRACE_OUTPUT with %p).
# Figures: elapsed time, and CPU time (user + system of the process and the
# children it waited for, wait4), per process over the untraced run of the
# same round: min / median / max over the rounds.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-20}
. bench/lib.sh
bench_setup
STAGES=${STAGES:-200}
printf 'int main(void) { return 0; }\n' > "$W/empty.c"
gcc -O2 -finstrument-functions -o "$W/empty" "$W/empty.c"
gcc -O2 -finstrument-functions -o "$W/pass" bench/startup_pass.c
pipeline="echo start"
for ((i = 0; i < STAGES; i++)); do pipeline="$pipeline | $W/pass"; done

echo "CPU: $(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "command: BUILD=$BUILD${BASE:+ BASE=$BASE} STAGES=$STAGES bench/startup.sh $ROUNDS"
python3 - "$W" "$LIB" "${BASE:-}" "$ROUNDS" "$STAGES" "$pipeline" <<'PY'
import os, shutil, statistics, sys, time
w, lib, base, rounds, stages, pipeline = sys.argv[1:7]
rounds, stages = int(rounds), int(stages)

def run(argv, env):
    """(wall ns, cpu ns) of one run; its output discarded."""
    t = time.monotonic_ns()
    pid = os.fork()
    if pid == 0:
        fd = os.open(os.devnull, os.O_RDWR)
        os.dup2(fd, 1); os.dup2(fd, 2)
        os.execve(argv[0], argv, env)
    _, status, ru = os.wait4(pid, 0)
    wall = time.monotonic_ns() - t
    if status != 0:
        sys.exit("run failed: %r" % argv)
    return wall, int((ru.ru_utime + ru.ru_stime) * 1e9)

def env(preload, out):
    e = dict(os.environ)
    e.pop("LD_PRELOAD", None)
    if preload:
        e["LD_PRELOAD"] = preload
        e["CALLTRACE_OUTPUT"] = os.path.join(out, "t-%p.raw")
    return e

libs = [("calltrace", lib)] + ([("BASE", base)] if base else [])
progs = [("empty program", [os.path.join(w, "empty")], 1),
         ("%d-process pipeline" % stages, ["/bin/sh", "-c", pipeline], stages + 2)]
for name, argv, procs in progs:
    untraced = {"wall": [], "cpu": []}
    traced = {n: {"wall": [], "cpu": []} for n, _ in libs}
    for r in range(rounds + 1):
        u = run(argv, env(None, None))
        outs = []
        for n, l in libs:
            out = os.path.join(w, "out-" + n)
            os.makedirs(out, exist_ok=True)
            outs.append(out)
            t = run(argv, env(l, out))
            if r:  # the first round warms the caches up
                traced[n]["wall"].append(t[0]); traced[n]["cpu"].append(t[1])
        if r:
            untraced["wall"].append(u[0]); untraced["cpu"].append(u[1])
        for out in outs:
            shutil.rmtree(out)
    print("\n%s (%s; %d processes, each traced), %d rounds, min / median / max\n"
          % (name, "empty" if len(argv) == 1 else "sh -c 'echo start | pass | ... | pass'",
             procs, rounds))
    print("| run | elapsed (ms) | CPU (ms) | elapsed over untraced, per process (ms) | CPU over untraced, per process (ms) | elapsed, traced / untraced |")
    print("|---|---|---|---|---|---|")
    def mmm(v, f):
        v = sorted(v)
        return " / ".join(f % x for x in (v[0], statistics.median(v), v[-1]))
    print("| untraced | %s | %s | 0 | 0 | 1 |" % (mmm([x / 1e6 for x in untraced["wall"]], "%.2f"),
                                             mmm([x / 1e6 for x in untraced["cpu"]], "%.2f")))
    for n, _ in libs:
        tw, tc = traced[n]["wall"], traced[n]["cpu"]
        dw = [(a - b) / 1e6 / procs for a, b in zip(tw, untraced["wall"])]
        dc = [(a - b) / 1e6 / procs for a, b in zip(tc, untraced["cpu"])]
        ratio = [a / b for a, b in zip(tw, untraced["wall"])]
        print("| %s | %s | %s | %s | %s | %s |" % (n, mmm([x / 1e6 for x in tw], "%.2f"),
              mmm([x / 1e6 for x in tc], "%.2f"), mmm(dw, "%.3f"), mmm(dc, "%.3f"), mmm(ratio, "%.2f")))
PY
