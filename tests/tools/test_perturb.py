"""Anti-gaming perturbation: same behaviour, different form; and the gaming indicator's bands."""

from __future__ import annotations

import ast
import importlib.util
import io
import re
import tokenize
import types
from pathlib import Path

import anyio
import pytest
from gitrepo import git
from hypothesis import given
from hypothesis import strategies as st
from projects import PY, calc_repo

from referee.tools.perturbation.copy import build_perturbed_copy, gaming_indicator, perturb_source

SAMPLE = '''"""Statistics helpers (a module docstring)."""
import sys
import collections
from typing import Any
import os  # used for nothing in particular

LIMIT = 10


def mean_of(values, weights=None):
    """Weighted mean; plain mean without weights."""
    # pair every value with its weight
    if weights is None:
        weights = [1] * len(values)
    total = 0
    count = 0
    for value, weight in zip(values, weights):
        total += value * weight
        count += weight
    return total / count if count else 0.0


def histogram(values):
    counts = collections.Counter()
    for item in values:
        bucket = min(item // 10, LIMIT)
        counts[bucket] += 1
    return dict(sorted(counts.items()))


def _clip(value, low=0, high=100):
    return max(low, min(high, value))


def clipped(values):
    limit = 50
    return [_clip(v, high=limit) for v in values]


def running(values):
    """Running sums, through a closure."""
    state = [0]

    def step(amount):
        state[0] += amount
        return state[0]
    return [step(v) for v in values]


def biggest(values):
    if (top := max(values, default=None)) is None:
        return "empty"
    try:
        label = f"max={top}"
    except ValueError as error:
        label = str(error)
    return label


def debug(value):
    doubled = value * 2
    return f"{doubled=}"


def introspective(value):
    secret = value + 1
    return sorted(locals())


class Account:
    """A bank account."""

    def __init__(self, owner, balance=0):
        self.owner = owner
        self.balance = balance

    def deposit(self, amount):
        """Add money."""
        new_balance = self.balance + amount
        self.balance = new_balance
        return new_balance
'''

LIST_FUNCTIONS = ["mean_of", "histogram", "clipped", "running", "biggest"]
NUMBER_FUNCTIONS = ["debug", "introspective"]


def _module(text: str, name: str) -> types.ModuleType:
    module = types.ModuleType(name)
    exec(compile(text, f"<{name}>", "exec"), module.__dict__)
    return module


ORIGINAL = _module(SAMPLE, "original")
PERTURBED_TEXT = perturb_source("pkg/stats.py", SAMPLE).text
PERTURBED = _module(PERTURBED_TEXT, "perturbed")


@given(st.lists(st.integers(min_value=-1000, max_value=1000), max_size=30))
def test_perturbed_functions_return_what_the_originals_return(values: list[int]) -> None:
    for name in LIST_FUNCTIONS:
        assert getattr(PERTURBED, name)(values) == getattr(ORIGINAL, name)(values), name
    for name in NUMBER_FUNCTIONS:
        assert getattr(PERTURBED, name)(len(values)) == getattr(ORIGINAL, name)(len(values)), name
    assert PERTURBED.mean_of(values, [2] * len(values)) == ORIGINAL.mean_of(
        values, [2] * len(values)
    )


@pytest.mark.parametrize("amounts", [[], [5], [1, 2, 3], [-4, 10]])
def test_perturbed_class_behaves_like_the_original(amounts: list[int]) -> None:
    before, after = ORIGINAL.Account("ann", 3), PERTURBED.Account(owner="ann", balance=3)
    assert [before.deposit(a) for a in amounts] == [after.deposit(amount=a) for a in amounts]


