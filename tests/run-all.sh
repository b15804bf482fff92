#!/usr/bin/env bash
# make check: unit tests, end-to-end tests, fuzz smoke runs.  Ends with one
# "N passed, N failed" line over all of them.
set -u
cd "$(dirname "$0")/.."
total_pass=0; total_fail=0
tally() { # parses "<kind>: N passed, N failed" from the last run
    local line; line=$(grep -E '^[a-z0-9]+: [0-9]+ passed, [0-9]+ failed' "$1" | tail -n 1)
    local p f
    p=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed.*/\1/')
    f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
    total_pass=$((total_pass + ${p:-0})); total_fail=$((total_fail + ${f:-1}))
}
out=$(mktemp)
echo "== unit tests (cmocka, ASan+UBSan)"
tests/run-unit.sh "$@" 2>&1 | tee "$out"; tally "$out"
echo "== end-to-end tests"
tests/run-e2e.sh 2>&1 | tee "$out"; tally "$out"
if [ -x tests/fuzz/run.sh ]; then
    echo "== fuzz smoke runs"
    tests/fuzz/run.sh smoke 2>&1 | tee "$out"; tally "$out"
fi
rm -f "$out"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
