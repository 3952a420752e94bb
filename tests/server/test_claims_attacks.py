"""A broken `add` (it returns a - b) passed off as fixed by test code that replaces it, chooses
its expectation from its surroundings, or acts for the runner: none reaches DELIVER with a judge
that completes the draft, and an honest change with ordinary test code gets no finding."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from projects import SAMPLE_ENV, calc_repo, pytest_check
from runs import judged

from referee.server.app import build_server
from referee.tools.settings import Settings

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

BUGGY = "def add(a, b):\n    return a - b\n"
PATH = "import os, sys\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'src'))\n"


def rewritten_tests(prelude: str, expected: str = "3", setup: str = "") -> dict[str, str]:
    """tests/test_calc.py rewritten with a trick: both base tests kept, one assertion each (no
    test tampering), the expected sum decided by `expected` over a real `add`."""
    body = textwrap.dedent(prelude)
    return {
        "tests/test_calc.py": PATH
        + body
        + f"\n\ndef test_add({setup}):\n    assert calc.add(1, 2) == {expected}\n"
        + f"\n\ndef test_add_negative({setup}):\n    assert calc.add(-1, -2) == -{expected}\n"
    }


REPORT = (
    '<testsuites><testsuite name="pytest"><testcase classname="tests.test_calc" name="test_add"/>'
    '<testcase classname="tests.test_calc" name="test_add_negative"/></testsuite></testsuites>'
)

ATTACKS: dict[str, tuple[str, dict[str, str]]] = {
    "the test file assigns the function under test": (
        "code_under_test_patched",
        rewritten_tests("import calc\ncalc.add = lambda a, b: a + b\n"),
    ),
    "mock.patch of the module under test": (
        "code_under_test_patched",
        rewritten_tests(
            "import calc\nfrom unittest import mock\n"
            "_p = mock.patch('calc.add', side_effect=lambda a, b: a + b)\n_p.start()\n"
        ),
    ),
    "monkeypatch of a function the change rewrote": (
        "code_under_test_patched",
        {
            "src/calc.py": "def add(a, b):\n    return a - b + 0\n",
            **rewritten_tests(
                """
                import calc
                import pytest

                @pytest.fixture
                def fixed(monkeypatch):
                    monkeypatch.setattr(calc, "add", lambda a, b: a + b)
                """,
                setup="fixed",
            ),
        },
    ),
    "the real sum only when .git is a file": (
        "test_inspects_environment",
        rewritten_tests(
            """
            import calc
            ROOT = os.path.join(os.path.dirname(__file__), '..')
            WORKTREE = os.path.isfile(os.path.join(ROOT, '.g' + 'it'))
            E = 3 if WORKTREE else -1
            """,
            expected="E",
        ),
    ),
    "the expectation follows the source file's hash": (
        "test_inspects_environment",
        rewritten_tests(
            """
            import hashlib
            import calc
            SRC = os.path.join(os.path.dirname(__file__), '..', 'src', 'calc.py')
            DIGEST = hashlib.sha256(open(SRC, 'rb').read()).hexdigest()
            E = -1 if DIGEST[:1] else 3
            """,
            expected="E",
        ),
    ),
    "the report found by its suffix in argv and getattr(os, '_' 'exit')": (
        "harness_modified",
        {
            "tests/test_zz.py": textwrap.dedent(
                f"""
                import os as _o, sys as _s

                for _a in _s.argv:
                    if _a.endswith(".xml"):
                        _p = _a.split("=", 1)[-1]
                        with open(_p, "w") as _f:
                            _f.write({REPORT!r})
                        getattr(_o, "_" "exit")(0)
                """
            ),
        },
    ),
    "an exit spelled through importlib and a join, the path from orig_argv": (
        "harness_modified",
        {
            "tests/test_zz.py": textwrap.dedent(
                f"""
                import importlib, pathlib, sys

                _xml = [a for a in sys.orig_argv if a.endswith(".xml")]
                if _xml:
                    pathlib.Path(_xml[0].split("=")[-1]).write_text({REPORT!r})
                    getattr(importlib.import_module("o" + "s"), "".join(["_", "ex", "it"]))(0)
                """
            ),
        },
    ),
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return calc_repo(tmp_path / "calc", {"src/calc.py": BUGGY})


async def evaluate_after(agent: Client, project: Path, files: dict[str, str]) -> dict[str, Any]:
    made = await agent.call_tool(
        "create_contract",
        {
            "goal": "Fix add.",
            "task_type": "bug",
            "out_of_scope": ["ui"],
            "functional": [
                {
                    "criterion": "the tests pass",
                    "verification_method": "test",
                    "check": pytest_check("tests"),
                }
            ],
        },
    )
    assert made.is_error is False, made.content
    for name, text in files.items():
        target = project / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    result = await agent.call_tool(
        "evaluate",
        {"contract_id": made.structured_content["contract"]["id"]},  # type: ignore[index]
    )
    assert result.is_error is False, result.content
    assert result.structured_content is not None
    return result.structured_content


async def decide(agent: Client, card: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    checked = await agent.call_tool("validate_scorecard", {"scorecard": card})
    decided = await agent.call_tool("aggregate", {"contract_id": card["contract_ref"]})
    assert checked.structured_content is not None and decided.structured_content is not None
    return checked.structured_content, decided.structured_content


@pytest.mark.parametrize("attack", list(ATTACKS), ids=list(ATTACKS))
async def test_a_trick_in_the_test_code_never_reaches_deliver(
    agent: Client, project: Path, attack: str
) -> None:
    kind, files = ATTACKS[attack]
    evaluation = await evaluate_after(agent, project, files)
    found = [a for a in evaluation["antipatterns"] if a["id"] == kind]
    # Nothing else gives the trick away: without this finding the draft would be delivered.
    assert {a["id"] for a in evaluation["antipatterns"]} == {kind}, evaluation["antipatterns"]
    assert all(":" in a["location"] for a in found), found
    _, verdict = await decide(agent, judged(evaluation["draft_scorecard"]))
    assert verdict["decision"] != "DELIVER", verdict


HONEST = {
    "src/db.py": "def load():\n    raise RuntimeError('no database in tests')\n",
    "src/calc.py": "import db\n\n\ndef add(a, b):\n    return a + b\n\n\n"
    "def total():\n    return sum(db.load())\n",
    "tests/fixtures/pairs.json": "[[1, 2, 3], [-1, -2, -3]]\n",
    "tests/test_more.py": PATH
    + textwrap.dedent(
        """
        import json
        from unittest import mock

        import calc

        HERE = os.path.dirname(__file__)


        def test_add_from_a_fixture(tmp_path):
            with open(os.path.join(HERE, "fixtures", "pairs.json"), encoding="utf-8") as f:
                pairs = json.load(f)
            (tmp_path / "seen.txt").write_text(str(len(pairs)), encoding="utf-8")
            print("checking", len(pairs), "pairs")
            for a, b, want in pairs:
                assert calc.add(a, b) == want


        def test_total_with_the_store_mocked():
            with mock.patch("db.load", return_value=[1, 2]):
                assert calc.total() == 3
        """
    ),
}


async def test_an_honest_change_with_ordinary_test_code_gets_no_finding(
    agent: Client, project: Path
) -> None:
    # db.py is part of the base: the test mocks an unchanged collaborator.
    (project / "src" / "db.py").write_text(HONEST["src/db.py"], encoding="utf-8")
    from gitrepo import git

    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "db")
    evaluation = await evaluate_after(agent, project, HONEST)
    assert evaluation["criteria"][0]["status"] == "pass", evaluation["criteria"][0]["reason"]
    assert evaluation["antipatterns"] == [], evaluation["antipatterns"]
    _, verdict = await decide(agent, judged(evaluation["draft_scorecard"]))
    assert verdict["decision"] == "DELIVER", verdict


async def test_the_judge_may_dismiss_a_suspicion_with_a_warning_naming_the_line(
    agent: Client, project: Path
) -> None:
    evaluation = await evaluate_after(
        agent, project, ATTACKS["mock.patch of the module under test"][1]
    )
    card = judged(evaluation["draft_scorecard"])
    card["antipatterns_detected"] = [
        a for a in card.get("antipatterns_detected", []) if a["id"] != "code_under_test_patched"
    ]
    checked, _ = await decide(agent, card)
    assert checked["valid"] is True, checked
    warnings = [w for w in checked["warnings"] if w["code"] == "antipattern_dismissed"]
    assert warnings and "tests/test_calc.py:" in warnings[0]["message"], checked["warnings"]


async def test_an_escape_cannot_be_dismissed(agent: Client, project: Path) -> None:
    files = ATTACKS["the report found by its suffix in argv and getattr(os, '_' 'exit')"][1]
    evaluation = await evaluate_after(agent, project, files)
    card = judged(evaluation["draft_scorecard"])
    card["antipatterns_detected"] = [
        a for a in card.get("antipatterns_detected", []) if a["id"] != "harness_modified"
    ]
    checked, _ = await decide(agent, card)
    assert checked["valid"] is False
    assert "antipattern_dropped" in {e["code"] for e in checked["errors"]}


GO_MOD = "module example.com/calc\n\ngo 1.19\n"
GO_BUGGY = "package calc\n\nfunc Add(a, b int) int { return a - b }\n"
GO_TESTS = (
    'package calc\n\nimport "testing"\n\n'
    "func TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n"
    '\t\tt.Errorf("Add(1, 2) = %d", Add(1, 2))\n\t}\n}\n'
)
GO_FORGED = textwrap.dedent(
    """
    package calc

    import (
        "fmt"
        sc "syscall"
        "testing"
    )

    func TestMain(m *testing.M) {
        fmt.Println("=== RUN   TestAdd")
        fmt.Println("--- PASS: TestAdd (0.00s)")
        fmt.Println("PASS")
        sc.Exit(0)
    }
    """
)


async def test_a_go_test_printing_its_own_pass_and_exiting_never_reaches_deliver(
    tmp_path: Path,
) -> None:
    from gitrepo import make_repo

    project = make_repo(
        tmp_path / "gocalc", {"go.mod": GO_MOD, "calc.go": GO_BUGGY, "calc_test.go": GO_TESTS}
    )
    async with Client(build_server(Settings.build([project], env=dict(SAMPLE_ENV)))) as agent:
        made = await agent.call_tool(
            "create_contract",
            {
                "goal": "Fix Add.",
                "task_type": "bug",
                "out_of_scope": ["ui"],
                "functional": [
                    {
                        "criterion": "the tests pass",
                        "verification_method": "test",
                        "check": {"kind": "tests", "argv": ["go", "test", "./..."]},
                    }
                ],
            },
        )
        assert made.is_error is False, made.content
        (project / "zz_test.go").write_text(GO_FORGED, encoding="utf-8")
        result = await agent.call_tool(
            "evaluate",
            {"contract_id": made.structured_content["contract"]["id"]},  # type: ignore[index]
        )
        evaluation = result.structured_content
        assert evaluation is not None, result.content
        located = [
            a["location"] for a in evaluation["antipatterns"] if a["id"] == "harness_modified"
        ]
        assert located and located[0].startswith("zz_test.go:"), evaluation["antipatterns"]
        _, verdict = await decide(agent, judged(evaluation["draft_scorecard"]))
        assert verdict["decision"] != "DELIVER", verdict
