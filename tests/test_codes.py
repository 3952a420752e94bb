"""Every code referee can produce has a table entry, every entry is a real code, and docs/codes.md
is generated from the tables (regenerate with `python scripts/generate_docs.py`)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path
from typing import get_args

import pytest

from referee.tools.claims import model as claims
from referee.tools.codes import DOCS_PATH, FAMILIES, codes_markdown, family, lookup
from referee.tools.environment import ENVIRONMENT_MODIFIED
from referee.tools.input_codes import INPUT_CODES
from referee.tools.models import ReasonCode
from referee.tools.models.antipatterns import ANTIPATTERNS
from referee.tools.models.reasons import REASONS
from referee.tools.process.watch import KilledCode
from referee.tools.rubrics.codes import RUBRIC_CODES
from referee.tools.tampering import model as tampering
from referee.tools.validate_scorecard import REFEREE_ANTIPATTERNS

ROOT = Path(__file__).resolve().parent.parent
_CODE = re.compile(r"[a-z][a-z0-9_]*")


def _sources() -> dict[Path, ast.Module]:
    files = [
        path
        for top in ("tools", "server")
        for path in (ROOT / top).rglob("*.py")
        if "demo_project" not in path.parts
    ]
    return {path: ast.parse(path.read_text(encoding="utf-8")) for path in files}


def _code_positions(trees: dict[Path, ast.Module]) -> dict[str, set[int]]:
    """Function name -> the positions of its parameter named `code` (`_problem(code, …)`)."""
    found: dict[str, set[int]] = {}
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                args = [a.arg for a in [*node.args.posonlyargs, *node.args.args]]
                args = [a for a in args if a not in ("self", "cls")]
                if "code" in args:
                    found.setdefault(node.name, set()).add(args.index("code"))
    return found


def _text(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _called(node: ast.Call, positions: dict[str, set[int]]) -> Iterator[str | None]:
    func = node.func
    name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
    yield from (_text(k.value) for k in node.keywords if k.arg == "code")
    yield from (_text(node.args[i]) for i in positions.get(name or "", ()) if i < len(node.args))
    if name == "NotFound" and node.args and (what := _text(node.args[0])):
        yield "unknown_" + what.replace(" ", "_")


def _mapped(node: ast.Assign) -> Iterator[str | None]:
    named = any(isinstance(t, ast.Name) and t.id.endswith("_CODES") for t in node.targets)
    if named and isinstance(node.value, ast.Dict):
        yield from (_text(v) for v in node.value.values)


def produced_codes() -> set[str]:
    """Every code the source writes as a literal: `code="…"`, a helper's `code` argument,
    `NotFound("contract", …)` (unknown_contract), and the values of `*_CODES` mappings."""
    trees = _sources()
    positions = _code_positions(trees)
    found: set[str] = set()
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                found.update(c for c in _called(node, positions) if c)
            elif isinstance(node, ast.Assign):
                found.update(c for c in _mapped(node) if c)
    return {c for c in found if _CODE.fullmatch(c)}


def test_docs_codes_md_is_generated_from_the_tables() -> None:
    on_disk = (ROOT / DOCS_PATH).read_text(encoding="utf-8")
    assert on_disk == codes_markdown(), "regenerate with `python scripts/generate_docs.py`"


def test_every_reason_code_has_exactly_one_entry() -> None:
    assert set(REASONS) == set(ReasonCode)
    assert [c.value for c in REASONS] == [c.value for c in ReasonCode]


def test_the_codes_a_watchdog_kill_gives_are_reason_codes() -> None:
    assert set(get_args(KilledCode)) <= set(ReasonCode)


@pytest.mark.slow
def test_every_code_the_source_writes_has_a_table_entry() -> None:
    documented = set().union(*(f.codes for f in FAMILIES))
    assert produced_codes() - documented == set()


@pytest.mark.slow
def test_every_input_and_rubric_entry_is_a_code_the_source_writes() -> None:
    produced = produced_codes()
    assert set(INPUT_CODES) - produced == set()
    assert set(RUBRIC_CODES) - produced == set()


def test_every_antipattern_referee_detects_has_an_entry() -> None:
    detected = {
        tampering.TEST_DELETED,
        tampering.TEST_SKIPPED,
        tampering.TEST_FOCUSED,
        tampering.ASSERTIONS_REMOVED,
        tampering.TEST_EMPTIED,
        tampering.TREE_MODIFIED,
        claims.CODE_UNDER_TEST_PATCHED,
        claims.TEST_INSPECTS_ENVIRONMENT,
        claims.HARNESS_MODIFIED,
        ENVIRONMENT_MODIFIED,
    }
    assert detected <= set(ANTIPATTERNS)
    assert set(ANTIPATTERNS) == REFEREE_ANTIPATTERNS


def test_every_entry_says_what_it_means_and_what_to_do() -> None:
    for fam in FAMILIES:
        for code, meaning in fam.codes.items():
            assert _CODE.fullmatch(code), code
            assert meaning.meaning.endswith((".", ")")) and meaning.fix.endswith((".", ")")), code


def test_every_anchor_of_the_codes_document_is_unique() -> None:
    anchors = re.findall(r'<a id="([^"]+)"></a>', codes_markdown())
    assert len(anchors) == len(set(anchors))
    assert {"harness_flip", "reason-harness_flip", "input-required", "validate-required"} <= set(
        anchors
    )


def test_a_code_is_found_in_every_family_that_has_it() -> None:
    assert [e.family.key for e in lookup("required")] == ["validate", "input"]
    assert [e.anchor for e in lookup("`HARNESS_FLIP`")] == ["reason-harness_flip"]
    assert lookup("no_such_code") == []
    assert family("reason") is FAMILIES[0] and family("nope") is None
