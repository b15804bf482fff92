#!/bin/bash
# Builds the libFuzzer harnesses (one per reader) into $BUILD/fuzz and
# runs them.  Usage: tests/fuzz/run.sh [smoke|long]
#   smoke  about 20 s in all (the harnesses share the budget)
#   long   10 CPU-minutes each (FUZZ_CPU_SECONDS): the budget is the
#          harness's own CPU time, so a busy machine makes the run
#          longer, not weaker
# Seed corpora: tests/formats/samples ($CT_FORMATS/samples) and tests/formats.
# Prints "fuzz: N passed, N failed" (one per harness); exits non-zero when a
# harness crashed.  Crash inputs are left in $BUILD/fuzz/crash-<harness>-*.
set -u
cd "$(dirname "$0")/../.."
mode=${1:-smoke}
BUILD=${BUILD:-build}
out=$BUILD/fuzz
formats=${CT_FORMATS:-tests/formats}
harnesses=(calltrace follow openlaszlo lms rtl samplingprof evlog recv settings cfi)
# FUZZ_HARNESSES="lms rtl" runs only those.
[ -n "${FUZZ_HARNESSES:-}" ] && read -r -a harnesses <<< "$FUZZ_HARNESSES"
case $mode in
    smoke) secs=$(( 20 / ${#harnesses[@]} )) ;;
    long) secs=${FUZZ_CPU_SECONDS:-600} ;;
    *) echo "usage: $0 [smoke|long]" >&2; exit 2 ;;
esac
if ! command -v clang >/dev/null; then
    echo "fuzz: clang not found; 0 passed, 0 failed (skipped)"
    exit 0
fi
mkdir -p "$out/obj"
flags="-g -O1 -std=gnu11 -D_GNU_SOURCE -I. -Iinclude \
    -fsanitize=address,undefined -fno-sanitize-recover=undefined \
    -DCALLTRACE_VERSION=\"fuzz\""
objs=()
for src in analyzer/*.c analyzer/*/*.c; do
    [ "$src" = analyzer/main.c ] && continue
    obj=$out/obj/$(basename "${src%.c}").o
    if [ ! -e "$obj" ] || [ "$src" -nt "$obj" ] ||
       [ -n "$(find analyzer include -name '*.h' -newer "$obj" | head -1)" ]; then
        clang $flags -fsanitize=fuzzer-no-link -c -o "$obj" "$src" || {
            echo "fuzz: cannot build $src"; echo "fuzz: 0 passed, ${#harnesses[@]} failed"; exit 1; }
    fi
    objs+=("$obj")
done
pass=0; fail=0
for h in "${harnesses[@]}"; do
    bin=$out/fuzz_$h
    srcs=("tests/fuzz/fuzz_$h.c")
    # recv: calltrace recv's stream check, from the front end.
    [ "$h" = recv ] && srcs+=(frontend/recv_parse.c)
    # settings: the parsers of the tracer's environment, with the front
    # end's allocator (the tracer's is its own mappings).
    [ "$h" = settings ] && srcs+=(settings/*.c frontend/settings_alloc.c)
    # cfi: the sampler's reader of the loaded objects' unwind tables.
    [ "$h" = cfi ] && srcs+=(preload/sampling/sample_cfi.c)
    if ! clang $flags -fsanitize=fuzzer -Itests/fuzz -Ifrontend -o "$bin" \
            "${srcs[@]}" "${objs[@]}" -lbfd -lm -lz -lzstd; then
        echo "FAILED: fuzz_$h does not build"; fail=$((fail + 1)); continue
    fi
    corpus=$out/corpus_$h
    mkdir -p "$corpus"
    cp -f "$formats"/samples/* tests/formats/* "$corpus"/ 2>/dev/null
    if [ "$h" = settings ]; then
        # specs in each language, and names to match
        printf 'parse@arg1/i32,arg2/s,retval;send*@arg3/x;re:^int_@arg1;auto\0int_add\0send\0calloc' > "$corpus/seed-args"
        printf 'f@args,retval;x@plt@arg1/s16,fparg2/f32\0f\0x' > "$corpus/seed-args2"
        printf 'd_int@arg1/i32%%rbp-20,arg2/32%%rbx,fparg1/f64%%xmm1,arg3%%none,retval/i32%%rsp+40,at+26\0d_int' > "$corpus/seed-args3"
        printf 'foo@arg1/t16:pair,fparg1/t8:dbl1,arg4/t0:E,arg7%%stack+1,arg2/o32,retval/t24:C;many@arg1/i32%%stack5\0foo\0many' > "$corpus/seed-args4"
        printf 'main,-lex_*,re:^yy,fib@3,start:on,size=64,-*@plt\0lex_a\0yyparse\0malloc' > "$corpus/seed-filter"
        # stacked repetitions, which regcomp would copy past 2 GB
        printf 're:^yy++++++++++++++++++++++++++++++++++++++++++++++++++\0yyparse' > "$corpus/seed-deep-re"
        # loops over parts that may match nothing: few copies, but
        # regcomp's closures took 39 s (12 s, 38 s)
        printf 're:^yy++?+++++++++++\0yyparse' > "$corpus/seed-nested-re"
        printf 're:^yy*+?++++++++\0yyparse' > "$corpus/seed-nested-re2"
        printf 're:^a?????b???????????=??????+w?c?????????d????=??????+we' > "$corpus/seed-nested-re3"
        printf 'out.raw\0004K\0001G\0monotonic\000clock\0001\000USR2\000yes\000nested\0002M\000USR1' > "$corpus/seed-config"
    fi
    extra=()
    # The seed trace names real objects (libc) in its MAPS block, which
    # libbfd opens; libbfd's known leak (suppressed in symbolize.c) makes
    # libFuzzer run LeakSanitizer after every input, 40x slower.  The unit
    # tests run LeakSanitizer over the reader at exit.
    # That leak (about 3 KB an input) also grows the process by 2 GB in the
    # 600 000 inputs of a long run: there, memory is bounded per allocation
    # (-malloc_limit_mb) and the whole process gets more room.
    rss=2048
    if [ "$h" = calltrace ] || [ "$h" = follow ]; then
        extra=(-detect_leaks=0)
        [ "$mode" = long ] && rss=8192 extra+=(-malloc_limit_mb=2048)
    fi
    # smoke: a wall-clock budget; long: the harness's CPU time, watched
    # here, then SIGINT, on which libFuzzer prints its totals and exits 72.
    # A slow input is one over 10 s of wall time; in a long run, which may
    # share a loaded machine at low priority, over 600 s (at nice 19 on a
    # busy machine, inputs of 0.2 s of CPU took over 60 s).
    wall=$secs tmo=10
    [ "$mode" = long ] && wall=$((secs * 50)) tmo=600
    "$bin" "${extra[@]}" -max_total_time="$wall" -close_fd_mask=2 -rss_limit_mb="$rss" \
        -timeout="$tmo" -max_len=65536 -print_final_stats=1 \
        -artifact_prefix="$out/crash-$h-" "$corpus" > "$out/fuzz_$h.log" 2>&1 &
    pid=$!
    if [ "$mode" = long ]; then
        hz=$(getconf CLK_TCK)
        while kill -0 "$pid" 2>/dev/null; do
            sleep 2
            read -r -a st < "/proc/$pid/stat" 2>/dev/null || break
            # utime and stime: fields 14 and 15 (the name holds no spaces)
            if [ $(( (st[13] + st[14]) / hz )) -ge "$secs" ]; then
                kill -INT "$pid" 2>/dev/null; break
            fi
        done
    fi
    wait "$pid"; rc=$?
    if [ "$rc" -eq 0 ] || { [ "$rc" -eq 72 ] && grep -q 'run interrupted' "$out/fuzz_$h.log"; }; then
        pass=$((pass + 1))
        runs=$(grep -ao 'number_of_executed_units: [0-9]*' "$out/fuzz_$h.log" | tail -1 | grep -o '[0-9]*$')
        cov=$(grep -ao 'cov: [0-9]*' "$out/fuzz_$h.log" | tail -1)
        echo "fuzz_$h: ok (${runs:-?} runs, $cov, corpus $(ls "$corpus" | wc -l) inputs)"
    else
        fail=$((fail + 1))
        echo "FAILED: fuzz_$h (see $out/fuzz_$h.log)"
        grep -m5 -E 'ERROR|SUMMARY|runtime error' "$out/fuzz_$h.log"
    fi
done
echo "fuzz: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
