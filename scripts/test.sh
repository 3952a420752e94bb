#!/usr/bin/env bash
# Set up referee with its test extras (and a Chromium for the browser tests), then run every test.
# The tests run on two workers per core (pytest-xdist; REFEREE_TEST_WORKERS=0 runs them in this
# process): most of their time is spent waiting on the child processes they drive (a sandbox and
# a runner starting, a check's timeout running out); with one worker per core and one more, a
# whole run kept two cores busy less than half of the time.
set -euo pipefail
cd "$(dirname "$0")/.."
EXTRAS="[test]" scripts/setup.sh
workers="${REFEREE_TEST_WORKERS:-$(($(nproc) * 2))}"
exec "${VENV:-.venv}/bin/python" -m pytest -q -n "$workers" --dist worksteal "$@"
