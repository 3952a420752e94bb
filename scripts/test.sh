#!/usr/bin/env bash
# Set up referee with its test extras (and a Chromium for the browser tests), then run every test.
# The tests run on one worker per core and one more (pytest-xdist; REFEREE_TEST_WORKERS=0 runs
# them in this process): most of their time is spent waiting on the child processes they drive
# (a runner starting, a check's timeout running out), so a third worker on two cores keeps them
# busy.
set -euo pipefail
cd "$(dirname "$0")/.."
EXTRAS="[test]" scripts/setup.sh
workers="${REFEREE_TEST_WORKERS:-$(($(nproc) + 1))}"
exec "${VENV:-.venv}/bin/python" -m pytest -q -n "$workers" --dist worksteal "$@"
