"""Running the static pipeline inside an evaluation and recording it as evidence."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio

from referee.tools.create_contract.config import allowlist_at
from referee.tools.graders.base import GradeContext, StaticRun
from referee.tools.graders.static import matches
from referee.tools.models.checks import STATIC_RULES, StaticCheck
from referee.tools.repo import (
    GitError,
    blobs_at,
    changed_lines,
    is_git_repo,
    list_files,
    store_dir_changes,
    tree_files,
)
from referee.tools.static import StaticFinding, StaticReport, run_pipeline
from referee.tools.static.allowlist import Allowlist, parse_allowlist
from referee.tools.static.baseline import split_findings
from referee.tools.static.pipeline import DEFAULT_CONFIG
from referee.tools.static.secrets import marked_secret_items
from referee.tools.static.severity import severity_of
from referee.tools.static.symbols import Symbols
from referee.tools.text import agrees, counted, shown

CACHE_FILE = "static-cache.db"


async def run_static(ctx: GradeContext, scope: str, home: Path) -> StaticRun:
    """Analyse the scope's files in a worker thread; findings become one evidence item.

    At task scope with a base, only the change's own findings stay in the report; the others are
    the run's `baseline`.
    """
    files, everything = await anyio.to_thread.run_sync(_listed, ctx, scope)
    baseline: list[StaticFinding] = []
    compared = scope == "task" and ctx.base and ctx.tree and not ctx.tree.startswith("dir:")
    # What the change wrote: read through its own markers (a generated banner it wrote itself).
    wrote = set(ctx.scope_files) if compared else set()
    try:
        # The allowlist is the contract's (or the base's): a change cannot allowlist its secret.
        allowlist = await anyio.to_thread.run_sync(_allowlist, ctx)
        report = await anyio.to_thread.run_sync(
            _pipeline,
            ctx.workdir,
            files,
            everything,
            home / CACHE_FILE,
            allowlist,
            [f for f in files if f in wrote],
        )
        if compared:
            report, baseline = await anyio.to_thread.run_sync(
                _without_baseline, ctx, report, home / CACHE_FILE, allowlist
            )
            report = await _with_marked_secrets(ctx, report)
    except (OSError, RuntimeError, ValueError, GitError) as exc:
        item = ctx.recorder.record(
            tool="static",
            summary=f"static pipeline failed: {exc}",
            exit_code=None,
            command="referee static pipeline",
        )
        return StaticRun(report=None, error=str(exc), evidence_ids=[item.id])
    item = ctx.recorder.record(
        tool="static",
        command=f"referee static pipeline ({scope} scope, {len(files)} files)",
        stdout=findings_text(report, baseline),
        exit_code=0 if not report.findings else 1,
        duration_s=round(report.duration_s, 3),
        summary=_summary(report, baseline),
        details={**_details(report), **({"baseline": len(baseline)} if baseline else {})},
    )
    return StaticRun(report=report, evidence_ids=[item.id], baseline=baseline)


def _listed(ctx: GradeContext, scope: str) -> tuple[list[str], list[str]]:
    """The files to analyse and every file of the tree (read with git: in a worker thread)."""
    scoped = [*ctx.scope_files, *_store_dir_files(ctx, scope)]
    everything = list_files(ctx.workdir) if is_git_repo(ctx.workdir) else _tree_files(ctx, scoped)
    return _with_criterion_paths(ctx, scoped, everything), everything


def _tree_files(ctx: GradeContext, scoped: list[str]) -> list[str]:
    """A commit written out into a folder (`ref`, a canary) has no git of its own: its files are
    the evaluated tree's, so a test beside the change is found as it is in the working tree."""
    if ctx.tree and not ctx.tree.startswith("dir:") and is_git_repo(ctx.repo):
        return tree_files(ctx.repo, ctx.tree)
    return scoped


def _with_criterion_paths(ctx: GradeContext, files: list[str], everything: list[str]) -> list[str]:
    """The scope's files and every file a static criterion names in its `paths`: a criterion over
    `report.py` reads `report.py`, changed or not (at task scope its old findings are baseline)."""
    named = [
        c.check.paths
        for c in ctx.contract.all_criteria()
        if isinstance(c.check, StaticCheck) and any(not p.startswith("!") for p in c.check.paths)
    ]
    if not named:
        return files
    extra = [f for f in everything if any(matches(f, paths) for paths in named)]
    return list(dict.fromkeys([*files, *(f for f in extra if (ctx.workdir / f).is_file())]))


def _store_dir_files(ctx: GradeContext, scope: str) -> list[str]:
    """What the change put into `.referee/` (outside the evaluated tree): scanned for secrets
    alone, as the pipeline does for every file it leaves to no other rule (exclude.py)."""
    if scope != "task" or not is_git_repo(ctx.workdir):
        return []
    return [p for p in store_dir_changes(ctx.workdir, ctx.base) if p not in ctx.scope_files]


def _pipeline(
    workdir: Path,
    files: list[str],
    everything: list[str],
    cache: Path,
    allowlist: Allowlist | None,
    written: list[str],
) -> StaticReport:
    return run_pipeline(
        workdir,
        files,
        cache_path=cache,
        changed=files,
        all_files=everything,
        allowlist=allowlist,
        written=written,
    )


