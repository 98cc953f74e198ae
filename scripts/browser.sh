#!/usr/bin/env bash
# The e2e tests drive Debian's chromium (Playwright cannot download browsers here).
set -euo pipefail
# The tests run in the headless shell (the same Blink without the browser's UI: less CPU); the full
# browser is for bench/ and for E2E_CHROMIUM=/usr/bin/chromium. Both from the same Debian source.
if [[ ! -x /usr/bin/chromium || ! -x /usr/lib/chromium/chromium-headless-shell ]]; then
    echo "==> installing chromium and chromium-headless-shell with apt-get" >&2
    sudo_cmd=()
    [[ "$(id -u)" -eq 0 ]] || sudo_cmd=(sudo)
    "${sudo_cmd[@]}" apt-get update -qq
    "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -qq --no-install-recommends chromium chromium-headless-shell >/dev/null
fi
# Not `chromium --version`: Debian's launcher script prints a harmless shell error here.
echo "==> $(dpkg-query -W -f='${Package} ${Version}  ' chromium chromium-headless-shell 2>/dev/null || echo 'chromium at /usr/bin/chromium')" >&2

# axe-core (accessibility rules) for the browser tests, from the npm registry, pinned.
AXE_SPEC="axe-core@4.14.1"
TOOLS="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.tools"
if [[ ! -f "$TOOLS/node_modules/axe-core/axe.min.js" || "$(cat "$TOOLS/.axe-spec" 2>/dev/null)" != "$AXE_SPEC" ]]; then
    echo "==> installing $AXE_SPEC from the npm registry into .tools" >&2
    mkdir -p "$TOOLS"
    npm install --prefix "$TOOLS" --no-audit --no-fund --loglevel=error "$AXE_SPEC" >&2
    echo "$AXE_SPEC" >"$TOOLS/.axe-spec"
fi
