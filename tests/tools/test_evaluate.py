"""evaluate through its core, with real fixture projects in tmp_path."""

from __future__ import annotations

import json
import os
import tempfile
from datetime import UTC, datetime
from pathlib import Path

import pytest
from projects import (
    PY,
    SAMPLE_ENV,
    calc_repo,
    command_check,
    commit_all,
    contract_for,
    pytest_check,
)

from referee.tools.errors import InvalidInput
from referee.tools.evaluate.compact import compact, size_of
from referee.tools.evaluate.draft import DRAFT_ISSUES, drafted_issues
from referee.tools.evaluate.entry import EvaluateDeps, EvaluateInput, evaluate
from referee.tools.evidence.signing import verify
from referee.tools.models.evaluation import Evaluation, EvaluationIssue
from referee.tools.process import tagged_pids
from referee.tools.settings import Settings
from referee.tools.store import Store, load_run

pytestmark = pytest.mark.anyio

GITHUB_TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return calc_repo(tmp_path / "calc")


@pytest.fixture
def store(project: Path) -> Store:
    return Store(project / ".referee")


def deps(store: Store, project: Path, **kw: object) -> EvaluateDeps:
    return EvaluateDeps(
        store=store,
        settings=Settings.build([project], env=dict(SAMPLE_ENV)),
        now=lambda: datetime.now(UTC),
        **kw,
    )  # type: ignore[arg-type]


async def run(store: Store, project: Path, contract_id: str, **kw: object):
    return await evaluate(EvaluateInput(contract_id=contract_id, **kw), deps(store, project))  # type: ignore[arg-type]


def by_id(result, ident: str):
    return next(c for c in result.criteria if c.id == ident)


async def test_passing_suite_passes_and_cites_resolvable_evidence(
    store: Store, project: Path
) -> None:
    contract = contract_for(
        store,
        project,
        {"criterion": "calc works", "verification_method": "test", "check": pytest_check("tests")},
    )
    result = await run(store, project, contract.id)
    crit = by_id(result, "AC-F-001")
    assert crit.pass_ is True and crit.status == "pass" and "2 passed" in crit.reason
    stored = load_run(store, result.run_id)
    assert set(crit.evidence_ids) <= set(stored.evidence)
    item = stored.evidence[crit.evidence_ids[0]]
    assert (
        item.tool == "tests"
        and item.exit_code == 0
        and [t.outcome for t in item.tests] == ["passed", "passed"]
    )
    assert any(a.endswith("pytest.xml") for a in item.artifacts)
    assert item.details["runner"] == "pytest" and item.details["report_format"] == "junit"


async def test_failing_suite_fails_with_the_failing_test_named(store: Store, project: Path) -> None:
    (project / "tests" / "test_more.py").write_text(
        "def test_wrong():\n    assert 1 == 2\n", encoding="utf-8"
    )
    contract = contract_for(
        store,
        project,
        {"criterion": "all green", "verification_method": "test", "check": pytest_check("tests")},
    )
    crit = by_id(await run(store, project, contract.id), "AC-F-001")
    assert crit.pass_ is False and crit.status == "fail" and "test_wrong" in crit.reason


async def test_zero_collected_tests_is_a_failed_check(store: Store, project: Path) -> None:
    (project / "empty").mkdir()
    (project / "empty" / "test_nothing.py").write_text("x = 1\n", encoding="utf-8")
    contract = contract_for(
        store,
        project,
        {"criterion": "tests", "verification_method": "test", "check": pytest_check("empty")},
    )
    crit = by_id(await run(store, project, contract.id), "AC-F-001")
    assert crit.pass_ is False and crit.status == "fail" and "no test ran" in crit.reason


async def test_missing_runner_is_unscored_never_passed(store: Store, project: Path) -> None:
    contract = contract_for(
        store,
        project,
        {
            "criterion": "tests",
            "verification_method": "test",
            "check": {
                "kind": "tests",
                "argv": ["no-such-runner-xyz", "--test"],
                "junit": "report.xml",
            },
        },
    )
    result = await run(store, project, contract.id)
    crit = by_id(result, "AC-F-001")
    assert crit.pass_ is False and crit.status == "unscored" and "could not start" in crit.reason
    # A check that could not run says nothing about the
    # code: correctness is left to judgement, not 0.
    assert result.dimensions["correctness"].score is None


