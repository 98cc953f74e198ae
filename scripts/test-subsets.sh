#!/usr/bin/env bash
# Parts of the suite pass on their own (issue 44): each test makes its own data, so a file run alone,
# or only its PostgreSQL cases, must not depend on fixtures that other tests ran first. `make test`
# runs this before the whole suite: SUBSET_FILES (default 3) test files picked at random by the
# run's seed (printed; PYTEST_SEED=<n> picks the same), each in a pytest run of its own, then the
# PostgreSQL cases of those files together across two workers (`-m postgresql -n 2`). Slow cases
# are left out to keep it cheap; the browser and cluster tests have their own runs.
# Usage: scripts/test-subsets.sh [SEED]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$ROOT"
seed="${1:-${PYTEST_SEED:-$((RANDOM * 32768 + RANDOM))}}"
mapfile -t picked < <("$PY" - "$seed" "${SUBSET_FILES:-3}" <<'PY'
import random, sys
from pathlib import Path
files = sorted(str(p) for p in Path("tests").glob("test_*.py"))
print("\n".join(random.Random(int(sys.argv[1])).sample(files, int(sys.argv[2]))))
PY
)
log "test subsets (seed $seed): ${picked[*]}"
status=0
run() {  # exit code 5: the selection has no test (a file of slow cases only, or none on PostgreSQL)
    "$PY" -m pytest -q -p no:randomly "$@" || { local code=$?; ((code == 5)) || status=1; }
}
for file in "${picked[@]}"; do
    run -m "not slow" "$file"
done
run -n 2 -m "postgresql and not slow" "${picked[@]}"
exit "$status"
