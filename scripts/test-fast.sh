#!/usr/bin/env bash
# `make test-fast`: the tests that need neither a browser nor PostgreSQL, for quick feedback
# while working. No e2e (browser) or hosted (cluster) tests, and every case parametrised onto
# PostgreSQL is deselected (tests/conftest.py marks them `postgresql`). `make test` still runs all.
# Arguments go to pytest: scripts/test-fast.sh tests/test_review_flow.py -x
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bootstrap dev
log "running pytest (fast: no e2e, no hosted, no PostgreSQL) $*"
exec "$PY" -m pytest --ignore=tests/e2e --ignore=tests/hosted -m "not postgresql" "$@"
