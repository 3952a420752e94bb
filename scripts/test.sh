#!/usr/bin/env bash
# Set up referee with its test extras (and a Chromium for the browser tests), then run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
EXTRAS="[test]" scripts/setup.sh
exec "${VENV:-.venv}/bin/python" -m pytest -q "$@"
