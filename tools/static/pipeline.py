"""`run_pipeline`: the eight static checks over a list of files.

Order of work, so that the analysers overlap: resolve blob SHAs (git index, hashing only dirty
files); reuse the whole stored report if nothing it depends on changed (see `memo`); else start
jscpd as a subprocess unless its result for this exact file list is cached, run the per-file
analysers (cache first, then in-process or in worker processes), collect jscpd last, and
recompute the cheap cross-file test-existence check.
"""

from __future__ import annotations

import hashlib
import os
import stat
import time
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from referee.tools.errors import InvalidInput, Problem
from referee.tools.models.checks import STATIC_RULES, normalize_rule
from referee.tools.static.allowlist import Allowlist, read_allowlist, without_allowed
from referee.tools.static.analyse import PER_FILE_RULES, SECRET_RULES
from referee.tools.static.cache import ResultCache
from referee.tools.static.duplicates import Clone, JscpdRun, duplicate_items
from referee.tools.static.exclude import select
from referee.tools.static.files import blob_shas
from referee.tools.static.memo import MEMO, memo_key, report_from_data, report_to_data
from referee.tools.static.model import (
    SEVERITY_RANK,
    Item,
    StaticConfig,
    StaticFinding,
    StaticReport,
)
from referee.tools.static.paths import language_of
from referee.tools.static.perfile import PerFile, run_per_file
from referee.tools.static.severity import severity_of
from referee.tools.static.testexist import missing_test_items

_DUPLICATES = "duplicates"


DEFAULT_CONFIG = StaticConfig()


def run_pipeline(
    repo: Path,
    files: Sequence[str],
    *,
    cache_path: Path | None,
    config: StaticConfig = DEFAULT_CONFIG,
    rules: Collection[str] | None = None,
    changed: Collection[str] | None = None,
    all_files: Sequence[str] | None = None,
    allowlist: Allowlist | None = None,
    written: Collection[str] = (),
) -> StaticReport:
    """Run the selected static rules over `files` (synchronous; call it from a worker thread).

    Args:
        repo: Repository root; `files` are relative posix paths inside it.
        files: The files to check (see `list_files`).
        cache_path: SQLite file of the result cache (created if missing); None disables caching.
        config: Thresholds.
        rules: Rule names from `STATIC_RULES` (aliases accepted); None runs all of them.
        changed: Files that must have a test (default: `files`).
        all_files: The project's files, where tests and duplicates' other sides are looked for
            (default: `files`).
        allowlist: The secrets allowlist to honour; None reads the repository's
            `.gitleaks.toml` / `.betterleaks.toml`.
        written: The files a change wrote: analysed whatever banner or shape they give
            themselves (a generated or minified file elsewhere is left alone).

    Returns:
        Findings (most severe first), counts, per-rule totals and non-fatal errors.

    Raises:
        InvalidInput: An unknown rule name.
    """
    started = time.perf_counter()
    repo = Path(repo)
    selected = _select(rules)
    given = list(dict.fromkeys(files))
    listed = list(dict.fromkeys([*all_files, *given])) if all_files is not None else given
    selection = select(repo, listed)
    kept = set(selection.kept)
    targets = [f for f in given if f in kept]
    project = [f for f in listed if f in kept]
    tested = targets if changed is None else [f for f in dict.fromkeys(changed) if f in kept]
    # Secrets are never noise: a file the other rules leave alone as not hand-written (vendored,
    # build output, ignored) is still where a key can be hidden, so it is scanned for them.
    unread = [f for f in given if f not in kept] if selected >= SECRET_RULES else []
    cache = ResultCache(cache_path, config.key())
    try:
        report = _run(repo, targets, project, selected, config, cache, tested, list(written))
        if unread:
            _add(report, _run(repo, unread, unread, SECRET_RULES, config, cache, []))
    finally:
        cache.close()
    report.excluded = _merged(selection.counts(given), report.excluded)
    allowed = read_allowlist(repo) if allowlist is None else allowlist
    _honour(repo, report, allowed)
    report.errors = sorted({*report.errors, *cache.errors, *allowed.problems})
    report.duration_s = round(time.perf_counter() - started, 4)
    return report


def _add(report: StaticReport, secrets: StaticReport) -> None:
    """Merge the secret findings of the files the other rules do not read."""
    found = secrets.findings
    report.findings = sorted(
        [*report.findings, *found],
        key=lambda f: (SEVERITY_RANK[f.severity], f.path, f.line, f.rule),
    )
    if found:
        report.by_rule["hardcoded_secrets"] = report.by_rule.get("hardcoded_secrets", 0) + len(
            found
        )
    report.errors = [*report.errors, *secrets.errors]


