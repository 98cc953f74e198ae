#!/usr/bin/env bash
# `make lint`: ruff (style, bugs, import order), import-linter (the layer contracts) and mypy (types,
# over hitl_dashboard/), all configured in pyproject.toml, and the Dockerfile check (CI never builds
# the image: scripts/check_dockerfile.py). All always run; the script fails if any reports a problem.
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
log "mypy (types)"
# The files, plugins and cache folder (.mypy_cache, git-ignored) come from [tool.mypy]: a warm run
# takes seconds, a cold one about half a minute on 2 cores.
"$VENV/bin/mypy" || status=1
log "Dockerfile: installs and starts only through the scripts CI runs, hides no failure"
"$PY" "$ROOT/scripts/check_dockerfile.py" || status=1
exit "$status"