@pytest.mark.slow
async def test_hanging_command_with_a_grandchild_times_out_and_leaves_nothing(
    store: Store, project: Path
) -> None:
    hang = (
        "import subprocess, sys, time\nsubprocess.Popen([sys.executable, '-c', 'import os, time;"
        " os.setsid(); time.sleep(61.25)'])\ntime.sleep(61.25)\n"
    )
    (project / "hang.py").write_text(hang, encoding="utf-8")
    contract = contract_for(
        store,
        project,
        {
            "criterion": "hangs",
            "verification_method": "test",
            "check": {"kind": "command", "argv": [PY, "hang.py"], "timeout_s": 1.5},
        },
    )
    before = set(_all_pids())
    result = await run(store, project, contract.id)
    crit = by_id(result, "AC-F-001")
    assert crit.status == "unscored" and crit.pass_ is False and "timed out" in crit.reason
    leftovers = [p for p in set(_all_pids()) - before if _cmdline(p).endswith("time.sleep(61.25)")]
    assert leftovers == []


def _all_pids() -> list[int]:
    return [int(d) for d in os.listdir("/proc") if d.isdigit()]


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode().strip()
    except OSError:
        return ""


async def test_crashing_command_fails_with_its_signal(store: Store, project: Path) -> None:
    contract = contract_for(
        store,
        project,
        {
            "criterion": "runs",
            "verification_method": "test",
            "check": command_check("import os; os.abort()"),
        },
    )
    crit = by_id(await run(store, project, contract.id), "AC-F-001")
    assert crit.status == "fail" and "-6" in crit.reason


async def test_secrets_printed_by_a_check_never_reach_output_or_storage(
    store: Store, project: Path
) -> None:
    (project / "settings.txt").write_text(f"token={GITHUB_TOKEN}\n", encoding="utf-8")
    contract = contract_for(
        store,
        project,
        {
            "criterion": "prints",
            "verification_method": "test",
            "check": command_check("print(open('settings.txt').read())"),
        },
    )
    result = await run(store, project, contract.id)
    assert any(
        f.rule == "hardcoded_secrets" and f.location == "settings.txt:1" for f in result.findings
    )
    assert GITHUB_TOKEN not in result.model_dump_json()
    for path in (project / ".referee").rglob("*"):
        if path.is_file():
            assert GITHUB_TOKEN.encode() not in path.read_bytes(), path
    item = load_run(store, result.run_id).evidence[by_id(result, "AC-F-001").evidence_ids[0]]
    assert "REDACTED" in item.stdout


async def test_checks_that_write_into_the_tree_are_reported(store: Store, project: Path) -> None:
    contract = contract_for(
        store,
        project,
        {
            "criterion": "writes",
            "verification_method": "test",
            "check": command_check("open('debris.txt', 'w').write('x')"),
        },
    )
    result = await run(store, project, contract.id)
    assert result.tree_changed.changed and result.tree_changed.paths == ["debris.txt"]
    assert any("debris.txt" in i.description for i in result.issues)


async def test_a_test_skipped_since_base_is_an_antipattern(store: Store, project: Path) -> None:
    contract = contract_for(
        store,
        project,
        {"criterion": "tests", "verification_method": "test", "check": pytest_check("tests")},
    )
    text = (project / "tests" / "test_calc.py").read_text(encoding="utf-8")
    (project / "tests" / "test_calc.py").write_text(
        "import pytest\n"
        + text.replace("def test_add_negative", "@pytest.mark.skip\ndef test_add_negative"),
        encoding="utf-8",
    )
    result = await run(store, project, contract.id)
    assert [a.id for a in result.antipatterns] == ["test_skipped"]
    assert result.antipatterns[0].location.startswith("tests/test_calc.py:")
    assert result.draft_scorecard.antipatterns_detected[0].id == "test_skipped"


async def test_must_fail_at_base_passes_only_for_a_real_fix(store: Store, project: Path) -> None:
    (project / "src" / "calc.py").write_text(
        "def add(a, b):\n    return a - b if b < 0 else a + b\n", encoding="utf-8"
    )
    commit_all(project, "buggy")
    contract = contract_for(
        store,
        project,
        {
            "criterion": "negatives add up",
            "verification_method": "test",
            "check": pytest_check("tests", must_fail_at_base=True),
        },
        task_type="bug",
    )
    (project / "src" / "calc.py").write_text("def add(a, b):\n    return a + b\n", encoding="utf-8")
    crit = by_id(await run(store, project, contract.id), "AC-F-001")
    assert crit.status == "pass" and len(crit.evidence_ids) == 3  # the base before and after
    assert (
        "1 test fails at base and passes now: tests/test_calc.py::test_add_negative" in crit.reason
    )


