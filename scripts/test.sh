#!/usr/bin/env bash
# Set up referee and run every test, on a fresh machine: a venv, the package with its test extras,
# a Chromium for the browser tests (Debian's package when root on Debian; Playwright's elsewhere).
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
VENV="${VENV:-.venv}"

if [ ! -x "$VENV/bin/python" ]; then
    "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --quiet --upgrade pip
"$VENV/bin/python" -m pip install --quiet -e ".[test]"

have_chromium() {
    command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 \
        || command -v google-chrome >/dev/null 2>&1 || [ -n "${REFEREE_CHROMIUM:-}" ]
}

if ! have_chromium; then
    if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
        echo "installing Debian's chromium for the browser tests" >&2
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-liberation >/dev/null
    else
        echo "installing Playwright's chromium for the browser tests" >&2
        "$VENV/bin/python" -m playwright install chromium || echo "no Chromium: browser tests will be skipped" >&2
    fi
fi

exec "$VENV/bin/python" -m pytest -q "$@"