def _honour(repo: Path, report: StaticReport, allowlist: Allowlist) -> None:
    """Drop the secrets the repository's allowlist allows (after the memo: the allowlist is not
    part of its key)."""
    kept = without_allowed(repo, report.findings, allowlist)
    if len(kept) == len(report.findings):
        return
    report.findings = kept
    if "hardcoded_secrets" in report.by_rule:
        report.by_rule["hardcoded_secrets"] = sum(f.rule == "hardcoded_secrets" for f in kept)


def _merged(*counts: dict[str, int]) -> dict[str, int]:
    total: dict[str, int] = {}
    for part in counts:
        for reason, n in part.items():
            total[reason] = total.get(reason, 0) + n
    return dict(sorted(total.items()))


def _select(rules: Collection[str] | None) -> frozenset[str]:
    if rules is None:
        return frozenset(STATIC_RULES)
    names = {normalize_rule(r) for r in rules}
    unknown = sorted(names - set(STATIC_RULES))
    if unknown:
        message = f"unknown static rules {unknown}; use some of {list(STATIC_RULES)}"
        raise InvalidInput([Problem(path="/rules", code="unknown_rule", message=message)])
    return frozenset(names)


def _run(
    repo: Path,
    files: list[str],
    project: list[str],
    rules: frozenset[str],
    config: StaticConfig,
    cache: ResultCache,
    changed: list[str],
    written: Sequence[str] = (),
) -> StaticReport:
    sizes, notes = _sizes(repo, files, config, secrets="hardcoded_secrets" in rules)
    wants_duplicates = "near_duplicates" in rules and any(language_of(f) for f in files)
    dup_files = (
        [f for f in project if language_of(f) and ".min." not in f] if wants_duplicates else []
    )
    rust_changed = [f for f in changed if f.endswith(".rs")]  # their content decides test existence
    shas = blob_shas(repo, sorted({*sizes, *dup_files, *rust_changed}))
    key = memo_key(rules, files, project, changed, shas) + (
        ";written=" + ",".join(sorted(written)) if written else ""
    )
    stored = cache.document(key, MEMO)
    if isinstance(stored, dict):
        return report_from_data(stored)
    run = _Analysis(
        repo, files, project, rules, config, cache, changed, shas, notes, written=written
    )
    report = run.execute(sizes, dup_files)
    if run.complete:
        cache.store_document(key, MEMO, report_to_data(report))
    return report


@dataclass
class _Analysis:
    """One uncached run: the analysers, then the findings put together."""

    repo: Path
    files: list[str]
    project: list[str]
    rules: frozenset[str]
    config: StaticConfig
    cache: ResultCache
    changed: list[str]
    shas: dict[str, str]
    errors: list[str]
    complete: bool = True
    """False when something went wrong that a later run might not meet (worker crash, jscpd
    failure)."""
    written: Sequence[str] = ()
    """What a change wrote: read through its own markers."""

    def execute(self, sizes: dict[str, int], dup_files: list[str]) -> StaticReport:
        """Run jscpd alongside the per-file analysers, then the cross-file checks."""
        dup_key, clones, jscpd = _start_duplicates(
            self.repo, dup_files, self.shas, self.config, self.cache
        )
        try:
            shas = {f: self.shas[f] for f in sizes if f in self.shas}
            per_file = run_per_file(
                self.repo, shas, sizes, self.rules & PER_FILE_RULES, self.config, self.cache
            )
            if jscpd is not None:
                clones = self._duplicates(jscpd, dup_key)
        finally:
            if jscpd is not None:
                jscpd.cancel()
        self._read_through_markers(per_file, shas, sizes)
        self.complete = self.complete and not per_file.errors and not self.cache.errors
        self.errors += per_file.errors
        located = _per_file_items(per_file, self.rules, self.errors)
        skipped = _skipped(per_file)
        if "near_duplicates" in self.rules:
            sides = [c for c in clones if c.first not in skipped and c.second not in skipped]
            located += duplicate_items(sides, set(self.files) - set(skipped))
        if "test_existence" in self.rules:
            changed = [f for f in self.changed if f not in skipped]
            located += missing_test_items(self.repo, changed, set(self.project))
        report = _report(located, self.rules, self.config, per_file, self.errors)
        report.excluded = dict(Counter(r for r in skipped.values() if r == "generated"))
        return report

    def _read_through_markers(
        self, per_file: PerFile, shas: dict[str, str], sizes: dict[str, int]
    ) -> None:
        """Analyse again, without its markers, a file the change wrote that was spared as
        generated or minified: the change can write the banner or the shape itself (`# @generated`,
        lines padded past 300 bytes), and its code is what the contract's limits are about."""
        wrote = set(self.written)
        marked = [f for f, why in _skipped(per_file).items() if f in wrote and why in _MARKED]
        if not marked:
            return
        plain = replace(self.config, markers=False)
        again = run_per_file(
            self.repo,
            {f: shas[f] for f in marked if f in shas},
            {f: sizes[f] for f in marked if f in sizes},
            self.rules & PER_FILE_RULES,
            plain,
            ResultCache(None, plain.key()),
        )
        for name in marked:
            per_file.outcomes[name] = again.outcomes.get(name, {})
        per_file.errors += again.errors

    def _duplicates(self, jscpd: JscpdRun, key: str) -> list[Clone]:
        clones = jscpd.collect()
        if jscpd.error is None:
            self.cache.store_document(key, _DUPLICATES, [list(c) for c in clones])
        else:
            self.errors.append(jscpd.error)  # a failed scan is not cached: the next run tries again
            self.complete = False
        return clones