async def test_must_fail_at_base_fails_when_the_test_already_passed(
    store: Store, project: Path
) -> None:
    contract = contract_for(
        store,
        project,
        {
            "criterion": "adds",
            "verification_method": "test",
            "check": pytest_check("tests", must_fail_at_base=True),
        },
        task_type="bug",
    )
    crit = by_id(await run(store, project, contract.id), "AC-F-001")
    assert crit.status == "fail" and "passes at base too" in crit.reason


async def test_static_findings_have_file_and_line_and_feed_dimensions(
    store: Store, project: Path
) -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(60))
    (project / "src" / "long.py").write_text(
        f"def long():\n{body}\n    return x0\n", encoding="utf-8"
    )
    contract = contract_for(
        store,
        project,
        {
            "criterion": "short functions",
            "verification_method": "static",
            "check": {"kind": "static", "rule": "function length"},
        },
    )
    result = await run(store, project, contract.id)
    assert by_id(result, "AC-F-001").status == "fail"
    finding = next(f for f in result.findings if f.rule == "function_length")
    assert finding.location == "src/long.py:1"
    assert (
        result.dimensions["craft"].source == "deterministic"
        and result.dimensions["craft"].score < 3
    )


async def test_manual_criteria_and_judgment_dimensions_need_judgment(
    store: Store, project: Path
) -> None:
    contract = contract_for(
        store, project, {"criterion": "readable", "verification_method": "manual"}
    )
    result = await run(store, project, contract.id)
    assert by_id(result, "AC-F-001").pass_ is None
    assert (
        result.needs_judgment.criteria == ["AC-F-001"]
        and "design_quality" in result.needs_judgment.dimensions
    )
    assert result.verdict is None and result.draft_scorecard.criteria[0].pass_ is None


async def test_stored_run_is_signed(store: Store, project: Path) -> None:
    contract = contract_for(
        store,
        project,
        {"criterion": "adds", "verification_method": "test", "check": pytest_check("tests")},
    )
    result = await run(store, project, contract.id)
    stored = load_run(store, result.run_id)
    assert verify(store.key, stored.evaluation, list(stored.evidence.values()), result.signature)
    assert (
        result.draft_scorecard.signature == result.signature
        and result.draft_scorecard.run_id == result.run_id
    )


async def test_worktree_isolation_evaluates_a_commit_and_removes_the_worktree(
    store: Store, project: Path
) -> None:
    contract = contract_for(
        store,
        project,
        {"criterion": "adds", "verification_method": "test", "check": pytest_check("tests")},
    )
    (project / "tests" / "test_calc.py").write_text(
        "def test_broken():\n    assert False\n", encoding="utf-8"
    )
    result = await run(store, project, contract.id, ref="HEAD")
    assert by_id(result, "AC-F-001").status == "pass"
    assert result.isolation == "worktree" and not result.target.dirty
    assert not list((Path(tempfile.gettempdir()) / "referee-worktrees").glob("wt-*"))
    assert not (store.home / "worktrees").exists()  # never inside referee's store


async def test_an_iteration_is_one_tree_for_every_evaluator(store: Store, project: Path) -> None:
    contract = contract_for(
        store,
        project,
        {"criterion": "a", "verification_method": "manual", "evaluator": "x"},
        {"criterion": "b", "verification_method": "manual", "evaluator": "y"},
    )
    everyone = await run(store, project, contract.id)
    first = await run(store, project, contract.id, evaluator="x")
    other = await run(store, project, contract.id, evaluator="y")
    again = await run(store, project, contract.id, evaluator="x")
    assert (everyone.iteration, first.iteration, other.iteration, again.iteration) == (1, 1, 1, 1)
    assert [c.id for c in other.criteria] == ["AC-F-002"]
    (project / "src" / "calc.py").write_text("def add(a, b):\n    return b + a\n", "utf-8")
    changed = await run(store, project, contract.id, evaluator="y")
    assert changed.iteration == 2
    assert (await run(store, project, contract.id, evaluator="x")).iteration == 2


async def test_unknown_evaluator_is_invalid_input(store: Store, project: Path) -> None:
    contract = contract_for(store, project, {"criterion": "a", "verification_method": "manual"})
    with pytest.raises(InvalidInput) as caught:
        await run(store, project, contract.id, evaluator="ghost")
    assert caught.value.problems[0].path == "/evaluator"


