#!/usr/bin/env bash
# `make lint`: ruff (style, bugs, import order) and import-linter (the layer contracts), both
# configured in pyproject.toml. Both always run; the script fails if either reports a problem.
# `make test` runs this before pytest.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$ROOT"
ensure_venv
ensure_requirements dev requirements-dev.txt
status=0
log "ruff check"
"$VENV/bin/ruff" check . || status=1
log "lint-imports (layer contracts)"
# --no-cache: building the import graph takes well under a second; no cache folder to keep.
"$VENV/bin/lint-imports" --no-cache --no-logo || status=1
exit "$status"
