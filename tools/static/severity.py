"""Severity of a static finding, decided at report time (the cache holds measures, not severities).

- hardcoded_secrets: CRITICAL; HIGH in test files and fixtures, where fake keys are common but a
  real one is still a leak worth fixing before merge.
- function_length, cognitive_complexity: HIGH beyond twice the limit, else MEDIUM.
- file_length, nesting_depth, near_duplicates: MEDIUM.
- test_existence: MEDIUM (completeness: a change without a test is worth a revision).
- todo_density: LOW (noted, never blocking).
"""

from __future__ import annotations

from referee.tools.static.model import CRITICAL, HIGH, LOW, MEDIUM, StaticConfig
from referee.tools.static.paths import is_test_path


def severity_of(rule: str, value: int, path: str, config: StaticConfig) -> str:
    """The severity of a finding of `rule` with measure `value` at `path`."""
    if rule == "hardcoded_secrets":
        return HIGH if is_test_path(path) else CRITICAL
    if rule == "function_length":
        return HIGH if value > 2 * config.max_function_lines else MEDIUM
    if rule == "cognitive_complexity":
        return HIGH if value > 2 * config.max_cognitive else MEDIUM
    if rule == "todo_density":
        return LOW
    return MEDIUM