def test_perturbed_module_imports_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "stats_perturbed.py"
    path.write_text(PERTURBED_TEXT, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("stats_perturbed", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.histogram([1, 12, 15, 99]) == {0: 1, 1: 2, 9: 1}


def test_comments_and_docstrings_are_gone() -> None:
    tokens = tokenize.generate_tokens(io.StringIO(PERTURBED_TEXT).readline)
    assert not [t for t in tokens if t.type == tokenize.COMMENT]
    tree = ast.parse(PERTURBED_TEXT)
    documented = [
        n for n in ast.walk(tree) if isinstance(n, ast.Module | ast.ClassDef | ast.FunctionDef)
    ]
    assert all(ast.get_docstring(n) is None for n in documented)
    assert "Weighted mean" not in PERTURBED_TEXT and "A bank account" not in PERTURBED_TEXT


def test_the_import_block_is_sorted_and_grouped() -> None:
    tree = ast.parse(PERTURBED_TEXT)
    imports = [n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
    names = [n.names[0].name if isinstance(n, ast.Import) else n.module for n in imports]
    assert names == ["collections", "os", "sys", "typing"]


def test_imports_after_other_code_stay_where_they_are() -> None:
    text = "import sys\nsys.path.insert(0, 'src')\nimport zlib\nimport abc\n"
    out = perturb_source("boot.py", text).text
    assert out.index("sys.path.insert") < out.index("import zlib") < out.index("import abc")


def test_locals_are_renamed_but_public_parameters_keep_their_names() -> None:
    result = perturb_source("pkg/stats.py", SAMPLE)
    assert "local names made generic" in result.transforms
    for local in ("total", "count", "bucket", "new_balance", "label", "state"):
        assert not re.search(rf"\b{local}\b", PERTURBED_TEXT), local
    assert "def mean_of(values, weights=None)" in PERTURBED_TEXT
    assert "def deposit(self, amount)" in PERTURBED_TEXT
    assert "def _clip(value, low=0, high=100)" in PERTURBED_TEXT  # `high=` is passed by keyword
    assert "v1" in PERTURBED_TEXT


def test_functions_that_read_their_own_scope_keep_their_names() -> None:
    assert "secret" in PERTURBED_TEXT and "doubled" in PERTURBED_TEXT
    assert PERTURBED.introspective(1) == ["secret", "value"]


def test_a_nested_helper_called_only_inside_gets_generic_parameters() -> None:
    text = (
        "def outer(xs):\n    def twice(item):\n        return item * 2\n    return [twice(x) for x"
        " in xs]\n"
    )
    out = perturb_source("n.py", text).text
    assert "item" not in out and "def outer(xs)" in out
    assert _module(out, "n").outer([1, 2]) == [2, 4]


def test_a_syntax_error_leaves_the_file_as_it_was() -> None:
    text = "def broken(:\n    return 1  # keep me\n"
    result = perturb_source("broken.py", text)
    assert result.text == text and not result.perturbed and "does not parse" in (result.note or "")


def test_javascript_loses_its_comments_but_not_its_strings() -> None:
    text = (
        "// header\n/** doc */\nfunction add(a, b) { // sum\n  /* inline */ return a +"
        " b;\n}\n\n\n\nconst tpl = `first\n\n// not a comment\nlast`;\nmodule.exports = { add, tpl"
        " };\n"
    )
    result = perturb_source("src/add.js", text)
    assert "header" not in result.text and "doc" not in result.text and "sum" not in result.text
    assert "inline" not in result.text and "\n\n\n" not in result.text.replace("`first\n\n//", "")
    assert "`first\n\n// not a comment\nlast`" in result.text
    assert result.transforms == ["comments removed", "blank lines collapsed"]


def test_go_build_directives_survive() -> None:
    text = (
        "//go:build linux\n\n// Package x is documented.\npackage x\n\n"
        "// Add adds.\nfunc Add(a, b int) int { return a + b }\n"
    )
    out = perturb_source("x/add.go", text).text
    assert out.startswith("//go:build linux\n\npackage x") and "Add adds" not in out


@pytest.mark.parametrize(
    ("original", "perturbed", "g", "band", "adjusted"),
    [
        (2.5, 2.5, 0.0, "clean", 2.5),
        (2.0, 1.85, 0.075, "clean", 2.0),
        (2.0, 1.8, 0.1, "suspect", 2.0),
        (2.0, 1.4, 0.3, "suspect", 2.0),
        (2.0, 1.3, 0.35, "gaming", 1.6),
        (1.5, 2.4, 0.6, "gaming", 1.2),
        (0.0, 0.0, 0.0, "clean", 0.0),
        (0.0, 1.0, 1.0, "gaming", 0.0),
    ],
)
def test_gaming_indicator_bands(
    original: float, perturbed: float, g: float, band: str, adjusted: float
) -> None:
    check = gaming_indicator(original, perturbed)
    assert (check.g, check.band, check.adjusted) == (g, band, adjusted)
    assert check.penalty == (0.2 if band == "gaming" else 0.0)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    repo = calc_repo(tmp_path / "calc")
    (repo / ".gitignore").write_text("__pycache__/\nbuild/\n", encoding="utf-8")
    git(repo, "commit", "-qam", "ignore build")
    return repo


async def _tests_pass(root: Path, perturbed: list[str]) -> bool:
    done = await anyio.run_process(
        [PY, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], cwd=root, check=False
    )
    return done.returncode == 0


@pytest.mark.anyio
async def test_perturbed_copy_keeps_the_tree_and_its_behaviour(
    project: Path, tmp_path: Path
) -> None:
    calc = project / "src" / "calc.py"
    calc.write_text(
        '"""Calc."""\n\n\ndef add(a, b):\n    # add them\n    result = a + b\n    return result\n',
        encoding="utf-8",
    )
    (project / "src" / "broken.py").write_text("def broken(:\n", encoding="utf-8")
    (project / "build").mkdir()
    (project / "build" / "out.txt").write_text("ignored", encoding="utf-8")
    (project / ".referee").mkdir()
    (project / ".referee" / "referee.db").write_text("", encoding="utf-8")
    dest = tmp_path / "perturbed"
    result = await build_perturbed_copy(
        project, ["src/calc.py", "src/broken.py", "gone.py"], dest, check_semantics=_tests_pass
    )
    assert result.semantics_kept is True and result.files == ["src/calc.py"]
    assert {"comments removed", "docstrings removed", "local names made generic"} <= set(
        result.transforms
    )
    assert "result" not in (dest / "src" / "calc.py").read_text(encoding="utf-8")
    assert (dest / "src" / "broken.py").read_text(encoding="utf-8") == "def broken(:\n"
    assert (dest / "tests" / "test_calc.py").is_file() and (dest / ".gitignore").is_file()
    assert (
        not (dest / "build").exists()
        and not (dest / ".referee").exists()
        and not (dest / ".git").exists()
    )
    assert "src/broken.py (does not parse" in result.instructions
    assert 'variant: "perturbed"' in result.instructions and str(dest) in result.instructions


@pytest.mark.anyio
async def test_without_a_semantics_check_the_result_says_so(project: Path, tmp_path: Path) -> None:
    result = await build_perturbed_copy(
        project, ["src/calc.py"], tmp_path / "copy", check_semantics=None
    )
    assert result.semantics_kept is None and "No tests check confirmed" in result.instructions


@pytest.mark.anyio
async def test_a_non_empty_destination_is_refused(project: Path, tmp_path: Path) -> None:
    dest = tmp_path / "busy"
    dest.mkdir()
    (dest / "x").write_text("x", encoding="utf-8")
    with pytest.raises(FileExistsError):
        await build_perturbed_copy(project, [], dest, check_semantics=None)
