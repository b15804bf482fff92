# Helpers for the library-call tests (tests/e2e/libcalls_*.sh); source
# after lib.sh.

# thread_trees RAW: the call tree of every thread from --dump, one line per
# call, "<thread> <two spaces per level><name>"; thread "1" is the first
# thread (main), the others are numbered as --dump numbers them.
thread_trees() {
    "$REPORT_SAN" --dump "$1" | awk '
        {
            key = $2; kind = substr(key, 1, 1); th = substr(key, 2)
            if (th == "") th = 1
            if (kind != "C" && kind != "R") next
            name = $0; sub(/^[^ ]+ [^ ]+ /, "", name)
            if (kind == "C") {
                pad = ""; for (i = 0; i < depth[th]; i++) pad = pad "  "
                print th, pad name
                depth[th]++
            } else if (depth[th] > 0) {
                depth[th]--
            }
        }'
}

# tree_of TREES THREAD: one thread's tree, thread field removed.
tree_of() {
    awk -v th="$2" '$1 == th { sub(/^[^ ]+ /, ""); print }' "$1"
}

# report_calls RAW NAME: the calls column of NAME in the flat profile.
report_calls() {
    "$REPORT_SAN" -b -p "$1" | awk -v n="$2" '
        NF >= 7 && $4 ~ /^[0-9]+$/ {
            name = $0
            for (i = 0; i < 6; i++) sub(/^ *[^ ]+/, "", name)
            sub(/^ +/, "", name); sub(/ \[[0-9]+\]$/, "", name)
            if (name == n) { print $4; found = 1 }
        }
        END { if (!found) print 0 }'
}

# libcalls_main_tree SUFFIX: the main thread's tree of
# tests/programs/libcalls_main.c, by construction (see its header
# comment), each library call named NAME@SUFFIX (plt, or got under
# -fno-plt).  qsort's comparator longjmps out: qsort, cmp and longjmp end
# there, and the getpid that follows sits in escape_sort, where it ran.
# setjmp returns twice: a call of it through a PLT entry is written as one
# that returns at once, before qsort (a -fno-plt call through its GOT slot
# is not recorded); dlsym is never recorded (docs/tracer.md); getpid called
# through the pointer dlsym returned is, as getpid@dlsym
# (libcalls_dlsym.sh).
libcalls_main_tree() {
    local s=$1
    echo main
    echo "  counted"
    for i in 1 2 3 4 5 6 7; do echo "    malloc@$s"; done
    for i in 1 2 3; do echo "    getpid@$s"; done
    for i in 1 2 3 4 5 6 7; do echo "    free@$s"; done
    echo "  escape_sort"
    [ "$s" = plt ] && echo "    _setjmp@plt"
    printf '%s\n' "    qsort@$s" "      cmp" \
        "        longjmp@$s" "    getpid@$s" "  after_jump" "    getppid@$s"
    for i in 1 2 3; do echo "  pthread_create@$s"; done
    for i in 1 2 3; do echo "  pthread_join@$s"; done
    printf '%s\n' "  through_dlsym" "    getpid@dlsym" "    getpid@dlsym" \
        "  printf@$s"
}

# libcalls_worker_tree SUFFIX: the tree of each of its worker threads.
libcalls_worker_tree() {
    echo worker
    for i in $(seq 10); do echo "  getpid@$1"; done
}

# traced_like_untraced NAME RAW EXPECTED_OUT [VAR=VALUE...] PROGRAM [ARG...]:
# runs PROGRAM traced into RAW, with the variables given; it must exit 0,
# print EXPECTED_OUT (what it prints untraced) and nothing on stderr.
traced_like_untraced() {
    local name=$1 raw=$2 want=$3 out rc
    shift 3
    set +e
    out=$(env CALLTRACE_OUTPUT="$raw" LD_PRELOAD="$LIB" "$@" 2>"$T/err")
    rc=$?
    set -e
    expect_eq "$name: exit status" 0 "$rc"
    expect_eq "$name: output" "$want" "$out"
    expect_eq "$name: stderr" "" "$(cat "$T/err")"
}

# expect_all_matched NAME RAW: the report finds a return for every call
# and no frame open at the end (its text is left in $T/NAME.rep).
expect_all_matched() {
    "$REPORT_SAN" -b "$2" > "$T/$1.rep"
    grep -q "0 returns with no call, 0 calls with no return, 0 frames open at the end" \
        "$T/$1.rep" || fail "$1: $(grep Unmatched "$T/$1.rep")"
}

# compare_with_uftrace PROGRAM RAW SUFFIX: where uftrace is installed and
# can record PROGRAM, the calls of the library functions libcalls_main.c
# makes, NAME@SUFFIX in RAW, are as many as uftrace counts of NAME.
compare_with_uftrace() {
    local bin=$1 raw=$2 suffix=$3 f ours theirs
    if ! command -v uftrace >/dev/null 2>&1; then
        echo "note: uftrace not installed; comparison with it skipped"
        return
    fi
    if ! timeout 120 uftrace record -d "$T/uftrace.data" "$bin" > "$T/uftrace.out" 2>&1; then
        echo "note: uftrace could not record here ($(tail -1 "$T/uftrace.out")); comparison skipped"
        return
    fi
    uftrace report -d "$T/uftrace.data" > "$T/uftrace.rep" 2>/dev/null
    for f in malloc free getpid getppid printf pthread_create pthread_join; do
        ours=$(report_calls "$raw" "$f@$suffix")
        theirs=$(awk -v f="$f" '$NF == f { print $(NF-1) }' "$T/uftrace.rep")
        expect_eq "calls of $f: calltrace vs uftrace" "${theirs:-0}" "$ours"
    done
}

# build_cxx_with_cblib OUT SRC: a C++ program, instrumented, linked with
# the uninstrumented callback library (libcalls_cblib.cpp), whose callbacks
# may throw through it.
build_cxx_with_cblib() {
    [ -f "$T/libcalls_cblib.so" ] ||
        g++ -O1 -g -shared -fPIC -o "$T/libcalls_cblib.so" \
            "$PROGRAMS/libcalls_cblib.cpp"
    g++ -O1 -g -finstrument-functions -o "$1" "$2" \
        -L"$T" -l:libcalls_cblib.so -Wl,-rpath,"$T"
}
