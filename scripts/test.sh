#!/usr/bin/env bash
# `make test`: bootstrap with the dev packages, the linters (scripts/lint.sh: a finding fails the
# run), browser, PostgreSQL and Redis, then pytest in two runs, in a random order (pytest-randomly;
# one seed for both, printed first: PYTEST_SEED=<n> replays an order):
#   1. every test but the browser ones, across the cores (pytest-xdist, PYTEST_WORKERS, default
#      one per core; --dist loadgroup keeps the tests that share a Redis database on one worker);
#   2. tests/e2e in one process, in a random order too: its apps share the checkout's .web (a build
#      bakes in the port), and Playwright's loop must come after every test that calls asyncio.run
#      (tests/e2e/conftest.py).
# Both runs always run; the exit code is the first failure's.
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
log "running pytest 1/2: all but tests/e2e, across ${PYTEST_WORKERS:-auto} workers"
"$PY" -m pytest --randomly-seed="$seed" -n "${PYTEST_WORKERS:-auto}" \
    --dist loadgroup --ignore=tests/e2e --durations=10 || status=$?
log "running pytest 2/2: tests/e2e"
e2e=0
"$PY" -m pytest --randomly-seed="$seed" tests/e2e --durations=10 || e2e=$?
exit $((status ? status : e2e))
