#!/usr/bin/env bash
# make bench: installs the peers compared against (uftrace, hyperfine,
# gperftools) when run as root, then runs every bench/*.sh.  Each script
# prints its figures with the command that produced them; BENCHMARKS.md
# collects them.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --bench || echo "bench: some peers are missing; their columns will be skipped" >&2
for b in bench/*.sh; do
    case $(basename "$b") in run.sh | lib.sh | realprog.sh) continue ;; esac  # not benches
    echo "== $b"
    BUILD=${BUILD:-build} bash "$b"
done
