#!/usr/bin/env bash
# `make bench`: every benchmark in bench/ (files starting with "_" are helpers), one after the
# other, each with --quick (under 10 minutes in all on 2 cores) unless FULL=1.
# PostgreSQL benchmarks use the server at BENCH_PG_ADMIN_URL (default postgres@127.0.0.1:5432),
# started by scripts/services.sh as for the tests. Each benchmark seeds and removes its own
# temporary databases.
# Env: FULL=1 (full sizes), BENCH="queue_queries decision_latency" (only these).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$ROOT"
ensure_venv
ensure_requirements dev requirements-dev.txt
"$ROOT/scripts/services.sh"

mode=(--quick)
[[ "${FULL:-0}" == "1" ]] && mode=()
status=0
for script in bench/*.py; do
    name="$(basename "$script" .py)"
    [[ "$name" == _* ]] && continue
    if [[ -n "${BENCH:-}" && " $BENCH " != *" $name "* ]]; then
        continue
    fi
    log "bench/$name.py ${mode[*]:-(full)}"
    "$PY" "$script" "${mode[@]}" || { status=1; printf 'bench/%s.py failed\n' "$name" >&2; }
done
exit "$status"