async def test_progress_is_reported_for_every_step(store: Store, project: Path) -> None:
    contract = contract_for(
        store,
        project,
        {"criterion": "a", "verification_method": "test", "check": pytest_check("tests")},
    )
    seen: list[tuple[float, float | None, str]] = []

    async def progress(done: float, total: float | None, message: str) -> None:
        seen.append((done, total, message))

    await evaluate(
        EvaluateInput(contract_id=contract.id), deps(store, project, on_progress=progress)
    )
    assert [s[0] for s in seen] == [1, 2, 3] and all(s[1] == 3 for s in seen)


async def test_result_stays_within_the_compact_budget(store: Store, project: Path) -> None:
    for i in range(40):
        (project / "src" / f"todo{i}.py").write_text(
            "# TODO a\n# TODO b\n# TODO c\n# TODO d\n# TODO e\n# TODO f\n", encoding="utf-8"
        )
    contract = contract_for(
        store,
        project,
        {"criterion": "a", "verification_method": "test", "check": pytest_check("tests")},
    )
    result = await run(store, project, contract.id)
    assert len(result.model_dump_json(by_alias=True)) <= 16 * 1024
    assert result.findings_total >= 40 and result.omitted
    kinds = [note.split(":")[0].split(" cut")[0] for note in result.omitted]
    assert len(kinds) == len(set(kinds)), result.omitted  # each kind of cut named once
    cut = result.findings_total - len(result.findings)
    assert f"findings: {cut} more in report://{result.run_id}" in result.omitted
    assert json.loads(result.model_dump_json())["run_id"] == result.run_id
    assert tagged_pids(result.run_id) == []
    # A deeper machine path (a CI runner's temp folder) lengthens every artifact path and command:
    # the result still fits, and says where the cut parts are.
    deep = "/" + "d" * 1500
    for item in result.evidence:
        item.command = f"{deep}/bin/python -m pytest {deep}/tests"
        item.artifacts = [f"{deep}/.referee/artifacts/{result.run_id}/{item.id}.{n}" for n in "abc"]
    again = compact(result, 16 * 1024)
    assert size_of(again) <= 16 * 1024, again.omitted
    assert f"evidence.artifacts: in evidence://{result.run_id}/{{id}}" in again.omitted
    assert [c.reason for c in again.criteria] == [c.reason for c in result.criteria]


async def test_project_scope_scores_project_health(store: Store, project: Path) -> None:
    contract = contract_for(
        store,
        project,
        {"criterion": "a", "verification_method": "test", "check": pytest_check("tests")},
    )
    result = await run(store, project, contract.id, scope="project")
    health = result.project_health
    assert health is not None and set(health.dimensions) == {
        "correctness",
        "security",
        "maintainability",
        "architecture",
        "completeness",
        "evolution",
    }
    assert health.dimensions["correctness"].score == 1.0 and health.band in ("STRONG", "ADEQUATE")
    assert 0 <= health.composite <= 1


async def test_a_repository_that_ignores_referee_itself_is_hashed(
    store: Store, project: Path
) -> None:
    (project / ".gitignore").write_text("__pycache__/\n.referee/\n", encoding="utf-8")
    commit_all(project, "ignore referee")
    contract = contract_for(
        store,
        project,
        {"criterion": "a", "verification_method": "test", "check": pytest_check("tests")},
    )
    result = await run(store, project, contract.id)
    assert by_id(result, "AC-F-001").status == "pass" and not result.tree_changed.changed


