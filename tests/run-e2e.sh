#!/usr/bin/env bash
# Runs every tests/e2e/*.sh; each exits 0 (pass), 77 (skip) or else (fail).
# Prints one line per test and "e2e: N passed, N failed, N skipped".
set -u
cd "$(dirname "$0")/.."
export CT_ROOT=$PWD
export CT_BUILD=$(cd "${BUILD:-build}" && pwd)
pass=0; fail=0; skip=0
for t in tests/e2e/*.sh; do
    [ "$(basename "$t")" = lib.sh ] && continue
    [ -e "$t" ] || continue
    name=$(basename "$t" .sh)
    log=$CT_BUILD/e2e-logs/$name.log
    mkdir -p "$(dirname "$log")"
    start=$(date +%s)
    bash "$t" >"$log" 2>&1
    rc=$?
    secs=$(( $(date +%s) - start ))
    case $rc in
        0) pass=$((pass + 1)); echo "PASS $name (${secs}s)";;
        77) skip=$((skip + 1)); echo "SKIP $name: $(tail -n 1 "$log")";;
        *) fail=$((fail + 1)); echo "FAIL $name (exit $rc), last lines of $log:"
           tail -n 25 "$log" | sed 's/^/    /';;
    esac
done
echo "e2e: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
