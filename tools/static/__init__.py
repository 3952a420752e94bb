"""The static pipeline: eight checks run by real analysers, cached by git blob SHA.

Checks and the libraries behind them:
- file_length (> 800 lines), todo_density (> 5 TODO/FIXME/XXX/HACK comments per file): plain text;
- function_length (> 50 lines), nesting_depth (> 4 levels): tree-sitter, for Python, JS/TS/TSX,
  Go, Java, Rust, C and C++;
- cognitive_complexity (> 15 per function): complexipy for Python, the same tree-sitter walk for
  the other languages;
- hardcoded_secrets (any): betterleaks; messages carry the rule id, never the value;
- near_duplicates (> 6 similar lines): jscpd `--min-lines 7`;
- test_existence: a path heuristic (see `testexist`).

Severities (see `severity`): secrets CRITICAL, HIGH in test files and fixtures; function length
and cognitive complexity HIGH beyond twice the limit, else MEDIUM; file length, nesting and
duplicates MEDIUM; a missing test MEDIUM; TODO density LOW.

Files over 1 MB, binary files and minified files are not analysed by the code rules (source files
among them are noted in the report's errors), nor is anything under `.referee/`; every file is
scanned for secrets, whatever its encoding, size or place (see `secret_text`: a file past its
limit is noted). A file that does not parse is noted in the errors, never fatal.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from referee.tools.static.files import list_files
    from referee.tools.static.model import CHECKS_VERSION, StaticConfig, StaticFinding, StaticReport
    from referee.tools.static.pipeline import run_pipeline
    from referee.tools.static.sarif import findings_to_models, to_sarif

# Exports load on first use, so a worker process (which imports only `analyse`) skips pydantic.
_EXPORTS = {
    "CHECKS_VERSION": ".model",
    "StaticConfig": ".model",
    "StaticFinding": ".model",
    "StaticReport": ".model",
    "findings_to_models": ".sarif",
    "list_files": ".files",
    "run_pipeline": ".pipeline",
    "to_sarif": ".sarif",
}

__all__ = [
    "CHECKS_VERSION",
    "StaticConfig",
    "StaticFinding",
    "StaticReport",
    "findings_to_models",
    "list_files",
    "run_pipeline",
    "to_sarif",
]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
