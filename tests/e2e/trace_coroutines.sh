#!/usr/bin/env bash
# Coroutines made with makecontext/swapcontext: each context keeps its own
# call stack.  main -> foo -> swapcontext to a context running bar -> baz,
# back and forth, then bar returns to uc_link.  Every call is matched,
# nothing is lost, and every view shows bar and baz on the coroutine's
# own stack (thread "TID:1", a lane of its own), foo as the leaf it is on
# the thread's stack.  uftrace (where installed) sees the same calls in
# the same order.
. "$(dirname "$0")/lib.sh"
build_traced "$T/co" "$PROGRAMS/coro_ucontext.c"
run_traced "$T/co.raw" "$T/co" 2 > "$T/out"
expect_eq stdout "count=2" "$(cat "$T/out")"

"$REPORT_SAN" -b -p "$T/co.raw" > "$T/rep" || fail "report failed"
has -E '^ Events: [0-9]+ \(7 calls, 7 returns, 0 user events, 0 samples\)$' "$T/rep" ||
    fail "events: $(grep '^ Events:' "$T/rep")"
expect_eq "lost" " Lost events: 0" "$(grep '^ Lost events:' "$T/rep")"
has "0 returns with no call, 0 calls with no return, 0 frames open at the end" "$T/rep" ||
    fail "unmatched: $(grep Unmatched "$T/rep")"
has -E '^ Threads: 2 \(tid [0-9]+, [0-9]+:1\)$' "$T/rep" ||
    fail "threads: $(grep Threads "$T/rep")"
