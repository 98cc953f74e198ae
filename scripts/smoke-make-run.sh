#!/usr/bin/env bash
# CI step: on a fresh clone of this repository, `make run` must install everything, serve the
# app, and answer on the page and the health endpoint. Stops the server afterwards.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
clone="$(mktemp -d)"
# A port nobody holds now (a fixed one could still be held by an earlier run's server, whose
# answers would then be taken for this clone's).
port="${SMOKE_PORT:-$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}"
git clone -q "$ROOT" "$clone"
log "smoke test: make run in a fresh clone ($clone) on port $port"
(cd "$clone" && PORT="$port" BIND_HOST=127.0.0.1 DATABASE_URL="sqlite:///$clone/hitl.db" \
    setsid make run >"$clone/make-run.log" 2>&1) &
runner=$!
cleanup() {
    pkill -TERM -f "frontend-port $port" 2>/dev/null || true
    kill -- -"$runner" 2>/dev/null || kill "$runner" 2>/dev/null || true
    sleep 2
    pkill -KILL -f "frontend-port $port" 2>/dev/null || true
}
trap cleanup EXIT
# Ready means both the API and the compiled page answer (one CI run saw /login fail right after
# the health route first answered). Ten minutes covers a first install and frontend build.
status() { curl -s -o /dev/null -w '%{http_code}' -L "http://127.0.0.1:$port$1" 2>/dev/null || true; }
for _ in $(seq 1 600); do
    kill -0 "$runner" 2>/dev/null || { tail -40 "$clone/make-run.log"; die "make run exited before serving"; }
    [[ "$(status /api/health)" == 200 && "$(status /login)" == 200 ]] && break
    sleep 1
done
curl -sf "http://127.0.0.1:$port/api/health" | grep -q '"database":"ok"' \
    || { tail -40 "$clone/make-run.log"; die "no healthy /api/health (HTTP $(status /api/health))"; }
curl -sfL "http://127.0.0.1:$port/login" | grep -qi "<html" \
    || { tail -40 "$clone/make-run.log"; die "no page at /login (HTTP $(status /login))"; }
grep -q "alice/demo" "$clone/make-run.log" || die "make run did not print the demo logins"
log "smoke test passed: make run served /login and /api/health from a fresh clone"
