"""Per-file analysis: the unit of work a pool worker runs and the per-file cache stores.

A file's work is split into analysers, each cached on its own under the file's blob SHA:
`text:<language>` (file length, TODO density), `structure:<language>` (function length, nesting,
cognitive complexity) and `secrets`. The language is part of the name because the same content
under another extension is read differently.
"""

from __future__ import annotations

import os
import re
from collections.abc import Collection, Sequence
from pathlib import Path

import betterleaks
import complexipy

from referee.tools.static.embedded import EMBEDDING, script_blocks
from referee.tools.static.model import Item, Outcome, StaticConfig
from referee.tools.static.paths import language_of, parsed_language
from referee.tools.static.secret_text import SCAN_LIMIT, beyond_limit
from referee.tools.static.secrets import file_secret_items
from referee.tools.static.structure import structure_items
from referee.tools.static.textchecks import file_length_items, todo_items

TEXT_RULES = frozenset({"file_length", "todo_density"})
STRUCTURE_RULES = frozenset({"function_length", "nesting_depth", "cognitive_complexity"})
SECRET_RULES = frozenset({"hardcoded_secrets"})
PER_FILE_RULES = TEXT_RULES | STRUCTURE_RULES | SECRET_RULES
SECRETS = "secrets"
_SNIFF_BYTES = 8192
_MINIFIED_MIN_BYTES = 4096
_MINIFIED_LINE = 300
_ERROR_MAX = 200
# Markers tools put at the top of what they write: Go's "Code generated … DO NOT EDIT.",
# Facebook's "@generated", protoc, OpenAPI and ORM generators' "auto-generated" banners.
_GENERATED = re.compile(
    rb"@generated\b|\bDO NOT EDIT\b|\b(?:auto-?generated|automatically generated)\b", re.I
)
_HEAD_BYTES = 2048
_HEAD_LINES = 5


def analysers_for(path: str, rules: Collection[str]) -> tuple[str, ...]:
    """The analysers a file needs for the selected rules (none for data files without secrets)."""
    needed: list[str] = []
    language = language_of(path)
    if language and not TEXT_RULES.isdisjoint(rules):
        needed.append(f"text:{language}")
    parsed = parsed_language(path)
    if parsed and not STRUCTURE_RULES.isdisjoint(rules):
        needed.append(f"structure:{parsed}")
    if "hardcoded_secrets" in rules:
        needed.append(SECRETS)
    return tuple(needed)


def analyse_batch(
    root: str, batch: Sequence[tuple[str, tuple[str, ...]]], config: StaticConfig
) -> list[dict[str, Outcome]]:
    """Analyse several files (the pool's unit of work, to amortise inter-process calls)."""
    return [analyse_file(Path(root) / name, analysers, config) for name, analysers in batch]


def analyse_file(path: Path, analysers: Sequence[str], config: StaticConfig) -> dict[str, Outcome]:
    """Run the named analysers on one file; an unreadable or skipped file yields empty outcomes."""
    try:
        data, size = _read(path)
    except OSError as exc:
        return dict.fromkeys(
            analysers, Outcome(errors=[f"unreadable: {exc.strerror}"], transient=True)
        )
    skip = _skip_reason(path.name, data, size, config)
    if skip is not None:
        note = [f"not analysed: {skip}"] if language_of(path.name) else []
        skipped = {name: Outcome(errors=note, skipped=skip) for name in analysers}
        # What a file is (generated, minified, binary, large) spares it the code rules, never the
        # secret scan: a key ships in it all the same (see secret_text).
        if SECRETS in analysers:
            skipped[SECRETS] = _secrets(data, size)
        return skipped
    text = data.decode("utf-8", "replace") if "structure:python" in analysers else ""
    found = {name: _guarded(name, data, text, config) for name in analysers if name != SECRETS}
    if SECRETS in analysers:
        found[SECRETS] = _secrets(data, size)
    return {name: found[name] for name in analysers}


