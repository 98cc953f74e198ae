#!/usr/bin/env bash
# `make test`: bootstrap with the dev packages, the linters (scripts/lint.sh: a finding fails the
# run), browser, PostgreSQL and Redis, then pytest in two runs, in a random order (pytest-randomly;
# one seed for both, printed first: PYTEST_SEED=<n> replays an order):
#   1. every test but the browser ones (pytest-xdist, PYTEST_WORKERS, default two per core: these
#      tests wait on PostgreSQL, subprocesses and timers, and one per core kept 2 cores 57 % busy;
#      --dist loadgroup keeps the tests that share a Redis database on one worker);
#   2. tests/e2e across E2E_WORKERS workers (default one per core, at most 4), in a random order too:
#      each worker serves its own app and builds it in web folders of its own (.web-e2e/<worker>-*:
#      a Reflex build bakes in the port); --dist loadgroup keeps a module's tests that share a
#      module-scoped fixture (an app of their own) on one worker (tests/e2e/conftest.py). A run of its
#      own because Playwright's loop must come after every test that calls asyncio.run.
# Before them, scripts/test-subsets.sh runs a few files picked by the seed on their own (a subset
# must pass alone). All runs always run; the exit code is the first failure's.
# Arguments replace that plan with one plain pytest run: scripts/test.sh tests/e2e -x
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bootstrap dev
"$ROOT/scripts/lint.sh"
"$ROOT/scripts/browser.sh"
"$ROOT/scripts/services.sh"
cd "$ROOT"
if (($#)); then
    log "running pytest $*"
    exec "$PY" -m pytest "$@"
fi
seed="${PYTEST_SEED:-$((RANDOM * 32768 + RANDOM))}"
log "pytest order seed: $seed (PYTEST_SEED=$seed make test replays it)"
status=0
# A few test files alone, and their PostgreSQL cases alone: no test may need another to run first.
"$ROOT/scripts/test-subsets.sh" "$seed" || status=$?
cores="$(nproc)"
workers="${PYTEST_WORKERS:-$((cores * 2 < 8 ? cores * 2 : 8))}"
log "running pytest 1/2: all but tests/e2e, across $workers workers"
"$PY" -m pytest --randomly-seed="$seed" -n "$workers" \
    --dist loadgroup --ignore=tests/e2e --durations=10 || status=$?
e2e_workers="${E2E_WORKERS:-$((cores < 4 ? cores : 4))}"
log "running pytest 2/2: tests/e2e, across $e2e_workers workers"
e2e=0
"$PY" -m pytest --randomly-seed="$seed" -n "$e2e_workers" --dist loadgroup tests/e2e --durations=10 || e2e=$?
exit $((status ? status : e2e))
