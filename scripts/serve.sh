#!/usr/bin/env bash
# Start the app in production mode on one port (frontend, websocket and API).
# Expects .venv and a migrated database (scripts/run.sh does both); the e2e tests use it directly.
# Env: PORT (default 3000), BIND_HOST (default 0.0.0.0), DATABASE_URL, REDIS_URL, ...
# --backend-only: the API, the websocket and the in-web runner, without building or serving the
# frontend (the HTTP API tests and the hosted tests' web workers: the same environment, seconds
# instead of a minute's build).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$ROOT"
[[ -x "$PY" ]] || die "no .venv: run scripts/bootstrap.sh (or make run) first"
ensure_bun
reflex_env
web_server_env
# A clear refusal (demo secret or demo users outside demo mode) before Reflex starts building.
"$PY" -m hitl_dashboard check >/dev/null

PORT="${PORT:-3000}"
URL="http://localhost:$PORT"
export PUBLIC_URL="${PUBLIC_URL:-$URL}"

# Announce the URL once the app answers; the watcher ends with the server. Started in a
# subshell that exits at once, so no zombie is left under the server process.
server_pid=$$
( (
    for _ in $(seq 1 600); do
        kill -0 "$server_pid" 2>/dev/null || exit 0
        if "$PY" -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=2)' "$URL/ping" 2>/dev/null; then
            printf '\n\033[1m==> HITL Dashboard is ready: %s  (API health: %s/api/health)\033[0m\n\n' "$URL" "$URL" >&2
            exit 0
        fi
        sleep 0.5
    done
) & )

if [[ "${1:-}" == "--backend-only" ]]; then
    log "starting Reflex (prod, backend only) on port $PORT"
    exec "$VENV/bin/reflex" run --env prod --backend-only --backend-port "$PORT" --backend-host "${BIND_HOST:-0.0.0.0}"
fi
log "starting Reflex (prod) on port $PORT: builds the frontend (about a minute the first time)"
exec "$VENV/bin/reflex" run --env prod --frontend-port "$PORT" --backend-port "$PORT" \
    --backend-host "${BIND_HOST:-0.0.0.0}"
