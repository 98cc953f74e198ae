#!/usr/bin/env bash
# Create .venv, install the Python packages (skipped when unchanged) and bun.
# Usage: scripts/bootstrap.sh [dev]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bootstrap "${1:-}"
