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

# The sandbox every check runs in (bubblewrap; util-linux's unshare and mount come with Debian).
if ! command -v bwrap >/dev/null 2>&1; then
    if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
        echo "installing bubblewrap for the sandbox" >&2
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends bubblewrap >/dev/null
    else
        echo "no bubblewrap: checks will run without a sandbox (sandbox: none); see referee doctor" >&2
    fi
fi