for fc in main:1 foo:3 bar:1 baz:2; do
    f=${fc%:*} n=${fc#*:}
    has -E "^ +[0-9.]+ +[0-9.]+ +[0-9.]+ +$n +.* $f \[" "$T/rep" ||
        fail "$f not called $n times: $(grep " $f \[" "$T/rep")"
done

# --tree: the coroutine's lines carry TID:1 and its own depth
"$REPORT_SAN" --tree "$T/co.raw" |
    sed -n 's/^.*\[ *[0-9]*\(:[0-9]*\)\{0,1\}\] | /\1|/p' > "$T/tree"
expect_eq tree "|main() {
|  foo();
:1|bar() {
:1|  baz();
|  foo();
:1|  baz();
|  foo();
:1|} /* bar */
|} /* main */" "$(cat "$T/tree")"

# --dump: the lane of the coroutine is thread 2 (C2, R2)
"$REPORT_SAN" --dump "$T/co.raw" | awk '$2 ~ /^[CR]/ {print $2, $3}' |
    paste -sd'|' > "$T/dump"
expect_eq dump "C main|C foo|C2 bar|C2 baz|R2 baz|R foo|C foo|C2 baz|R2 baz|R foo|C foo|R2 bar|R foo|R main" \
    "$(cat "$T/dump")"

# exports: folded stacks, callgrind arcs, chrome and perfetto tracks
"$REPORT_SAN" --export folded -o "$T/f" "$T/co.raw"
expect_eq folded "bar|bar;baz|main|main;foo" \
    "$(awk '{print $1}' "$T/f" | sort | paste -sd'|')"
"$REPORT_SAN" --export callgrind -o "$T/cg" "$T/co.raw"
expect_eq callgrind "fn=main cfn=foo calls=3|fn=bar cfn=baz calls=2" \
    "$(awk '/^fn=/ {fn=$0} /^cfn=/ {cfn=$0} /^calls=/ {print fn, cfn, $1}' \
        "$T/cg" | paste -sd'|')"
"$REPORT_SAN" --export chrome -o "$T/c.json" "$T/co.raw"
expect_eq chrome "calls=7 never_returned=0 user=0 calltrace-lost=0 overhead=1" \
    "$(python3 "$CT_ROOT/tests/e2e/tools/check_chrome.py" "$T/c.json")"
expect_eq "chrome tracks" 2 \
    "$(grep -o '"tid":[1-9][0-9]*' "$T/c.json" | sort -u | wc -l)"
if command -v protoc > /dev/null; then
    "$REPORT_SAN" --export perfetto -o "$T/p.pftrace" "$T/co.raw"
    protoc --decode=perfetto.protos.Trace -I "$CT_ROOT/tests/proto" \
        "$CT_ROOT/tests/proto/perfetto_subset.proto" < "$T/p.pftrace" \
        > "$T/p.txt" || fail "protoc cannot decode the perfetto export"
    expect_eq perfetto "calls=7 never_returned=0 user=0 calltrace-lost=0 overhead=1" \
        "$(python3 "$CT_ROOT/tests/e2e/tools/check_perfetto.py" < "$T/p.txt")"
    has 'name: "thread [0-9]* context 1"' "$T/p.txt" || fail "perfetto track name"
fi

# the live view (calltrace top) follows the switches too: foo calls
# nothing on its own stack, so its self time is its total
"$FRONT" top -n 1 -s "$T/co.raw" > "$T/top" 2>&1 || fail "calltrace top"
expect_eq "top: foo" "3 self=total" \
    "$(awk '$7 == "foo" {print $5, ($2 == $4 ? "self=total" : $2 " of " $4)}' "$T/top")"
expect_eq "top: bar and baz" "1 2" \
    "$(awk '$7 == "bar" {b = $5} $7 == "baz" {z = $5} END {print b, z}' "$T/top")"

# two threads, each with a coroutine of its own, at the same time
build_traced "$T/thr" "$PROGRAMS/coro_threads.c"
run_traced "$T/thr.raw" "$T/thr" > /dev/null
"$REPORT_SAN" -b -p "$T/thr.raw" > "$T/thr.rep" || fail "report failed"
expect_eq "threads: lost" " Lost events: 0" "$(grep '^ Lost events:' "$T/thr.rep")"
has "0 returns with no call, 0 calls with no return, 0 frames open at the end" "$T/thr.rep" ||
    fail "threads: unmatched: $(grep Unmatched "$T/thr.rep")"
expect_eq "threads: lanes" 2 \
    "$(grep '^ Threads:' "$T/thr.rep" | grep -o '[0-9]\+:[0-9]\+' | wc -l)"
for fc in run:2 foo:2002 bar:2 baz:2000; do
    f=${fc%:*} n=${fc#*:}
    has -E "^ +[0-9.]+ +[0-9.]+ +[0-9.]+ +$n +.* $f \[" "$T/thr.rep" ||
        fail "threads: $f not called $n times: $(grep " $f \[" "$T/thr.rep")"
done

# Many switches in small blocks: blocks that begin inside the coroutine
# say so, and every block read alone (--time-range) knows its stack.
CALLTRACE_BUFSIZE=4K run_traced "$T/many.raw" "$T/co" 20000 > /dev/null
"$REPORT_SAN" -b -p "$T/many.raw" > "$T/many" || fail "report failed"
has -E '^ Events: [0-9]+ \(40003 calls, 40003 returns, 0 user events, 0 samples\)$' "$T/many" ||
    fail "many: events: $(grep '^ Events:' "$T/many")"
expect_eq "many: lost" " Lost events: 0" "$(grep '^ Lost events:' "$T/many")"
has "0 returns with no call, 0 calls with no return, 0 frames open at the end" "$T/many" ||
    fail "many: unmatched: $(grep Unmatched "$T/many")"
# a window in the middle, from the dump's times (ms since the first event)
"$REPORT_SAN" --dump "$T/many.raw" > "$T/many.dump"
from=$(awk 'NR == 40000 {print $1}' "$T/many.dump")
to=$(awk 'NR == 40100 {print $1}' "$T/many.dump")
"$REPORT_SAN" --time-range "${from}ms..${to}ms" -b -p "$T/many.raw" > "$T/mid" ||
    fail "--time-range failed"
has "0 returns with no call" "$T/mid" || fail "mid: $(grep Unmatched "$T/mid")"
"$REPORT_SAN" --tree --time-range "${from}ms..${to}ms" "$T/many.raw" |
    grep -c ':1\] | bar() { /\* already open \*/' > "$T/open" || true
expect_eq "mid: bar open on the coroutine's stack" 1 "$(cat "$T/open")"

# The switch made inside a library call (CALLTRACE_LIBCALLS=plt): each
# context's call stays open until that context runs again, and returns
# through its own trampoline; a lazily bound slot whose first call is
# still open records the other context's calls too.
gcc -shared -fPIC -O1 -o "$T/libcorolib.so" "$PROGRAMS/coro_lib.c"
build_traced "$T/col" "$PROGRAMS/coro_ucontext.c" -DCORO_LIB \
    -L"$T" -lcorolib -Wl,-rpath,"$T"
CALLTRACE_LIBCALLS=plt run_traced "$T/col.raw" "$T/col" 2 > /dev/null
"$REPORT_SAN" -b -p "$T/col.raw" > "$T/col.rep" || fail "report failed"
expect_eq "lib: lost" " Lost events: 0" "$(grep '^ Lost events:' "$T/col.rep")"
has "0 returns with no call, 0 calls with no return, 0 frames open at the end" "$T/col.rep" ||
    fail "lib: unmatched: $(grep Unmatched "$T/col.rep")"
"$REPORT_SAN" --tree "$T/col.raw" |
    sed -n 's/^.*\[ *[0-9]*\(:[0-9]*\)\{0,1\}\] | /\1|/p' |
    grep -v -e '^|  strtol@plt' -e '^|  makecontext@plt' -e '^|  printf@plt' \
    > "$T/coltree"
expect_eq "lib: tree" "|main() {
|  getcontext@plt();
|  foo() {
|    coro_lib_switch@plt();
:1|bar() {
:1|  baz();
:1|  coro_lib_switch@plt();
|  } /* foo */
|  foo() {
|    coro_lib_switch@plt();
:1|  baz();
:1|  coro_lib_switch@plt();
|  } /* foo */
|  foo() {
|    coro_lib_switch@plt();
:1|} /* bar */
|  } /* foo */
|} /* main */" "$(cat "$T/coltree")"

# uftrace sees the same calls in the same order (it keeps one stack per
# thread, so it nests each context's calls under the other's and ends
# with frames it calls remaining; its PLT hooks do not survive the
# switches: --no-libcall)
if command -v uftrace > /dev/null; then
    gcc -std=gnu11 -O1 -g -pg -o "$T/co.pg" "$PROGRAMS/coro_ucontext.c"
    if (cd "$T" && uftrace record --no-libcall -d "$T/u.data" "$T/co.pg" 2 \
            > /dev/null 2>&1); then
        uftrace replay -d "$T/u.data" 2> /dev/null |
            sed -n 's/^.*| *\([a-z]*\)() {$/\1/p; s/^.*| *\([a-z]*\)();$/\1/p' |
            paste -sd' ' > "$T/u.calls"
        expect_eq "uftrace's calls" "main foo bar baz foo baz foo" \
            "$(cat "$T/u.calls")"
        expect_eq "calltrace's calls" "$(cat "$T/u.calls")" \
            "$(awk '$2 ~ /^C/ {print $3}' <("$REPORT_SAN" --dump "$T/co.raw") |
                paste -sd' ')"
    fi
fi
# getcontext and swapcontext are library calls too (uftrace's t014 shows
# them), written by their wrappers with no frame of the tracer's between
# the caller and glibc: a context swapcontext saved is resumed three times
# and the program runs as untraced.
build_traced "$T/twice" "$PROGRAMS/coro_resume_twice.c"
expect_eq "twice: untraced" "n=3" "$("$T/twice")"
CALLTRACE_LIBCALLS=plt run_traced "$T/twice.raw" "$T/twice" > "$T/twice.out" ||
    fail "twice: status $?"
expect_eq "twice: output" "n=3" "$(cat "$T/twice.out")"
"$REPORT_SAN" -b -p "$T/twice.raw" > "$T/twice.rep" || fail "twice: report"
has "0 returns with no call" "$T/twice.rep" ||
    fail "twice: $(grep Unmatched "$T/twice.rep")"
"$REPORT_SAN" --tree "$T/twice.raw" | sed -n 's/^.*\] | //p' |
    grep -E '^  (getcontext|makecontext|swapcontext|step)' > "$T/twice.tree"
expect_eq "twice: tree" "  getcontext@plt();
  makecontext@plt();
  swapcontext@plt();
  step();
  step();
  step();" "$(cat "$T/twice.tree")"

echo "coroutines: own stacks, exact counts, every view"
