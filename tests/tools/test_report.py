"""Reports from a store filled by real evaluations, stored scorecards, an aggregate and
calibration."""

from __future__ import annotations

import base64
import html
import json
import re
import struct
import sys
import tempfile
import zlib
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple

import anyio
import pytest
from projects import SAMPLE_ENV, calc_repo, command_check, contract_for, pytest_check

from referee.tools.errors import NotFound
from referee.tools.evaluate.entry import EvaluateDeps, EvaluateInput, evaluate
from referee.tools.evidence.recorder import EvidenceRecorder
from referee.tools.evidence.redact import Redactor
from referee.tools.models.aggregate import AggregateResult, Alert, Scores
from referee.tools.models.evaluation import Evaluation, HealthDimension, ProjectHealth
from referee.tools.models.evidence import EvidenceSummary
from referee.tools.report import (
    analyse,
    build_report,
    contract_report,
    render_html,
    render_markdown,
    run_report,
)
from referee.tools.report.data import BrowserEvidence
from referee.tools.rubrics import (
    builtin_rubrics,
    compute_weighted,
    normalized,
    verdict_for,
)
from referee.tools.settings import Settings
from referee.tools.store import Store, load_run, save_run, save_scorecard
from referee.tools.store.aggregates import save_aggregate
from referee.tools.store.calibration import insert_calibration

SECTIONS = [
    "Summary",
    "What failed",
    "Dimension scores",
    "Findings (priority-ranked)",
    "Improvement priorities",
    "Anti-gaming results",
    "Alerts",
    "Criteria",
    "Test adequacy",
    "Trends",
    "Calibration",
    "Browser checks",
    "Evidence index",
]
LONG = "def long():\n" + "\n".join(f"    x{i} = {i}" for i in range(60)) + "\n    return x0\n"
HOSTILE = "<script>alert(1)</script> input is not validated, see https://example.com/docs"
RUBRIC = builtin_rubrics()["FEATURE_BACKEND"]


def _now() -> datetime:
    return datetime.now(UTC)


def tiny_png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00"))
        + chunk(b"IEND", b"")
    )


class Filled(NamedTuple):
    store: Store
    contract_id: str
    first: Evaluation
    second: Evaluation
    browser_run: str
    png: bytes


def _evaluate(store: Store, project: Path, contract_id: str, iteration: int) -> Evaluation:
    deps = EvaluateDeps(
        store=store, settings=Settings.build([project], env=dict(SAMPLE_ENV)), now=_now
    )
    return anyio.run(evaluate, EvaluateInput(contract_id=contract_id, iteration=iteration), deps)


def _card(
    contract_id: str,
    evaluator: str,
    iteration: int,
    scores: dict[str, int],
    issues: list[dict[str, Any]],
    run_id: str | None = None,
) -> dict[str, Any]:
    return {
        "contract_ref": contract_id,
        "evaluator": evaluator,
        "provider": "test",
        "iteration": iteration,
        "evaluator_prompt_version": "p1",
        "run_id": run_id,
        "dimensions": {
            k: {
                "score": v,
                "evidence": f"{k} judged {v} from E1",
                "recommendation": f"improve {k}" if v < 3 else "",
                "evidence_ids": ["E1"],
            }
            for k, v in scores.items()
        },
        "criteria": [
            {"id": "AC-F-001", "pass": True, "evidence": "E1"},
            {"id": "AC-F-002", "pass": False, "evidence": "E2"},
        ],
        "issues": issues,
        "dispatch_count": 1,
    }


def _save(store: Store, body: dict[str, Any], variant: str = "original") -> int:
    dims = {k: float(v["score"]) for k, v in body["dimensions"].items()}
    weighted = compute_weighted(RUBRIC, dims)
    computed = {
        "weighted_score": weighted,
        "normalized": normalized(RUBRIC, weighted),
        "verdict": verdict_for(RUBRIC, dims),
        "dimensions": dims,
        "scale_max": 3,
        "evaluator_prompt_version": "p1",
    }
    ident, _ = save_scorecard(
        store,
        contract_id=body["contract_ref"],
        evaluator=body["evaluator"],
        iteration=body["iteration"],
        format="referee",
        body=body,
        computed=computed,
        run_id=body["run_id"],
        stored_at=_now().isoformat(),
        variant=variant,
    )
    return ident


