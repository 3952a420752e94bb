"""A repository's gitleaks (or betterleaks) allowlists, honoured by the secret check.

Read from `.gitleaks.toml` or `.betterleaks.toml` at the repository root: the global `[allowlist]`,
the `[[allowlists]]` tables (with `targetRules`, `condition`, `regexTarget`), and the allowlists of
`[[rules]]` entries, which apply to that rule id. Rules themselves are never taken from the file:
a repository can allow what its authors know is harmless, not switch the check off.

The cache holds no secret values, so a flagged line is scanned again on its own to learn what it
holds; a finding is dropped when every secret on its line is allowed. Lines marked
`gitleaks:allow` never become findings in the first place (see `secrets`).

The file is the repository's, so its patterns are untrusted: they are compiled by RE2, the
linear-time engine whose syntax is Go's (gitleaks' own), so no pattern can stall the pipeline with
catastrophic backtracking; one RE2 refuses (a backreference, a lookaround) is noted and ignored.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import betterleaks
import re2

from referee.tools.evidence.shapes import find_shapes
from referee.tools.static.model import StaticFinding
from referee.tools.static.secret_text import SCAN_LIMIT, file_text

__all__ = ["CONFIG_NAMES", "Allowlist", "parse_allowlist", "read_allowlist", "without_allowed"]

CONFIG_NAMES = (".gitleaks.toml", ".betterleaks.toml")


@dataclass(frozen=True)
class _Entry:
    paths: tuple[re2._Regexp[str], ...] = ()
    regexes: tuple[re2._Regexp[str], ...] = ()
    stopwords: tuple[str, ...] = ()
    target: str = "secret"
    rules: frozenset[str] = frozenset()
    all_of: bool = False

    def allows(self, rule: str | None, path: str, secret: str, match: str, line: str) -> bool:
        if self.rules and rule not in self.rules:
            return False
        text = {"match": match, "line": line}.get(self.target, secret)
        checks = [
            [any(p.search(path) for p in self.paths)] if self.paths else [],
            [any(r.search(text) for r in self.regexes)] if self.regexes else [],
            [any(w in secret.lower() for w in self.stopwords)] if self.stopwords else [],
        ]
        results = [c[0] for c in checks if c]
        if not results:
            return False
        return all(results) if self.all_of else any(results)


@dataclass(frozen=True)
class Allowlist:
    entries: tuple[_Entry, ...] = ()
    problems: tuple[str, ...] = field(default_factory=tuple)

    def allows(self, rule: str | None, path: str, secret: str, match: str, line: str) -> bool:
        return any(e.allows(rule, path, secret, match, line) for e in self.entries)


def read_allowlist(repo: Path) -> Allowlist:
    """The allowlists of the repository's gitleaks/betterleaks configuration (empty without one)."""
    for name in CONFIG_NAMES:
        try:
            text = (repo / name).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        return parse_allowlist(text, name)
    return Allowlist()


def parse_allowlist(text: str, name: str = CONFIG_NAMES[0]) -> Allowlist:
    """Parse a configuration's allowlists; what cannot be read is a problem, never fatal."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return Allowlist(problems=(f"{name}: not valid TOML ({exc}); its allowlists are ignored",))
    problems: list[str] = []
    tables: list[tuple[dict[str, Any], frozenset[str]]] = []
    tables += [(t, frozenset()) for t in _tables(data.get("allowlist"))]
    tables += [(t, frozenset()) for t in _tables(data.get("allowlists"))]
    for rule in _tables(data.get("rules")):
        rule_id = rule.get("id")
        if isinstance(rule_id, str):
            own = [*_tables(rule.get("allowlist")), *_tables(rule.get("allowlists"))]
            tables += [(t, frozenset({rule_id})) for t in own]
    entries = tuple(_entry(t, rules, name, problems) for t, rules in tables)
    return Allowlist(entries=entries, problems=tuple(problems))


def _tables(value: Any) -> list[dict[str, Any]]:
    if isinstance(value, dict):
        return [value]
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _entry(table: dict[str, Any], rules: frozenset[str], name: str, problems: list[str]) -> _Entry:
    targets = table.get("targetRules")
    if isinstance(targets, list):
        rules = rules | {t for t in targets if isinstance(t, str)}
    return _Entry(
        paths=_patterns(table.get("paths"), name, problems),
        regexes=_patterns(table.get("regexes"), name, problems),
        stopwords=tuple(w.lower() for w in _strings(table.get("stopwords"))),
        target=str(table.get("regexTarget") or "secret"),
        rules=rules,
        all_of=str(table.get("condition", "OR")).upper() == "AND",
    )


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _patterns(value: Any, name: str, problems: list[str]) -> tuple[re2._Regexp[str], ...]:
    compiled = []
    for text in _strings(value):
        try:
            compiled.append(re2.compile(text, options=_RE2))
        except re2.error as exc:
            reason = exc.args[0].decode("utf-8", "replace") if exc.args else "invalid"
            problems.append(f"{name}: allowlist pattern {text!r} ignored ({reason})")
    return tuple(compiled)


def _re2_options() -> re2.Options:
    options = re2.Options()
    options.log_errors = False  # a refused pattern is a noted problem, not a line on stderr
    return options


_RE2 = _re2_options()


def without_allowed(
    repo: Path, findings: Sequence[StaticFinding], allowlist: Allowlist
) -> list[StaticFinding]:
    """The findings, less the secrets the allowlist allows."""
    if not allowlist.entries:
        return list(findings)
    lines: dict[str, list[str]] = {}
    kept = []
    for finding in findings:
        if finding.rule != "hardcoded_secrets":
            kept.append(finding)
            continue
        if finding.path not in lines:
            lines[finding.path] = _lines(repo / finding.path)
        text = _line(lines[finding.path], finding.line)
        if not _allowed(allowlist, finding.path, text):
            kept.append(finding)
    return kept


def _allowed(allowlist: Allowlist, path: str, line: str) -> bool:
    secrets = list(_secrets_on(line))
    if not secrets:  # a secret spanning lines (a PEM key): only what needs no value can allow it
        return allowlist.allows(None, path, "", "", line)
    return all(allowlist.allows(rule, path, value, match, line) for rule, value, match in secrets)


def _secrets_on(line: str) -> Iterable[tuple[str, str, str]]:
    try:
        for f in betterleaks.scan_string(line):
            yield f.rule_id, f.match.value, f.match.full
    except betterleaks.BetterleaksError:
        return
    for shape in find_shapes(line):
        yield shape.rule, shape.value, shape.value


def _lines(path: Path) -> list[str]:
    """The file's lines as the secret scan read them (UTF-16, binary: see `secret_text`)."""
    try:
        with path.open("rb") as handle:
            return file_text(handle.read(SCAN_LIMIT)).splitlines()
    except OSError:
        return []


def _line(lines: list[str], number: int) -> str:
    return lines[number - 1] if 0 < number <= len(lines) else ""
