# Shared helpers for the scripts in this folder. Source it; do not run it.
# shellcheck shell=bash

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
PY="$VENV/bin/python"
TOOLS="$ROOT/.tools"
# Reflex 0.10.1 needs bun >= 1.4.4; it comes from the npm registry, not bun's own site.
BUN_SPEC="${BUN_SPEC:-bun@1.4.5}"

log() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

find_python() {
    local candidate
    for candidate in "${PYTHON:-}" python3.11 python3; do
        [[ -n "$candidate" ]] || continue
        command -v "$candidate" >/dev/null 2>&1 || continue
        if "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
            echo "$candidate"
            return 0
        fi
    done
    die "Python 3.11 or newer is required (set PYTHON=/path/to/python3.11)"
}

ensure_venv() {
    if [[ ! -x "$PY" ]]; then
        local python
        python="$(find_python)"
        log "creating .venv with $("$python" --version)"
        "$python" -m venv "$VENV"
    fi
}

# ensure_requirements NAME FILE...: pip-install FILEs with constraints.txt, unless the
# stamp .venv/.stamp-NAME shows the same files (and Python) were installed before.
ensure_requirements() {
    local name="$1"
    shift
    local stamp="$VENV/.stamp-$name" digest file
    local -a args=()
    digest="$(
        {
            "$PY" -c 'import sys; print(sys.version)'
            for file in "$@" requirements.txt constraints.txt; do
                sha256sum "$ROOT/$file"
            done
        } | sha256sum | cut -d' ' -f1
    )"
    if [[ -f "$stamp" && "$(cat "$stamp")" == "$digest" ]]; then
        log "Python packages ($name) up to date"
        return 0
    fi
    for file in "$@"; do
        args+=(-r "$ROOT/$file")
    done
    log "installing Python packages ($name; a few minutes the first time)"
    "$PY" -m pip install --quiet --disable-pip-version-check "${args[@]}" -c "$ROOT/constraints.txt"
    echo "$digest" >"$stamp"
}

ensure_bun() {
    local stamp="$TOOLS/.bun-spec"
    if [[ -x "$TOOLS/node_modules/.bin/bun" && -f "$stamp" && "$(cat "$stamp")" == "$BUN_SPEC" ]]; then
        return 0
    fi
    command -v npm >/dev/null 2>&1 || die "npm is required to install bun (Node.js 20 or newer)"
    log "installing $BUN_SPEC from the npm registry into .tools"
    mkdir -p "$TOOLS"
    npm install --prefix "$TOOLS" --no-audit --no-fund --loglevel=error "$BUN_SPEC" >&2
    "$TOOLS/node_modules/.bin/bun" --version >/dev/null || die "bun was installed but does not run"
    echo "$BUN_SPEC" >"$stamp"
}

# The environment Reflex runs in: our bun, no downloads, no telemetry.
reflex_env() {
    export PATH="$TOOLS/node_modules/.bin:$VENV/bin:$PATH"
    export REFLEX_USE_SYSTEM_BUN=1
    export REFLEX_TELEMETRY_ENABLED=false
    export REFLEX_CHECK_LATEST_VERSION=false
    export DO_NOT_TRACK=1
    # No prerendering of pages at build time: every page is behind a sign-in, so the static HTML
    # buys nothing, and each page's render had a fixed 10 s limit that a busy machine exceeded
    # ("Prerender: Request failed for /: The operation timed out"), failing the build.
    export REFLEX_SSR="${REFLEX_SSR:-false}"
    # The web tier runs under gunicorn + uvicorn (web_server_env below), not granian (issue 44,
    # bench/tab_cost.py, docs/benchmarks.md): in one run, 141 KB of server memory per idle tab against
    # granian's 246 KB (granian's websocket keeps tungstenite's 128 KiB read buffer per socket, with no
    # setting), and no more CPU per watching tab (3.9 / 4.5 ms at 50 / 200 tabs against 4.2 / 5.1 ms)
    # or per decision (three runs: -9 %, +5 %, -1 %). REFLEX_USE_GRANIAN=true still serves with granian.
    export REFLEX_USE_GRANIAN="${REFLEX_USE_GRANIAN:-false}"
    # Otherwise Reflex times the npm registry against a mirror (3 probes each) on first init.
    if [[ -z "${NPM_CONFIG_REGISTRY:-}" ]]; then
        NPM_CONFIG_REGISTRY="$(npm config get registry 2>/dev/null || true)"
        export NPM_CONFIG_REGISTRY="${NPM_CONFIG_REGISTRY:-https://registry.npmjs.org/}"
    fi
}

# How Reflex prod starts the web workers (scripts/serve.sh, right before it runs Reflex): Reflex runs
# `gunicorn --preload --worker-class uvicorn.workers.UvicornH11Worker` and adds GUNICORN_CMD_ARGS, whose
# options win. Ours: hitl_dashboard/web_worker.py's worker (websockets by wsproto without
# permessage-deflate, about 100 KB a tab otherwise; X-Forwarded-* left to the app), GRANIAN_WORKERS (or
# WEB_WORKERS) workers, by default Reflex's own count (1; with REDIS_URL 2 x CPUs + 1, at most 8),
# and a 120 s worker timeout (gunicorn restarts a worker whose event loop has not ticked for that long;
# its 30 s default is within reach of a busy machine). GUNICORN_CMD_ARGS of the caller come after.
web_server_env() {
    local workers="${GRANIAN_WORKERS:-${WEB_WORKERS:-}}"  # the order settings.py reads them in
    if [[ -z "$workers" ]]; then
        workers=1
        if [[ -n "${REDIS_URL:-}" ]]; then
            workers=$(($(nproc) * 2 + 1))
            ((workers <= 8)) || workers=8
        fi
    fi
    export GUNICORN_CMD_ARGS="--worker-class hitl_dashboard.web_worker.WebWorker --workers $workers --timeout 120${GUNICORN_CMD_ARGS:+ $GUNICORN_CMD_ARGS}"
}

bootstrap() {
    cd "$ROOT"
    ensure_venv
    if [[ "${1:-}" == "dev" ]]; then
        ensure_requirements dev requirements-dev.txt
    else
        ensure_requirements runtime requirements.txt
    fi
    ensure_bun
    reflex_env
}
