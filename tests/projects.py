"""Small real projects for evaluation tests: passing, failing, hanging, tampered …"""

from __future__ import annotations

import os
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gitrepo import git, make_repo

from referee.tools.create_contract.entry import create_contract
from referee.tools.evaluate.entry import EvaluateDeps, EvaluateInput, evaluate
from referee.tools.models import Evaluation
from referee.tools.repo import describe_repo
from referee.tools.rubrics import load_rubrics
from referee.tools.settings import Settings
from referee.tools.store import Store

PY = sys.executable
# A server environment for the sample projects: their pytest runs load no auto-registered plugin
# (this interpreter's test extras register hypothesis's and anyio's; none is used by a sample).
SAMPLE_ENV = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}

CALC = "def add(a, b):\n    return a + b\n"
CALC_TESTS = (
    "import os, sys\n"
    "sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'src'))\n"
    "from calc import add\n\n"
    "def test_add():\n    assert add(1, 2) == 3\n\n"
    "def test_add_negative():\n    assert add(-1, -2) == -3\n"
)


def calc_repo(path: Path, extra: dict[str, str] | None = None) -> Path:
    return make_repo(
        path,
        {
            "src/calc.py": CALC,
            "tests/test_calc.py": CALC_TESTS,
            ".gitignore": "__pycache__/\n",
            **(extra or {}),
        },
    )


def server_env(repo: Path, **secrets: str) -> dict[str, str]:
    """What a real server's environment holds: a home, a PATH, referee's own variables, secrets."""
    return {
        "PATH": os.environ["PATH"],
        "HOME": os.environ.get("HOME", "/root"),
        "XDG_DATA_HOME": os.environ["XDG_DATA_HOME"],
        "REFEREE_HOME": str(repo / ".referee"),
        **SAMPLE_ENV,
        **secrets,
    }


def stored_text(home: Path) -> str:
    """Every byte referee stored (database and artifacts), as text, for grepping."""
    chunks = []
    for path in home.rglob("*"):
        if path.is_file():
            chunks.append(path.read_bytes().decode("utf-8", "replace"))
    return "\n".join(chunks)


def pytest_check(*paths: str, **kw: Any) -> dict[str, Any]:
    return {"kind": "tests", "argv": [PY, "-m", "pytest", "-q", *paths], **kw}


def command_check(code: str, **kw: Any) -> dict[str, Any]:
    return {"kind": "command", "argv": [PY, "-c", code], **kw}


def contract_for(store: Store, repo: Path, *criteria: dict[str, Any], **fields: Any):
    args = {
        "goal": "Evaluate the sample project.",
        "out_of_scope": ["nothing else"],
        "functional": list(criteria),
        **fields,
    }
    return create_contract(
        args,
        store=store,
        rubrics=load_rubrics(repo),
        repo=describe_repo(repo),
        now=lambda: datetime.now(UTC),
    ).contract


def evaluate_deps(store: Store, repo: Path, env: dict[str, str] | None = None) -> EvaluateDeps:
    """What the evaluate core needs, for a repository that is the server's only root."""
    return EvaluateDeps(
        store=store,
        settings=Settings.build([repo], env={**SAMPLE_ENV, **(env or {})}),
        now=lambda: datetime.now(UTC),
    )


async def evaluated(
    store: Store, repo: Path, contract_id: str, env: dict[str, str] | None = None, **kw: Any
) -> Evaluation:
    """The evaluate core's result for the contract (`kw`: evaluate's other arguments)."""
    request = EvaluateInput(contract_id=contract_id, **kw)
    return await evaluate(request, evaluate_deps(store, repo, env))


async def sample_evaluated(
    repo: Path, settings: Settings, test: str = "def test_adds():\n    assert 1 + 1 == 2\n"
) -> tuple[str, str]:
    """One pytest criterion over `test_sample.py` (holding `test`), evaluated once with the
    server's settings: (contract id, run id)."""
    (repo / "test_sample.py").write_text(test, encoding="utf-8")
    store = Store(settings.home)
    check = pytest_check("test_sample.py")
    contract = contract_for(
        store, repo, {"criterion": "adds", "verification_method": "test", "check": check}
    )
    deps = EvaluateDeps(store=store, settings=settings, now=lambda: datetime.now(UTC))
    result = await evaluate(EvaluateInput(contract_id=contract.id), deps)
    store.close()
    return contract.id, result.run_id


def commit_all(repo: Path, message: str = "change") -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")


# A bug at base (adding a negative number subtracts it) next to old debt (a long function), and
# the fix with its regression test, for fail-before-pass-after and task-scope tests.
BUG_HEADER = (
    "import os, sys\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'src'))\n"
)
BUG_OLD_DEBT = (
    "def old_report():\n    lines = []\n"
    + "\n".join(f"    lines.append('row {i}')" for i in range(60))
    + "\n    return lines\n"
)
BUG_BASE = "def add(a, b):\n    return a - b if b < 0 else a + b\n\n\n" + BUG_OLD_DEBT
BUG_FIX = "def add(a, b):\n    return a + b\n\n\n# kept for the report\n" + BUG_OLD_DEBT
BUG_TESTS = BUG_HEADER + "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"
BUG_REGRESSION = "\n\ndef test_add_negative():\n    assert add(1, -1) == 0\n"
BUG_TRIVIAL = (
    BUG_HEADER + "from calc import add\n\n\ndef test_add_zero():\n    assert add(0, 0) == 0\n"
)


def bugfix_repo(path: Path) -> Path:
    """The buggy base, committed; `apply_bugfix` writes the fix on top (uncommitted)."""
    return make_repo(
        path,
        {"src/calc.py": BUG_BASE, "tests/test_calc.py": BUG_TESTS, ".gitignore": "__pycache__/\n"},
    )


def apply_bugfix(repo: Path, *, trivial: bool = False) -> None:
    (repo / "src" / "calc.py").write_text(BUG_FIX, encoding="utf-8")
    (repo / "tests" / "test_calc.py").write_text(BUG_TESTS + BUG_REGRESSION, encoding="utf-8")
    if trivial:
        (repo / "tests" / "test_zero.py").write_text(BUG_TRIVIAL, encoding="utf-8")


def bugfix_criteria() -> list[dict[str, Any]]:
    """The regression proven, a trivial test that proves nothing, and no long function."""
    return [
        {
            "criterion": "the regression test fails at base and passes now",
            "verification_method": "test",
            "check": pytest_check("tests/test_calc.py", must_fail_at_base=True),
        },
        {
            "criterion": "the trivial test proves the fix",
            "verification_method": "test",
            "check": pytest_check("tests/test_zero.py", must_fail_at_base=True),
        },
        {
            "criterion": "no long functions",
            "verification_method": "static",
            "check": {"kind": "static", "rule": "function_length"},
        },
    ]
