#!/usr/bin/env bash
# `make test-fast`: the tests that need neither a browser nor PostgreSQL, for quick feedback
# while working, across the cores and in a random order (seed printed; PYTEST_SEED=<n> replays).
# Left out: e2e (browser) and hosted (cluster) tests, every case parametrised onto PostgreSQL
# (tests/conftest.py marks them `postgresql`), and the few long cases marked `slow`
# (pytest.ini). `make test` still runs them all.
# Arguments go to pytest: scripts/test-fast.sh tests/test_review_flow.py -x
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bootstrap dev
cd "$ROOT"
seed="${PYTEST_SEED:-$((RANDOM * 32768 + RANDOM))}"
log "running pytest (fast: no e2e, hosted, PostgreSQL or slow cases; seed $seed) $*"
exec "$PY" -m pytest --randomly-seed="$seed" -n "${PYTEST_WORKERS:-auto}" --dist loadgroup \
    --ignore=tests/e2e --ignore=tests/hosted -m "not postgresql and not slow" "$@"
