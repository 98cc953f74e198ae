#!/usr/bin/env bash
# `make run`: bootstrap, migrate, seed the demo (first time only), serve on $PORT.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bootstrap
log "applying database migrations"
"$PY" -m hitl_dashboard db upgrade
log "seeding demo data (only the first time)"
"$PY" -m hitl_dashboard demo seed
exec "$ROOT/scripts/serve.sh"
