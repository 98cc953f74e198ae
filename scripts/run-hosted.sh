#!/usr/bin/env bash
# `make run-hosted`: the hosted topology on one machine, against local PostgreSQL and Redis:
#   1 migration step, RUNNERS agent runner processes, and the web tier (Reflex prod, Redis
#   state manager, WEB_WORKERS web workers). Ctrl-C stops everything.
# Env: DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/hitl), REDIS_URL
# (default redis://127.0.0.1:6379/0), PORT (3000), WEB_WORKERS (2), RUNNERS (2).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bootstrap
"$ROOT/scripts/services.sh"

export DEMO_MODE=false
export DATABASE_URL="${DATABASE_URL:-postgresql://postgres@127.0.0.1:5432/hitl}"
export REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379/0}"
export RUNNER_IN_WEB=false  # the runners below do the agent work
export WEB_WORKERS="${WEB_WORKERS:-2}"
# /metrics sums the samples every web worker and runner writes here (docs/operations.md); the
# files of the previous run are removed before any process starts.
export PROMETHEUS_MULTIPROC_DIR="${PROMETHEUS_MULTIPROC_DIR:-$ROOT/.metrics}"
mkdir -p "$PROMETHEUS_MULTIPROC_DIR"
find "$PROMETHEUS_MULTIPROC_DIR" -maxdepth 1 -name '*.db' -delete

"$PY" - <<'PY'
import os, psycopg
from hitl_dashboard.db.engine import normalize_url
url = normalize_url(os.environ["DATABASE_URL"]).replace("postgresql+psycopg://", "postgresql://")
base, name = url.rsplit("/", 1)
with psycopg.connect(base + "/postgres", autocommit=True) as conn:
    if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
        conn.execute(f'CREATE DATABASE "{name}"')
        print(f"created database {name}")
PY
log "applying migrations (once per deploy, before any worker starts)"
"$PY" -m hitl_dashboard db upgrade
if [[ "$("$PY" -m hitl_dashboard --json users list)" == "[]" ]]; then
    password="$("$PY" -c 'import secrets; print(secrets.token_urlsafe(12))')"
    "$PY" -m hitl_dashboard users add admin --role admin --role manager --password "$password" >/dev/null
    log "created the first user: admin / $password (store it; it is not shown again)"
fi

pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; }
trap cleanup EXIT INT TERM
for i in $(seq 1 "${RUNNERS:-2}"); do
    "$PY" -m hitl_dashboard runner &
    pids+=($!)
    log "runner $i started (pid $!)"
done
"$ROOT/scripts/serve.sh" &
pids+=($!)
wait -n "${pids[@]}"
