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
# Everything the clone runs has the clone's path in its command line (its .venv's python: reflex,
# gunicorn and its workers): `make run` is in a session of its own (setsid), so killing the subshell
# left gunicorn serving after the script had ended.
cleanup() {
    pkill -TERM -f "frontend-port $port" 2>/dev/null || true
    pkill -TERM -f "$clone/" 2>/dev/null || true
    kill "$runner" 2>/dev/null || true
    sleep 2
    pkill -KILL -f "frontend-port $port" 2>/dev/null || true
    pkill -KILL -f "$clone/" 2>/dev/null || true
    if pgrep -f "$clone/" >/dev/null; then log "smoke test: processes of $clone still run after cleanup"; fi
}
trap cleanup EXIT
# Ready means the API reports a healthy database and /login serves the compiled page. The
# body goes to a file and is checked there: `curl | grep -q` under pipefail fails whenever grep
# exits on its match before curl has written the rest (curl exit 23), which one CI run took for
# a missing page while /login answered 200.
body="$clone/smoke-body"
# fetch PATH: sets $code (HTTP status), $fetch_rc (curl's exit code); the body lands in $body.
fetch() {
    fetch_rc=0
    code="$(curl -sS -o "$body" -w '%{http_code}' -L --max-time 20 "http://127.0.0.1:$port$1" 2>"$body.err")" || fetch_rc=$?
}
health_ok() { fetch /api/health; [[ "$code" == 200 ]] && grep -q '"database":"ok"' "$body"; }
login_ok() { fetch /login; [[ "$code" == 200 ]] && grep -qi "<html" "$body"; }
what() { echo "HTTP $code, curl exit $fetch_rc: $(head -c 300 "$body" 2>/dev/null) $(cat "$body.err" 2>/dev/null)"; }
ready=0
for _ in $(seq 1 600); do
    kill -0 "$runner" 2>/dev/null || { tail -40 "$clone/make-run.log"; die "make run exited before serving"; }
    if health_ok && login_ok; then ready=1; break; fi
    sleep 1
done
if [[ "$ready" != 1 ]]; then
    tail -40 "$clone/make-run.log"
    health_ok || die "no healthy /api/health ($(what))"
    login_ok || die "no page at /login ($(what))"
    die "/api/health and /login answered only now, after ten minutes"
fi
grep -q "alice/demo" "$clone/make-run.log" || die "make run did not print the demo logins"
log "smoke test passed: make run served /login and /api/health from a fresh clone"