def _browser_run(store: Store, base: Evaluation, png: bytes, tmp: Path) -> str:
    run_id = "R20990101000000-browser1"
    shot = tmp / "shot.png"
    shot.write_bytes(png)
    recorder = EvidenceRecorder(run_id, store.run_artifacts(run_id), Redactor(), _now)
    for _ in base.evidence:  # the browser item follows the copied run's evidence ids
        recorder.next_id()
    item = recorder.record(
        tool="browser",
        summary="page shows Clicked",
        command="browser http://127.0.0.1:8000/",
        exit_code=0,
        extra_artifacts=[shot],
    )
    health = ProjectHealth(
        dimensions={"correctness": HealthDimension(score=0.5, confidence=0.8)},
        composite=0.55,
        band="NEEDS_WORK",
    )
    evaluation = base.model_copy(
        update={
            "run_id": run_id,
            "evidence": [*base.evidence, EvidenceSummary.of(item)],
            "project_health": health,
        }
    )
    save_run(store, evaluation, [item], "unsigned-test", created_at="2099-01-01T00:00:00+00:00")
    return run_id


def _aggregate(store: Store, contract_id: str) -> None:
    result = AggregateResult(
        contract_ref=contract_id,
        iteration=2,
        decision="REVISE",
        reason="judge asks for a revision",
        evaluator_verdicts={"judge": "REVISE", "ux": "ACCEPT"},
        scores=Scores(weighted=1.9, normalized=63.33),
        alerts=[
            Alert(
                kind="regression", dimension="craft", message="craft fell below its high-water mark"
            )
        ],
        quality_notes=["design held steady"],
    )
    save_aggregate(
        store,
        contract_id=contract_id,
        iteration=2,
        decision="REVISE",
        body=result.model_dump(mode="json"),
        created_at=_now().isoformat(),
    )


def _calibrate(store: Store, scorecard_id: int) -> None:
    insert_calibration(
        store,
        scorecard_id=scorecard_id,
        verdict="REVISE",
        note="the failing test decides it",
        created_at=_now().isoformat(),
    )


@pytest.fixture(scope="module")
def filled(tmp_path_factory: pytest.TempPathFactory) -> Filled:
    tmp = tmp_path_factory.mktemp("report")
    project = calc_repo(tmp / "calc")
    store = Store(project / ".referee")
    contract = contract_for(
        store,
        project,
        {
            "criterion": "calc adds",
            "verification_method": "test",
            "check": pytest_check("tests/test_calc.py"),
            "evaluator": "judge",
        },
        {
            "criterion": "more tests pass",
            "verification_method": "test",
            "check": pytest_check("tests/test_more.py"),
            "evaluator": "judge",
        },
        {"criterion": "reads well", "verification_method": "manual", "evaluator": "ux"},
        {
            "criterion": "secret behaviour",
            "verification_method": "test",
            "check": command_check("print(1)"),
            "evaluator": "judge",
            "holdout": True,
        },
        evaluators=["judge", "ux"],
    )
    (project / "src" / "long.py").write_text(LONG, encoding="utf-8")
    (project / "tests" / "test_more.py").write_text(
        "def test_wrong():\n    assert 1 == 2\n", encoding="utf-8"
    )
    first = _evaluate(store, project, contract.id, 1)
    with (project / ".gitignore").open("a", encoding="utf-8") as ignore:
        ignore.write("*.log\n")  # a new tree: iteration 2 is another evaluated tree
    second = _evaluate(store, project, contract.id, 2)
    finding = next(
        f for f in load_run(store, second.run_id).evaluation.findings if f.rule == "function_length"
    )
    dup = {"severity": "HIGH", "description": finding.message, "location": finding.location}
    hostile = {"severity": "MEDIUM", "description": HOSTILE, "location": "src/calc.py:1"}
    low = {"correctness": 1, "design_quality": 2, "functionality": 2, "craft": 2, "security": 3}
    _save(store, _card(contract.id, "judge", 1, low, [hostile], run_id=first.run_id))
    _save(store, _card(contract.id, "ux", 1, {**low, "design_quality": 3}, []))
    judged = _save(
        store,
        _card(
            contract.id,
            "judge",
            2,
            {**low, "functionality": 3},
            [dup, hostile],
            run_id=second.run_id,
        ),
    )
    _save(store, _card(contract.id, "ux", 2, {**low, "design_quality": 3, "craft": 3}, []))
    _save(
        store,
        _card(contract.id, "judge", 2, {**low, "functionality": 1, "design_quality": 1}, []),
        variant="perturbed",
    )
    _aggregate(store, contract.id)
    _calibrate(store, judged)
    png = tiny_png()
    browser = _browser_run(store, load_run(store, second.run_id).evaluation, png, tmp)
    return Filled(store, contract.id, first, second, browser, png)


def _report(filled: Filled):
    return contract_report(filled.store, filled.contract_id)