def _sizes(
    repo: Path, files: Sequence[str], config: StaticConfig, *, secrets: bool
) -> tuple[dict[str, int], list[str]]:
    """Sizes of the regular files to analyse, and notes on files left out (a large file is still
    scanned for secrets: the code rules skip it, and say so, in `analyse`)."""
    sizes: dict[str, int] = {}
    notes: list[str] = []
    for name in files:
        if name.startswith("/") or ".." in name.split("/"):
            notes.append(f"{name}: not analysed: outside the repository")
            continue
        try:
            info = os.lstat(os.path.join(repo, name))
        except OSError:
            continue
        if not stat.S_ISREG(info.st_mode):
            continue  # symlinks could lead out of the repository
        if info.st_size <= config.max_file_bytes or secrets:
            sizes[name] = info.st_size
        elif language_of(name):
            notes.append(f"{name}: not analysed: over {config.max_file_bytes} bytes")
    return sizes, notes


def _start_duplicates(
    repo: Path, dup_files: list[str], shas: dict[str, str], config: StaticConfig, cache: ResultCache
) -> tuple[str, list[Clone], JscpdRun | None]:
    """The cached clones of this exact file list, or a jscpd run started on it."""
    listed = sorted(f for f in dup_files if f in shas)
    digest = hashlib.sha1(usedforsecurity=False)
    for name in listed:
        digest.update(f"{name}\0{shas[name]}\n".encode("utf-8", "surrogateescape"))
    key = digest.hexdigest()
    if not listed:
        return key, [], None
    stored = cache.document(key, _DUPLICATES)
    if isinstance(stored, list):
        return key, [Clone(*row) for row in stored], None
    return key, [], JscpdRun(repo, listed, config)


# What a file says of itself: a change can write either (what it is, binary or too large, it can't).
_MARKED = frozenset({"generated", "minified"})


def _skipped(per_file: PerFile) -> dict[str, str]:
    """Files whose content was not analysed (generated, minified, binary, too large): why."""
    return {
        name: outcome.skipped
        for name, outcomes in per_file.outcomes.items()
        for outcome in outcomes.values()
        if outcome.skipped
    }


def _per_file_items(
    per_file: PerFile, rules: frozenset[str], errors: list[str]
) -> list[tuple[str, Item]]:
    located: list[tuple[str, Item]] = []
    for name, outcomes in per_file.outcomes.items():
        for outcome in outcomes.values():
            located.extend((name, item) for item in outcome.items if item.rule in rules)
            errors.extend(f"{name}: {error}" for error in outcome.errors)
    return located


def _report(
    located: list[tuple[str, Item]],
    rules: frozenset[str],
    config: StaticConfig,
    per_file: PerFile,
    errors: list[str],
) -> StaticReport:
    findings = sorted(
        (
            StaticFinding(
                i.rule,
                severity_of(i.rule, i.value, path, config),
                path,
                max(i.line, 1),
                i.message,
                i.value,
            )
            for path, i in located
        ),
        key=lambda f: (SEVERITY_RANK[f.severity], f.path, f.line, f.rule),
    )
    by_rule = {rule: 0 for rule in STATIC_RULES if rule in rules}
    for finding in findings:
        by_rule[finding.rule] += 1
    return StaticReport(
        findings=findings,
        files_analysed=per_file.analysed,
        cache_hits=per_file.hits,
        errors=sorted(set(errors)),
        by_rule=by_rule,
    )