@pytest.mark.slow
async def test_deep_depth_offers_a_perturbed_copy_whose_tests_still_pass(
    store: Store, project: Path
) -> None:
    (project / "src" / "calc.py").write_text(
        '# adds numbers\ndef add(a, b):\n    """Sum."""\n    result = a + b\n    return result\n',
        encoding="utf-8",
    )
    (project / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    commit_all(project, "ini")
    (project / "src" / "calc.py").write_text(
        '# adds numbers, carefully\ndef add(a, b):\n    """Sum."""\n    total = a + b\n    return'
        " total\n",
        encoding="utf-8",
    )
    result = await _deep(store, project)
    perturbation = result.perturbation
    assert perturbation is not None and perturbation.files == ["src/calc.py"]
    copy = (Path(perturbation.path) / "src" / "calc.py").read_text(encoding="utf-8")
    assert "carefully" not in copy and "total" not in copy
    assert perturbation.semantics_kept is True and perturbation.evidence_ids
    assert not result.tree_changed.changed


@pytest.mark.slow
async def test_tests_that_fail_on_the_perturbed_copy_are_an_issue(
    store: Store, project: Path
) -> None:
    """A test that passes only while a local variable keeps its name: the copy that means the
    same fails it, and the judge is told (round 15b: a test choosing by how the code is written
    got through at depth `deep` with nothing said)."""
    (project / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    commit_all(project, "ini")
    (project / "src" / "calc.py").write_text(
        "def add(a, b):\n    total = a + b\n    return total\n", encoding="utf-8"
    )
    (project / "tests" / "test_names.py").write_text(
        "from calc import add\n\n\ndef test_named():\n"
        "    assert 'total' in add.__code__.co_varnames\n",
        encoding="utf-8",
    )
    result = await _deep(store, project)
    assert result.perturbation is not None and result.perturbation.semantics_kept is False
    assert any("means the same" in i.description for i in result.issues), result.issues


async def _deep(store: Store, project: Path) -> Evaluation:
    """The project's tests as one criterion, evaluated at depth `deep`."""
    contract = contract_for(
        store,
        project,
        {"criterion": "a", "verification_method": "test", "check": pytest_check("tests")},
    )
    return await run(store, project, contract.id, depth="deep")


async def test_env_references_are_taken_from_the_server_environment(
    store: Store, project: Path
) -> None:
    contract = contract_for(
        store,
        project,
        {
            "criterion": "token set",
            "verification_method": "test",
            "check": command_check(
                "import hashlib, os, sys; sys.exit(0 if"
                " hashlib.sha1(os.environ['SERVICE_TOKEN'].encode()).hexdigest() == '"
                + __import__("hashlib").sha1(b"from-server-env-123").hexdigest()
                + "' else 1)",
                env={**SAMPLE_ENV, "SERVICE_TOKEN": "${SERVICE_TOKEN}"},
            ),
        },
    )
    settings = Settings.build([project], env={**SAMPLE_ENV, "SERVICE_TOKEN": "from-server-env-123"})
    deps_ = EvaluateDeps(store=store, settings=settings, now=lambda: datetime.now(UTC))
    result = await evaluate(EvaluateInput(contract_id=contract.id), deps_)
    assert by_id(result, "AC-F-001").status == "pass"
    assert "from-server-env-123" not in contract.model_dump_json()


async def test_project_scope_analyses_the_whole_project_and_every_criterions_paths(
    store: Store, project: Path
) -> None:
    """`in_scope` says what the task is about; it hides no file from a project evaluation, and a
    static criterion reads the files its `paths` name."""
    long = "def sprawl():\n" + "".join(f"    x{i} = {i}\n" for i in range(70)) + "    return 0\n"
    (project / "legacy").mkdir()
    (project / "legacy" / "old.py").write_text(long, encoding="utf-8")
    (project / "src" / "new.py").write_text(long.replace("sprawl", "fresh"), encoding="utf-8")
    commit_all(project)
    checked = {"criterion": "a", "verification_method": "test", "check": pytest_check("tests")}
    scoped = contract_for(store, project, checked, in_scope=["src/", "the calculator"])

    whole = await run(store, project, scoped.id, scope="project")

    assert {"legacy/old.py", "src/new.py"} <= {f.location.split(":")[0] for f in whole.findings}


async def test_a_static_criterions_paths_are_analysed_at_task_scope(
    store: Store, project: Path
) -> None:
    long = "def sprawl():\n" + "".join(f"    x{i} = {i}\n" for i in range(70)) + "    return 0\n"
    (project / "src" / "report.py").write_text(long, encoding="utf-8")
    commit_all(project)
    check = {
        "kind": "static",
        "rule": "function_length",
        "paths": ["src/report.py"],
        "baseline": "include",
    }
    contract = contract_for(
        store,
        project,
        {"criterion": "short functions", "verification_method": "static", "check": check},
    )
    (project / "src" / "calc.py").write_text("def add(a, b):\n    return a + b\n")

    result = await run(store, project, contract.id)

    criterion = by_id(result, "AC-F-001")
    assert criterion.status == "fail", criterion.reason
    assert "src/report.py" in criterion.reason


def test_the_draft_lists_every_urgent_issue_and_fills_up_to_its_bound() -> None:
    def issues(severity: str, count: int) -> list[EvaluationIssue]:
        return [
            EvaluationIssue(severity=severity, description=f"{severity} {i}") for i in range(count)
        ]

    few = issues("HIGH", 3) + issues("MEDIUM", 40)
    assert [i.description for i in drafted_issues(few)] == [
        i.description for i in few[:DRAFT_ISSUES]
    ]
    many = issues("CRITICAL", 2) + issues("HIGH", 30) + issues("LOW", 5)
    assert drafted_issues(many) == many[:32]