def test_contract_report_gathers_runs_scorecards_aggregate_and_calibration(filled: Filled) -> None:
    data = _report(filled)
    assert [r.run_id for r in data.runs] == [
        filled.first.run_id,
        filled.second.run_id,
        filled.browser_run,
    ]
    assert sorted({(c.evaluator, c.iteration, c.variant) for c in data.scorecards}) == [
        ("judge", 1, "original"),
        ("judge", 2, "original"),
        ("judge", 2, "perturbed"),
        ("ux", 1, "original"),
        ("ux", 2, "original"),
    ]
    assert data.aggregate is not None and data.aggregate.decision == "REVISE"
    assert [c.verdict for c in data.calibration] == ["REVISE"]
    assert data.rubric is not None and data.rubric.name == "FEATURE_BACKEND"


def test_markdown_has_every_section_in_order(filled: Filled) -> None:
    page = render_markdown(_report(filled))
    positions = [page.index(f"\n## {title}\n") for title in SECTIONS]
    assert positions == sorted(positions)
    assert page.startswith(f"# referee report: {filled.contract_id}")


def test_summary_names_decision_scores_health_and_gaming(filled: Filled) -> None:
    summary = analyse(_report(filled)).summary
    assert (summary.decision, summary.iteration, summary.weighted, summary.normalized) == (
        "REVISE",
        2,
        1.9,
        63.33,
    )
    assert summary.health is not None and summary.health.band == "NEEDS_WORK"
    assert summary.gaming == "gaming"
    page = render_markdown(_report(filled))
    assert "Decision: REVISE (iteration 2)" in page and "PROJECT_HEALTH: 0.55 NEEDS_WORK" in page


def test_priorities_follow_the_formula_and_are_ranked(filled: Filled) -> None:
    view = analyse(_report(filled))
    priorities = view.priorities
    assert priorities and [p.priority for p in priorities] == sorted(
        (p.priority for p in priorities), reverse=True
    )
    for p in priorities:
        assert p.priority == round((1 - p.score / p.max) * p.weight * p.feasibility, 4)
        assert p.score < p.max
    kinds = {p.key: (p.fix_kind, p.feasibility) for p in priorities}
    assert kinds["correctness"] == ("tests", 0.8)
    assert kinds["craft"] == ("static", 0.9)
    assert kinds["design_quality"] == ("judgment", 0.6)
    assert "security" not in kinds  # at the top of the scale
    assert priorities[0].key == "correctness"


def test_findings_merge_duplicates_and_rank_by_severity(filled: Filled) -> None:
    findings = analyse(_report(filled)).findings
    merged = next(f for f in findings if f.rule == "function_length")
    assert merged.sources == ["referee", "judge"] and merged.severity == "HIGH"
    assert len([f for f in findings if f.rule == "function_length"]) == 1
    order = {"CRITICAL": 0, "HIGH": 1, "MEDIUM": 2, "LOW": 3}
    assert [order[f.severity] for f in findings] == sorted(order[f.severity] for f in findings)


def test_anti_gaming_gives_g_per_evaluator_and_iteration(filled: Filled) -> None:
    view = analyse(_report(filled))
    (row,) = view.gaming
    assert (row.evaluator, row.iteration, row.band) == ("judge", 2, "gaming")
    assert row.g == round(abs(row.original - row.perturbed) / row.original, 4)
    assert "| judge | 2 |" in render_markdown(_report(filled))


def test_criteria_table_marks_holdouts_and_covers_every_iteration(filled: Filled) -> None:
    view = analyse(_report(filled))
    holdout = next(c for c in view.criteria if c.holdout)
    assert holdout.id == "AC-F-004" and set(holdout.cells) == {1, 2}
    failing = next(c for c in view.criteria if c.id == "AC-F-002")
    assert failing.cells[2] == "fail / fail"
    assert "AC-F-004 (hold-out)" in render_markdown(_report(filled))


def test_trends_have_one_value_per_iteration(filled: Filled) -> None:
    trends = analyse(_report(filled)).trends
    assert trends.iterations == [1, 2]
    assert len(trends.overall.values) == 2 and len(trends.overall.spark) == 2
    functionality = next(t for t in trends.dimensions if t.label == "functionality")
    assert functionality.values == [2.0, 2.5]


def test_alerts_come_from_the_latest_aggregate(filled: Filled) -> None:
    page = render_markdown(_report(filled))
    assert "| regression | craft | craft fell below its high-water mark |" in page
    assert "Quality note: design held steady" in page


