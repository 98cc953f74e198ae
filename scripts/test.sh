#!/usr/bin/env bash
# `make test`: bootstrap with the dev packages, the linters (scripts/lint.sh: a finding fails the
# run), browser, PostgreSQL and Redis, then pytest.
# Arguments go to pytest: scripts/test.sh tests/e2e -x
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bootstrap dev
"$ROOT/scripts/lint.sh"
"$ROOT/scripts/browser.sh"
"$ROOT/scripts/services.sh"
log "running pytest $*"
exec "$PY" -m pytest "$@"
