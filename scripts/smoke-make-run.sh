#!/usr/bin/env bash
# CI step: on a fresh clone of this repository, `make run` must install everything, serve the
# app, and answer on the page and the health endpoint. Stops the server afterwards.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
clone="$(mktemp -d)"
port="${SMOKE_PORT:-3999}"
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
for _ in $(seq 1 600); do
    if curl -sf "http://127.0.0.1:$port/api/health" >/dev/null 2>&1; then
        break
    fi
    sleep 1
done
curl -sf "http://127.0.0.1:$port/api/health" | grep -q '"database":"ok"' || { tail -40 "$clone/make-run.log"; die "no healthy /api/health"; }
curl -sfL "http://127.0.0.1:$port/login" | grep -qi "<html" || { tail -40 "$clone/make-run.log"; die "no page at /login"; }
grep -q "alice/demo" "$clone/make-run.log" || die "make run did not print the demo logins"
log "smoke test passed: make run served /login and /api/health from a fresh clone"