def test_evidence_index_lists_every_item_and_the_screenshot(filled: Filled) -> None:
    view = analyse(_report(filled))
    browser_id = f"E{len(filled.second.evidence) + 1}"
    assert {(e.run_id, e.id) for e in view.evidence} >= {
        (filled.browser_run, browser_id),
        (filled.first.run_id, "E1"),
    }
    (check,) = view.browser_checks
    assert check.run_id == filled.browser_run and Path(check.screenshot or "").read_bytes() == (
        filled.png
    )


def test_html_is_self_contained_and_embeds_the_screenshot(filled: Filled) -> None:
    page = render_html(_report(filled))
    assert page.startswith("<!DOCTYPE html>") and "<style>" in page
    assert "data:image/png;base64," + base64.b64encode(filled.png).decode("ascii") in page
    # Nothing is fetched: images are data: URIs, links go to the page's own sections.
    assert not re.search(r"""\b(?:src|href|action)\s*=\s*(?!["']?(?:data:|#))""", page, re.I)
    assert (
        "<link" not in page
        and "<script" not in page
        and "url(" not in page
        and "@import" not in page
    )
    for match in re.finditer(r"https?://", page):
        assert page[max(0, match.start() - 6) : match.start()] not in ('src="', 'href="')
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    for title in SECTIONS:
        assert f"<h2>{title}</h2>" in page.replace("&amp;", "&")


def test_run_report_covers_one_run_and_its_scorecards(filled: Filled) -> None:
    data = run_report(filled.store, filled.first.run_id)
    assert data.kind == "run" and [r.run_id for r in data.runs] == [filled.first.run_id]
    assert {(c.evaluator, c.iteration) for c in data.scorecards} == {("judge", 1), ("ux", 1)}
    page = render_markdown(data)
    assert page.startswith(f"# referee report: run {filled.first.run_id}")
    assert build_report(filled.store, filled.first.run_id).subject == filled.first.run_id


@pytest.mark.parametrize("report_id", ["SC-missing-20260101", "R20260101000000-nothing", "bogus"])
def test_an_unknown_id_is_not_found(filled: Filled, report_id: str) -> None:
    with pytest.raises(NotFound) as caught:
        build_report(filled.store, report_id)
    assert report_id in str(caught.value)


def test_a_contract_with_nothing_stored_yet_still_reports(tmp_path: Path) -> None:
    project = calc_repo(tmp_path / "calc")
    store = Store(project / ".referee")
    contract = contract_for(
        store, project, {"criterion": "reads well", "verification_method": "manual"}
    )
    data = contract_report(store, contract.id)
    page = render_markdown(data)
    assert "Decision: none yet" in page and "no perturbed re-scoring stored" in page
    assert json.loads(analyse(data).model_dump_json())["summary"]["gaming"] == "not run"
    assert "<h2>Evidence index</h2>" in render_html(data)


def test_the_report_shows_agreement_with_humans_per_prompt_version(tmp_path: Path) -> None:
    from aggregate_cards import card, store_card, two_evaluator_contract
    from gitrepo import make_repo

    from referee.tools.calibration import record_human_verdict
    from referee.tools.report import contract_report, render_markdown
    from referee.tools.store import Store, scorecards_for

    repo = make_repo(tmp_path / "r")
    store = Store(repo / ".referee")
    contract = two_evaluator_contract(store, repo, max_iterations=3)
    store_card(store, contract, card(contract, "judge", 1, 3))
    store_card(store, contract, card(contract, "radar", 1, 1))
    for stored, verdict in zip(
        scorecards_for(store, contract.id), ("ACCEPT", "ACCEPT"), strict=True
    ):
        record_human_verdict(
            stored.id,
            verdict,
            "checked by hand",
            store=store,
            now=lambda: datetime.now(UTC),
        )
    text = render_markdown(contract_report(store, contract.id))
    assert "Cohen's kappa" in text and "50%" in text


# The report as a developer's page: the verdict first, a table of contents, what failed first and
# in full, Playwright's messages as they are, the check's own command, no machine paths.

PLAYWRIGHT_ERROR = (
    "locator.click: Timeout 5000ms exceeded.\n"
    "Call log:\n"
    "  - waiting for locator('#buy')\n"
    '    - locator resolved to <button id="buy" disabled>Buy</button>\n'
    "  - attempting click action\n"
    "    - element is not enabled\n"
    "  - retrying click action\n"
    "    - element is not enabled\n"
    "  - retrying click action\n"
    "    - element is not enabled\n"
)


