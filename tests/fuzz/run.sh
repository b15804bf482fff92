#!/bin/bash
# Builds the libFuzzer harnesses (one per reader) into $BUILD/fuzz and
# runs them.  Usage: tests/fuzz/run.sh [smoke|long]
#   smoke  about 20 s in all (the harnesses share the budget)
#   long   10 minutes each
# Seed corpora: tests/formats/samples ($CT_FORMATS/samples) and tests/formats.
# Prints "fuzz: N passed, N failed" (one per harness); exits non-zero when a
# harness crashed.  Crash inputs are left in $BUILD/fuzz/crash-<harness>-*.
set -u
cd "$(dirname "$0")/../.."
mode=${1:-smoke}
BUILD=${BUILD:-build}
out=$BUILD/fuzz
formats=${CT_FORMATS:-tests/formats}
harnesses=(calltrace openlaszlo lms rtl samplingprof evlog)
case $mode in
    smoke) secs=$(( 20 / ${#harnesses[@]} )) ;;
    long) secs=600 ;;
    *) echo "usage: $0 [smoke|long]" >&2; exit 2 ;;
esac
if ! command -v clang >/dev/null; then
    echo "fuzz: clang not found; 0 passed, 0 failed (skipped)"
    exit 0
fi
mkdir -p "$out/obj"
flags="-g -O1 -std=gnu11 -D_GNU_SOURCE -Iinclude -Ianalyzer -Ianalyzer/readers -Ianalyzer/model \
    -Ianalyzer/report -Ianalyzer/writers \
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
    if ! clang $flags -fsanitize=fuzzer -Itests/fuzz -o "$bin" \
            "tests/fuzz/fuzz_$h.c" "${objs[@]}" -lbfd -lm -lz; then
        echo "FAILED: fuzz_$h does not build"; fail=$((fail + 1)); continue
    fi
    corpus=$out/corpus_$h
    mkdir -p "$corpus"
    cp -f "$formats"/samples/* tests/formats/* "$corpus"/ 2>/dev/null
    extra=()
    # The seed trace names real objects (libc) in its MAPS block, which
    # libbfd opens; libbfd's known leak (suppressed in symbolize.c) makes
    # libFuzzer run LeakSanitizer after every input, 40x slower.  The unit
    # tests run LeakSanitizer over the reader at exit.
    [ "$h" = calltrace ] && extra=(-detect_leaks=0)
    if "$bin" "${extra[@]}" -max_total_time="$secs" -close_fd_mask=2 -rss_limit_mb=2048 \
            -timeout=10 -max_len=65536 -artifact_prefix="$out/crash-$h-" \
            "$corpus" > "$out/fuzz_$h.log" 2>&1; then
        pass=$((pass + 1))
        echo "fuzz_$h: ok ($(grep -o 'Done [0-9]* runs' "$out/fuzz_$h.log" | tail -1))"
    else
        fail=$((fail + 1))
        echo "FAILED: fuzz_$h (see $out/fuzz_$h.log)"
        grep -m5 -E 'ERROR|SUMMARY|runtime error' "$out/fuzz_$h.log"
    fi
done
echo "fuzz: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
