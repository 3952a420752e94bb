#!/usr/bin/env bash
# Set up referee on a fresh machine: a venv with referee installed (EXTRAS, e.g. "[test]", adds extras)
# and a Chromium for browser checks (Debian's package when root on Debian; Playwright's elsewhere).
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
VENV="${VENV:-.venv}"
EXTRAS="${EXTRAS:-}"

if [ ! -x "$VENV/bin/python" ]; then
    "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --quiet --upgrade pip
"$VENV/bin/python" -m pip install --quiet -e ".$EXTRAS"

have_chromium() {
    command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 \
        || command -v google-chrome >/dev/null 2>&1 || [ -n "${REFEREE_CHROMIUM:-}" ]
}

if ! have_chromium; then
    if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
        echo "installing Debian's chromium for browser checks" >&2
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-liberation >/dev/null
    else
        echo "installing Playwright's chromium for browser checks" >&2
        "$VENV/bin/python" -m playwright install chromium || echo "no Chromium: browser checks will be unscored" >&2
    fi
fi

# --- referee's own tests: a Vite dev server for browser checks (issue 17) ---------------------
# Kept in a block of its own. With the test extras, Vite is installed once from npm into
# .cache/node; the browser tests (tests/viteapp.py) build small apps in tmp_path and
# serve them with it, so nothing is downloaded per test.
TEST_NODE=".cache/node"
if [[ "$EXTRAS" == *test* ]] && [ ! -f "$TEST_NODE/node_modules/vite/bin/vite.js" ]; then
    if ! command -v npm >/dev/null 2>&1 && [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
        echo "installing Debian's nodejs and npm for the Vite tests" >&2
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
    fi
    if command -v npm >/dev/null 2>&1; then
        # Vite 8 needs Node >= 20.19; an older Node (Debian 12's own is 18) gets Vite 5, which
        # serves the same test apps.
        modern="$(node -p 'const [a, b] = process.versions.node.split(".").map(Number); a > 20 || (a === 20 && b >= 19)' 2>/dev/null || echo false)"
        vite="vite@8.4.0"
        [ "$modern" = "true" ] || vite="vite@5.4.21"
        echo "installing $vite into $TEST_NODE for the browser tests" >&2
        mkdir -p "$TEST_NODE"
        npm install --prefix "$TEST_NODE" --no-save --no-audit --no-fund --loglevel=error "$vite" >&2
    else
        echo "no npm: the Vite browser tests cannot run" >&2
    fi
fi