def _read(path: Path) -> tuple[bytes, int]:
    """At most SCAN_LIMIT bytes of the file, and its size."""
    with path.open("rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        return handle.read(SCAN_LIMIT), size


def _secrets(data: bytes, size: int) -> Outcome:
    # One odd file must not abort a run over thousands: a failure becomes a note, without the
    # exception's text (it could quote the content, and so a secret).
    note = beyond_limit(size)
    try:
        return Outcome(items=file_secret_items(data), errors=[note] if note else [])
    except betterleaks.BetterleaksError:
        return Outcome(errors=["secret scan failed"])
    except Exception as exc:
        return Outcome(errors=[f"{SECRETS} failed: {type(exc).__name__}"])


def _guarded(analyser: str, data: bytes, text: str, config: StaticConfig) -> Outcome:
    # One odd file must not abort a run over thousands: an analyser's failure becomes a note.
    try:
        return _run(analyser, data, text, config)
    except Exception as exc:
        # The exception text is left out: it could quote the content (and so a secret).
        return Outcome(errors=[f"{analyser} failed: {type(exc).__name__}"])


def _skip_reason(name: str, data: bytes, size: int, config: StaticConfig) -> str | None:
    if size > config.max_file_bytes:
        return f"over {config.max_file_bytes} bytes"
    if b"\0" in data[:_SNIFF_BYTES]:
        return "binary"
    if not config.markers:
        return None  # a file the change wrote is judged by what it holds, not what it says
    if ".min." in name or (
        len(data) > _MINIFIED_MIN_BYTES and len(data) > _MINIFIED_LINE * (data.count(b"\n") + 1)
    ):
        return "minified"
    if _GENERATED.search(b"\n".join(data[:_HEAD_BYTES].splitlines()[:_HEAD_LINES])):
        return "generated"
    return None


def _run(analyser: str, data: bytes, text: str, config: StaticConfig) -> Outcome:
    kind, _, language = analyser.partition(":")
    if kind == "text":
        return Outcome(items=file_length_items(data, config) + todo_items(data, language, config))
    return _structure(data, text, language, config)


def _structure(data: bytes, text: str, language: str, config: StaticConfig) -> Outcome:
    if language in EMBEDDING.values():
        return _components(data, config)
    python = language == "python"
    items, broken = structure_items(data, language, config, cognitive=not python)
    outcome = Outcome(
        items=items, errors=["syntax errors: structure results may be partial"] if broken else []
    )
    if python:
        try:
            outcome.items.extend(_python_cognitive(text, config))
        except ValueError as exc:
            outcome.errors.append(f"complexipy could not parse: {str(exc)[:_ERROR_MAX]}")
    return outcome


def _components(data: bytes, config: StaticConfig) -> Outcome:
    """A `.vue`/`.svelte` file: each script block measured as the JS/TS it is."""
    outcome = Outcome()
    for language, code in script_blocks(data):
        items, broken = structure_items(code, language, config, cognitive=True)
        outcome.items.extend(items)
        if broken and not outcome.errors:
            outcome.errors.append("syntax errors: structure results may be partial")
    return outcome


_COMPLEXIPY = re.compile(r"(?i)complexipy")


def _python_cognitive(text: str, config: StaticConfig) -> list[Item]:
    """Cognitive complexity per Python function (complexipy folds nested functions into their
    parent)."""
    items = []
    # complexipy leaves out a function whose head carries its marker (a `noqa` comment naming
    # complexipy, or `complexipy: ignore`): referee's limit is the contract's, and reads through
    # it. The word is respelled at the same length, so every line stays where it was.
    unmarked = _COMPLEXIPY.sub("c0mplexipy", text)
    for fn in complexipy.code_complexity(unmarked, with_plans=False).functions:
        if fn.complexity > config.max_cognitive:
            name = fn.name.replace("::", ".")
            message = (
                f"function {name} has cognitive complexity {fn.complexity} (limit"
                f" {config.max_cognitive})"
            )
            items.append(Item("cognitive_complexity", fn.line_start, message, fn.complexity))
    return items
