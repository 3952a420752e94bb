#!/usr/bin/env bash
# Set up referee with its test extras (and a Chromium for the browser tests), then run every test.
# The tests run on one worker per core (pytest-xdist; REFEREE_TEST_WORKERS=0 runs them in this
# process): most of their time is spent waiting on the child processes they drive.
set -euo pipefail
cd "$(dirname "$0")/.."
EXTRAS="[test]" scripts/setup.sh
exec "${VENV:-.venv}/bin/python" -m pytest -q -n "${REFEREE_TEST_WORKERS:-auto}" --dist worksteal "$@"
