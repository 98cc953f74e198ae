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
    # The web tier runs under granian, not gunicorn + uvicorn, even if gunicorn gets installed (Reflex
    # picks uvicorn then). Memory per open tab (bench/tab_cost.py, issue 33): granian never negotiates
    # permessage-deflate (no Sec-WebSocket-Extensions in its 101, measured with a browser's offer),
    # where uvicorn accepts it by default, and a deflate context per socket measured +99 KB a
    # connection (uvicorn/wsproto: 117 KB with it, 18 KB without). granian's own cost per socket
    # (about 150 KB: tungstenite's 128 KiB read buffer, allocated and zeroed per socket) has no
    # setting in granian 2.8; docs/benchmarks.md has the figures.
    export REFLEX_USE_GRANIAN="${REFLEX_USE_GRANIAN:-true}"
    # Otherwise Reflex times the npm registry against a mirror (3 probes each) on first init.
    if [[ -z "${NPM_CONFIG_REGISTRY:-}" ]]; then
        NPM_CONFIG_REGISTRY="$(npm config get registry 2>/dev/null || true)"
        export NPM_CONFIG_REGISTRY="${NPM_CONFIG_REGISTRY:-https://registry.npmjs.org/}"
    fi
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
