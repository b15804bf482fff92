# Shared helpers for end-to-end tests; source it first.  Each test is a bash
# script that exits 0 to pass, 77 to skip (with a reason on its last line),
# anything else to fail.
set -euo pipefail
: "${CT_ROOT:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
# The build to test: CT_BUILD, else the Makefile's BUILD, else build/.
if [ -z "${CT_BUILD:-}" ]; then
    CT_BUILD=$(cd "$CT_ROOT" && cd "${BUILD:-build}" 2>/dev/null && pwd) ||
        CT_BUILD=$CT_ROOT/build
fi
LIB=$CT_BUILD/libcalltrace.so
REPORT=$CT_BUILD/calltrace-report
FRONT=$CT_BUILD/calltrace
# The analyzer built with ASan+UBSan, for tests that feed it input.
REPORT_SAN=$CT_BUILD/san/calltrace-report
[ -x "$REPORT_SAN" ] || REPORT_SAN=$REPORT
PROGRAMS=$CT_ROOT/tests/programs
# Calls into shared libraries (name@plt) are recorded by default; the tests
# written about instrumented functions count those alone.  The library-call
# tests (libcalls_*.sh) unset this.
export CALLTRACE_LIBCALLS=${CALLTRACE_LIBCALLS-none}
FORMATS=${CT_FORMATS:-$CT_ROOT/tests/formats}
T=$(mktemp -d "${TMPDIR:-/tmp}/ct-e2e.XXXXXX")
trap 'rm -rf "$T"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
# CMD | has PATTERN: grep that reads its input to the end.  `grep -q`
# leaves at the first match, so under pipefail the writer's SIGPIPE fails
# the pipeline (a flaky test), and `! CMD | grep -q` passes on a match.
# The same holds for `head` (use `sed -n 1,Np`) and an awk program that
# says `exit` (set a flag instead); house_pipes.sh finds them.
has() { grep "$@" > /dev/null; }
skip() { echo "$*"; exit 77; }
# can_strace: strace is installed and may trace here (a container may
# refuse ptrace): the checks that watch the tracer's system calls run
# only then.
can_strace() {
    command -v strace >/dev/null && strace -f -o /dev/null true 2>/dev/null
}
# three_tries FUNC: FUNC up to three times until it returns 0, each
# failure's reason ($why) printed; fails with the last one.  For checks of
# times on a virtual machine whose speed moves from one moment to the
# next: a wrong result fails all three.
three_tries() {
    local try
    for try in 1 2 3; do
        "$1" && return 0
        echo "run $try: $why"
    done
    fail "$why (three runs)"
}

# build_traced OUT SRC... [-- extra cc flags]: compile with instrumentation.
build_traced() {
    local out=$1; shift
    gcc -std=gnu11 -O1 -g -finstrument-functions -I"$CT_ROOT/include" \
        -o "$out" "$@" -lpthread -ldl
}

# run_traced OUTFILE CMD...: run CMD under the preload, trace to OUTFILE.
run_traced() {
    local out=$1; shift
    CALLTRACE_OUTPUT=$out LD_PRELOAD=$LIB "$@"
}

# known_work_log FILE: an OpenLaszlo log (timestamps in ms) whose call
# times are known by construction: work(n) lasts n ms for n = 1..100, in
# an order that mixes them, called by call_odd or call_even as n is odd or
# even, and spends its first ms in inner (report_stats.sh,
# export_pprof_stats.sh).
known_work_log() {
    awk 'BEGIN { t = 0
        for (i = 0; i < 100; i++) {
            n = (i * 37) % 100 + 1
            c = n % 2 ? "call_odd" : "call_even"
            printf "%d C %s\n%d C work\n%d C inner\n%d R inner\n", t, c, t, t, t + 1
            printf "%d R work\n%d R %s\n", t + n, t + n, c
            t += n + 1
        } }' > "$1"
}

# expect_eq WHAT EXPECTED ACTUAL
expect_eq() {
    [ "$2" = "$3" ] || fail "$1: expected '$2', got '$3'"
}

# program_of PID: the traced program among the children of PID (calltrace
# record): record, a child subreaper, also adopts the tracer's helpers
# (calltrace-file, -supply, -send), which are started after the program,
# and may not have named themselves yet.
program_of() {
    local p kids=()
    for p in $(pgrep -P "$1" | sort -n); do
        case $(cat "/proc/$p/comm" 2>/dev/null) in calltrace-*) continue;; esac
        kids+=("$p")
    done
    [ ${#kids[@]} -gt 0 ] && echo "${kids[0]}"
}

# PPROF: Google's pprof, the real consumer of the pprof export, built once
# from Debian's sources into the build folder (under a lock: two tests may
# ask at once); skips when Go or the sources are not installed.
need_pprof() {
    PPROF=$CT_BUILD/tools/pprof
    [ -x "$PPROF" ] && return 0
    command -v go >/dev/null || skip "go (golang-go) not installed"
    [ -d /usr/share/gocode/src/github.com/google/pprof ] ||
        skip "golang-github-google-pprof-dev not installed"
    mkdir -p "$CT_BUILD/tools"
    (
        flock 9
        [ -x "$PPROF" ] ||
            GO111MODULE=off GOPATH=/usr/share/gocode \
                GOCACHE=$CT_BUILD/tools/gocache \
                go build -o "$PPROF.tmp" github.com/google/pprof &&
            mv -f "$PPROF.tmp" "$PPROF"
    ) 9> "$CT_BUILD/tools/pprof.lock" || fail "cannot build pprof"
}