def _browser(criterion: str, status: str, n: int, error: str = "") -> BrowserEvidence:
    step = {"phase": "step", "number": 1, "action": "click", "target": "#buy", "ok": not error}
    if error:
        step["error"] = error
    return BrowserEvidence(
        run_id="R20990101000000-browser1",
        iteration=2,
        evidence_id=f"E{100 + n}",
        criterion_id=criterion,
        summary=f"check {n}",
        outcome={"status": status, "reason": f"reason {n}", "steps": [step], "expectations": []},
    )


def test_the_page_opens_with_the_verdict_and_a_table_of_contents(filled: Filled) -> None:
    page = render_markdown(_report(filled))
    lines = page.splitlines()
    assert lines[0] == f"# referee report: {filled.contract_id}"
    assert lines[2].startswith("> **REVISE** · iteration 2 of at most")
    contents = lines[4]
    for title in SECTIONS:
        assert f"[{title}](#" in contents
    for anchor in re.findall(r"\]\(#([\w-]+)\)", contents):
        heading = next(h for h in lines if h.startswith("## ") and _slug(h[3:]) == anchor)
        assert heading
    html_page = render_html(_report(filled))
    assert '<p class="badge badge-REVISE"><strong>REVISE</strong>' in html_page
    for anchor in re.findall(r'href="#([^"]+)"', html_page):
        assert f'<section id="{anchor}">' in html_page


def _slug(title: str) -> str:
    return re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")


def test_what_failed_comes_first_with_the_reason_and_the_checks_own_command(
    filled: Filled,
) -> None:
    page = render_markdown(_report(filled))
    failed = page.index("\n## What failed\n")
    assert failed < page.index("\n## Dimension scores\n")
    section = page[failed : page.index("\n## Dimension scores\n")]
    assert "Check: `python -m pytest -q tests/test_more.py`" in section
    assert "tests/test_more.py::test_wrong" in section
    # what referee wrapped the command in is not what a developer types
    assert "referee_coverage" not in page and "junit" not in section.lower()


def test_every_failing_browser_check_is_shown_before_the_passing_ones(filled: Filled) -> None:
    data = _report(filled)
    criterion = data.contract.all_criteria()[0].id
    passing = [_browser(criterion, "pass", n) for n in range(20)]
    failing = [_browser(criterion, "fail", n, PLAYWRIGHT_ERROR) for n in range(20, 34)]
    data = data.model_copy(update={"browser": passing[:10] + failing + passing[10:]})
    page = render_markdown(data)
    section = page[page.index("\n## Browser checks\n") : page.index("\n## Evidence index\n")]
    for n in range(20, 34):  # all 14 failing, though more than the 12 a page shows
        assert f"(R20990101000000-browser1 E{100 + n})" in section
    assert "— pass" not in section and "… 20 more passing browser checks" in section
    assert "14 failing browser checks in full under Browser checks" in page
    data = data.model_copy(update={"browser": passing[:10] + failing[:3] + passing[10:]})
    page = render_markdown(data)
    section = page[page.index("\n## Browser checks\n") : page.index("\n## Evidence index\n")]
    assert section.count("— fail") == 3 and section.count("— pass") == 9
    assert section.rindex("— fail") < section.index("— pass")
    assert "… 11 more passing browser checks" in section


def test_playwrights_messages_are_kept_verbatim(filled: Filled) -> None:
    data = _report(filled)
    criterion = data.contract.all_criteria()[0].id
    data = data.model_copy(update={"browser": [_browser(criterion, "fail", 1, PLAYWRIGHT_ERROR)]})
    page = render_markdown(data)
    assert "```text\n" + PLAYWRIGHT_ERROR.rstrip() + "\n```" in page
    html_page = render_html(data)
    assert "<pre><code>" + html.escape(PLAYWRIGHT_ERROR) in html_page


def test_no_machine_path_reaches_the_page(filled: Filled) -> None:
    data = _report(filled)
    assert data.repo_root and data.store_home
    for page in (render_markdown(data), render_html(data)):
        for path in (data.repo_root, data.store_home, sys.prefix, tempfile.gettempdir() + "/"):
            assert path not in page, path
    # the screenshot is still embedded in the HTML page, read from where it is stored
    assert "data:image/png;base64," in render_html(data)


def test_markdown_keeps_html_inside_code_spans_and_escapes_it_outside(filled: Filled) -> None:
    data = _report(filled)
    criterion = data.contract.all_criteria()[0].id
    row = _browser(criterion, "fail", 1)
    row.outcome["reason"] = "`<button disabled>` is shown instead of <b>the form</b>"
    page = render_markdown(data.model_copy(update={"browser": [row]}))
    assert "Reason: `<button disabled>` is shown instead of &lt;b&gt;the form&lt;/b&gt;" in page