def _allowlist(ctx: GradeContext) -> Allowlist:
    """The allowlist stored with the contract; for a contract stored without one, the base's
    file; never the working tree's (the generator's to write)."""
    if ctx.config is not None:
        stored = ctx.config.allowlist
        return parse_allowlist(stored.text, stored.name) if stored else Allowlist()
    if not ctx.base or not is_git_repo(ctx.repo):
        return Allowlist()
    committed = allowlist_at(ctx.repo, ctx.base)
    return parse_allowlist(committed.text, committed.name) if committed else Allowlist()


def _without_baseline(
    ctx: GradeContext, report: StaticReport, cache: Path, allowlist: Allowlist | None
) -> tuple[StaticReport, list[StaticFinding]]:
    """The report with only the change's own findings, and the findings that predate it."""
    assert ctx.base is not None and ctx.tree is not None  # checked by the caller
    flagged = sorted({f.path for f in report.findings})
    if not flagged:
        return report, []
    changed = changed_lines(ctx.repo, ctx.base, ctx.tree)
    before = blobs_at(ctx.repo, ctx.base, [p for p in flagged if changed.get(p) is not None])
    base_findings = _base_findings(ctx.scratch / "static-base", before, cache, allowlist)
    now_symbols: dict[str, Symbols] = {}
    base_symbols = {path: Symbols(path, data) for path, data in before.items()}

    def symbol_now(path: str, line: int) -> str:
        if path not in now_symbols:
            now_symbols[path] = Symbols(path, _read(ctx.workdir / path))
        return now_symbols[path].at(line)

    def symbol_base(path: str, line: int) -> str:
        found = base_symbols.get(path)
        return found.at(line) if found else ""

    split = split_findings(report.findings, base_findings, changed, symbol_now, symbol_base)
    by_rule = {rule: 0 for rule in report.by_rule}
    for finding in split.new:
        by_rule[finding.rule] = by_rule.get(finding.rule, 0) + 1
    return replace(report, findings=split.new, by_rule=by_rule), split.baseline


def _base_findings(
    folder: Path, files: dict[str, bytes], cache: Path, allowlist: Allowlist | None
) -> list[StaticFinding]:
    """The per-file findings of the changed files as they were at base (laid out in `folder`)."""
    if not files:
        return []
    for rel, data in files.items():
        target = folder / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    rules = [r for r in STATIC_RULES if r not in ("near_duplicates", "test_existence")]
    found = run_pipeline(folder, sorted(files), cache_path=cache, rules=rules, allowlist=allowlist)
    return found.findings


async def _with_marked_secrets(ctx: GradeContext, report: StaticReport) -> StaticReport:
    """The report with the secrets on changed lines that the change marked `gitleaks:allow`."""
    changed = await ctx.changed_lines()
    added: list[StaticFinding] = []
    for path in ctx.scope_files:
        if path not in changed:
            continue
        data = _read(ctx.workdir / path)
        if data is None or b":allow" not in data:
            continue
        text = data.decode("utf-8", "replace")
        for item in marked_secret_items(text, changed[path]):
            severity = severity_of(item.rule, item.value, path, DEFAULT_CONFIG)
            added.append(
                StaticFinding(item.rule, severity, path, item.line, item.message, item.value)
            )
    if not added:
        return report
    by_rule = {**report.by_rule, "hardcoded_secrets": report.by_rule.get("hardcoded_secrets", 0)}
    by_rule["hardcoded_secrets"] += len(added)
    return replace(report, findings=[*report.findings, *added], by_rule=by_rule)


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def findings_text(report: StaticReport, baseline: Sequence[StaticFinding] = ()) -> str:
    # One line a finding or error, whatever the names in it hold (shown, tools/text.py).
    lines = [_line(f) for f in report.findings]
    lines += [f"error: {shown(e)}" for e in report.errors]
    if baseline:
        lines.append(f"baseline (present at base, not counted): {len(baseline)}")
        lines += [f"  {_line(f)}" for f in baseline]
    return "\n".join(lines)


def _line(f: StaticFinding) -> str:
    return f"{shown(f.location)} [{f.rule}] {f.severity} {shown(f.message)}"


def _summary(report: StaticReport, baseline: Sequence[StaticFinding] = ()) -> str:
    rules = ", ".join(f"{rule} {n}" for rule, n in sorted(report.by_rule.items()) if n)
    return (
        f"{counted(len(report.findings), 'finding')} in {counted(report.files_analysed, 'file')}"
        + (f" ({rules})" if rules else "")
        + (
            f"; {counted(len(baseline), 'baseline finding')} that"
            f" {agrees(len(baseline), 'predates', 'predate')} the change"
            if baseline
            else ""
        )
        + f"; {report.cache_hits} from cache"
        + (f"; not analysed: {_excluded(report)}" if report.excluded else "")
    )


def _excluded(report: StaticReport) -> str:
    return ", ".join(f"{n} {reason}" for reason, n in report.excluded.items())


def _details(report: StaticReport) -> dict[str, Any]:
    return {
        "by_rule": report.by_rule,
        "files_analysed": report.files_analysed,
        "cache_hits": report.cache_hits,
        "excluded": report.excluded,
        "errors": report.errors[:20],
    }
