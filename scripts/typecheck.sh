#!/usr/bin/env bash
# mypy --strict on tools/ and server/ under their import names (referee.tools, referee.server):
# the repository shows the design card's folders, so mypy reads them through a tree of links.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
mkdir "$tree/referee"
: > "$tree/referee/__init__.py"
for part in tools server schemas rubrics; do
    ln -s "$root/$part" "$tree/referee/$part"
done
cd "$tree"
exec "${VENV:-$root/.venv}/bin/python" -m mypy --config-file "$root/pyproject.toml" -p referee.tools -p referee.server "$@"
