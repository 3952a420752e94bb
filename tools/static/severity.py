"""Severity of a static finding, decided at report time (the cache holds measures, not severities).

- hardcoded_secrets: CRITICAL; in test files and fixtures, where fake credentials are the rule
  (`password: "peanuts"`, the jwt.io sample token), LOW unless the secret has a live provider
  credential's shape (a GitHub, AWS, Slack … token format), then HIGH: a leak worth fixing.
- function_length, cognitive_complexity: HIGH beyond twice the limit, else MEDIUM.
- file_length, nesting_depth, near_duplicates: MEDIUM.
- test_existence: MEDIUM (completeness: a change without a test is worth a revision).
- todo_density: LOW (noted, never blocking).
"""

from __future__ import annotations

from referee.tools.static.model import CRITICAL, HIGH, LOW, MEDIUM, StaticConfig
from referee.tools.static.paths import is_test_path
from referee.tools.static.secrets import LIVE


def severity_of(rule: str, value: int, path: str, config: StaticConfig) -> str:
    """The severity of a finding of `rule` with measure `value` at `path`."""
    if rule == "hardcoded_secrets":
        if not is_test_path(path):
            return CRITICAL
        return HIGH if value == LIVE else LOW
    if rule == "function_length":
        return HIGH if value > 2 * config.max_function_lines else MEDIUM
    if rule == "cognitive_complexity":
        return HIGH if value > 2 * config.max_cognitive else MEDIUM
    if rule == "todo_density":
        return LOW
    return MEDIUM
