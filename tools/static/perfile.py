"""The per-file stage: cache look-up, then analysis of the misses in-process or in worker processes.

Small workloads stay in-process (workers cost a few hundred milliseconds to start); larger ones
go to `os.cpu_count()` worker processes, because tree-sitter parsing holds the GIL.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from referee.tools.static.analyse import SECRETS, analyse_batch, analysers_for
from referee.tools.static.cache import ResultCache
from referee.tools.static.model import Outcome, StaticConfig
from referee.tools.static.paths import language_of
from referee.tools.static.pool import Work, run_in_workers

_BATCH_BYTES = 512_000
_BATCH_FILES = 64


@dataclass
class PerFile:
    """Outcomes by path and analyser, with the counts the report needs."""

    outcomes: dict[str, dict[str, Outcome]] = field(default_factory=dict)
    analysed: int = 0
    hits: int = 0
    errors: list[str] = field(default_factory=list)


@dataclass
class _Pending:
    work: list[Work] = field(default_factory=list)
    sizes: dict[str, int] = field(default_factory=dict)


def run_per_file(
    repo: Path,
    shas: dict[str, str],
    sizes: dict[str, int],
    rules: frozenset[str],
    config: StaticConfig,
    cache: ResultCache,
) -> PerFile:
    """Serve each file's analysers from the cache, analyse the rest, and store what was computed."""
    result, pending = _from_cache(shas, sizes, rules, cache)
    computed = _analyse(repo, pending, config, result)
    for name, outcomes in computed.items():
        result.outcomes.setdefault(name, {}).update(outcomes)
    cache.store_outcomes(
        [
            (shas[name], a, o)
            for name, outcomes in computed.items()
            for a, o in outcomes.items()
            if not o.transient
        ]
    )
    return result


def _from_cache(
    shas: dict[str, str], sizes: dict[str, int], rules: frozenset[str], cache: ResultCache
) -> tuple[PerFile, _Pending]:
    stored = cache.outcomes(shas.values())
    result, pending = PerFile(), _Pending()
    for name, sha in shas.items():
        analysers = analysers_for(name, rules)
        if not analysers:
            continue
        # Counted: source files only (data, docs and licences are scanned for secrets, not code).
        source = language_of(name) is not None
        result.analysed += source
        hits = {a: stored[(sha, a)] for a in analysers if (sha, a) in stored}
        result.outcomes[name] = hits
        missing = tuple(a for a in analysers if a not in hits)
        if missing:
            pending.work.append((name, missing))
            pending.sizes[name] = sizes.get(name, 0)
        else:
            result.hits += source
    return result, pending


def _analyse(
    repo: Path, pending: _Pending, config: StaticConfig, result: PerFile
) -> dict[str, dict[str, Outcome]]:
    """Secrets in a side thread (betterleaks is Go behind ctypes and releases the GIL), the rest
    here."""
    secret_work = [(name, (SECRETS,)) for name, analysers in pending.work if SECRETS in analysers]
    other = _Pending(sizes=pending.sizes)
    other.work = [
        (n, rest) for n, a in pending.work if (rest := tuple(x for x in a if x != SECRETS))
    ]
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="referee-secrets") as side:
        secrets = side.submit(analyse_batch, str(repo), secret_work, config)
        computed = _analyse_structure(repo, other, config, result)
        for name, outcomes in zip((n for n, _ in secret_work), secrets.result(), strict=True):
            computed.setdefault(name, {}).update(outcomes)
    return computed


def _analyse_structure(
    repo: Path, pending: _Pending, config: StaticConfig, result: PerFile
) -> dict[str, dict[str, Outcome]]:
    if not pending.work:
        return {}
    jobs = config.jobs or os.cpu_count() or 1
    if jobs == 1 or sum(pending.sizes[name] for name, _ in pending.work) <= config.inline_bytes:
        outcomes = analyse_batch(str(repo), pending.work, config)
        return dict(zip((name for name, _ in pending.work), outcomes, strict=True))
    return _in_pool(repo, _batches(pending), jobs, config, result)


def _batches(pending: _Pending) -> list[list[Work]]:
    """Group work into batches of bounded size, biggest files first so the tail stays short."""
    ordered = sorted(pending.work, key=lambda w: pending.sizes[w[0]], reverse=True)
    batches: list[list[Work]] = []
    current: list[Work] = []
    weight = 0
    for work in ordered:
        if current and (
            weight + pending.sizes[work[0]] > _BATCH_BYTES or len(current) >= _BATCH_FILES
        ):
            batches.append(current)
            current, weight = [], 0
        current.append(work)
        weight += pending.sizes[work[0]]
    return [*batches, current] if current else batches


def _in_pool(
    repo: Path, batches: Sequence[list[Work]], jobs: int, config: StaticConfig, result: PerFile
) -> dict[str, dict[str, Outcome]]:
    pooled = run_in_workers(repo, batches, jobs, config)
    result.errors.extend(f"{name}: analysis worker crashed" for name in pooled.crashed)
    return pooled.outcomes
