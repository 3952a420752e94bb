#!/usr/bin/env bash
# Refuse a commit that adds or changes an invalid scorecard.
#
# Install as a plain git hook:
#   cp examples/ci/pre-commit-hook.sh .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit
# or with the pre-commit framework (.pre-commit-config.yaml):
#   repos:
#     - repo: local
#       hooks:
#         - id: referee-validate
#           name: referee validate scorecards
#           entry: examples/ci/pre-commit-hook.sh
#           language: script
#           files: ^\.referee/scorecards/.*\.json$
#           pass_filenames: false
#
# The contract is $REFEREE_CONTRACT, else the newest exported contract in .referee/contracts/.
# The hook is a lint: it checks schema, contract and arithmetic only (it points referee at an empty
# store, so no database is read or written and the evidence rules are skipped). The gate that
# re-runs the checks and holds the cards to them is `referee ci`, in CI.
set -euo pipefail

mapfile -d '' files < <(git diff --cached --name-only -z --diff-filter=ACM -- '.referee/scorecards/*.json')
if [ "${#files[@]}" -eq 0 ]; then
  exit 0
fi

contract="${REFEREE_CONTRACT:-$(ls -t .referee/contracts/*.yaml 2>/dev/null | head -n 1 || true)}"
if [ -z "$contract" ]; then
  echo "referee: no contract found; export one with 'referee contract export ID -o .referee/contracts/ID.yaml'" >&2
  echo "         or set REFEREE_CONTRACT" >&2
  exit 1
fi

empty_home="$(mktemp -d)"
trap 'rm -rf "$empty_home"' EXIT

status=0
referee --home "$empty_home" validate --no-store --contract "$contract" "${files[@]}" || status=$?
case "$status" in
  0) ;;
  1) echo "referee: fix the scorecard problems above, then stage the files again" >&2 ;;
  *) echo "referee: could not validate (usage error $status)" >&2 ;;
esac
exit "$status"
