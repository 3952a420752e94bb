"""The viewer's core: what each page shows, gathered from a store filled by real evaluations,
validated scorecards and aggregates; the generator's view; escaping; recording a human verdict."""

from __future__ import annotations

import html
import re
import sqlite3
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest
from projects import contract_for
from runs import record_run
from viewed import HOLDOUT_TEXT, HOSTILE, PLAYWRIGHT_MESSAGE, Viewed, browser_run, filled_view

from referee.tools.calibration import calibration_report
from referee.tools.errors import InvalidInput
from referee.tools.store import Store
from referee.tools.store.calibration import calibration_rows
from referee.tools.view import (
    Context,
    Filters,
    RowCache,
    VerdictForm,
    links,
    page_for,
    page_names,
    record_verdict,
)
from referee.tools.view.compare import calibration_page, compare_page
from referee.tools.view.gather import contract_page, contracts_page
from referee.tools.view.html import calibration_html
from referee.tools.view.pages import ContractRow
from referee.tools.view.run import run_page, scorecard_page


@pytest.fixture(scope="module")
def viewed(tmp_path_factory: pytest.TempPathFactory, data_home: Path) -> Iterator[Viewed]:
    yield from filled_view(tmp_path_factory, data_home)


def _every_page(v: Viewed, audience: str) -> dict[str, str]:
    return {
        name: page_for(v.store, name, audience, Context()).body  # type: ignore[arg-type]
        for name in page_names(v.store, audience)  # type: ignore[arg-type]
    }


def test_the_contracts_list_shows_decision_iteration_and_last_activity(viewed: Viewed) -> None:
    page = contracts_page(viewed.store, "evaluator", Filters())
    (row,) = page.rows
    assert (row.id, row.decision, row.iteration, row.max_iterations) == (
        viewed.contract_id,
        "DELIVER",
        2,
        3,
    )
    assert row.last_activity[:4] == str(datetime.now(UTC).year)


@pytest.mark.parametrize(
    ("filters", "shown"),
    [
        (Filters(decision="DELIVER"), 1),
        (Filters(decision="REVISE"), 0),
        (Filters(evaluator="evaluator"), 1),
        (Filters(evaluator="nobody"), 0),
        (Filters(q="sample project"), 1),
        (Filters(q="unrelated"), 0),
        (Filters(since="2000-01-01", until="2999-12-31"), 1),
        (Filters(until="2000-01-01"), 0),
    ],
)
def test_the_contracts_list_filters_by_decision_evaluator_date_and_words(
    viewed: Viewed, filters: Filters, shown: int
) -> None:
    page = contracts_page(viewed.store, "evaluator", filters)
    assert (len(page.rows), page.total) == (shown, 1)


def _rows(n: int) -> list[ContractRow]:
    return [
        ContractRow(f"SC-c{i}-20260101", "goal", "REVISE", 1, 3, f"2026-01-{i + 1:02d}", ("a",))
        for i in range(n)
    ]


@pytest.mark.parametrize(("page", "first", "shown"), [(1, 0, 2), (2, 2, 2), (3, 4, 1), (9, 4, 1)])
def test_the_running_apps_list_comes_a_page_at_a_time(
    viewed: Viewed, page: int, first: int, shown: int
) -> None:
    rows = _rows(5)
    found = contracts_page(viewed.store, "evaluator", Filters(page=page), rows, page_size=2)
    assert found.rows == rows[first : first + shown]
    assert (found.pages, found.matching, found.total) == (3, 5, 5)


def test_the_list_cache_is_kept_until_the_store_changes(viewed: Viewed) -> None:
    cache = RowCache(viewed.store)
    first = cache.rows("evaluator")
    assert cache.rows("evaluator").rows is first.rows and not first.updating
    record_verdict(viewed.store, viewed.cards[1], VerdictForm("agree", "", ""), _now)
    stale = cache.rows("evaluator")  # served at once, gathered again in the background
    assert stale.updating and stale.rows is first.rows
    cache.wait()
    again = cache.rows("evaluator")
    assert not again.updating and again.rows is not first.rows and again.rows == first.rows


def test_the_calibration_page_is_kept_until_the_store_changes(viewed: Viewed) -> None:
    cache = RowCache(viewed.store)
    first = cache.calibration()
    assert cache.calibration().page is first.page and not first.updating
    record_verdict(viewed.store, viewed.cards[1], VerdictForm("agree", "", ""), _now)
    stale = cache.calibration()
    assert stale.updating and stale.page is first.page
    assert "being brought up to date" in calibration_html(stale.page, Context(), updating=True)
    cache.wait()
    again = cache.calibration()
    assert not again.updating and again.page is not first.page
    assert again.page == calibration_page(viewed.store)


def test_a_contract_shows_iterations_by_evaluators_and_the_delivered_checkout(
    viewed: Viewed,
) -> None:
    page = contract_page(viewed.store, viewed.contract_id, "evaluator")
    verdicts = [(it.number, it.cells["evaluator"].verdict, it.decision) for it in page.iterations]
    assert verdicts == [(1, "BLOCK", "ESCALATE"), (2, "ACCEPT", "DELIVER")]
    assert page.delivered == 2
    assert page.checkout == f"referee checkout {viewed.contract_id} --iteration 2"
    assert page.iterations[0].cells["evaluator"].scorecard_id == viewed.cards[1]
    assert any("AC-F-001 fails" in t for t in page.iterations[0].brief)
    weighted = page.plots[0]
    assert weighted.title == "Weighted score per evaluator"
    first, second = weighted.series[0].values
    assert first is not None and second is not None and second > first
    assert page.pairs == [(1, 2)]


def test_a_run_lists_failing_criteria_first_with_the_checks_own_command(viewed: Viewed) -> None:
    page = run_page(viewed.store, viewed.runs[1], "evaluator")
    first = page.criteria[0]
    assert (first.id, first.status) == ("AC-F-001", "fail")
    assert first.command.endswith("-m pytest -q tests/test_sum.py")
    assert "junitxml" not in first.command and "/" not in first.command.split()[0][1:]
    assert page.tests[0].outcome == "failed"


def test_a_failing_criterion_leads_to_the_log_line_of_its_failing_test(viewed: Viewed) -> None:
    page = run_page(viewed.store, viewed.runs[1], "evaluator")
    anchor = page.criteria[0].anchor
    assert anchor is not None and page.tests[0].anchor == anchor
    evidence, line = anchor.rsplit("-L", 1)
    log = next(log for log in page.logs if log.evidence_id == evidence)
    marked = log.lines[int(line) - 1]
    assert marked.marked and "test_sums_three" in marked.text


def test_a_run_shows_how_far_its_tests_pin_the_change(viewed: Viewed) -> None:
    page = run_page(viewed.store, viewed.runs[2], "evaluator")
    assert page.adequacy is not None and page.adequacy.title == "Test adequacy"
    body = page_for(viewed.store, links.run(viewed.runs[2]), "evaluator", Context()).body
    assert '<section id="test-adequacy">' in body and "src/calc.py" in body
    assert "not executed: 4" in body  # `return -1`: no test takes a negative total


def test_a_scorecard_stands_beside_its_draft_with_overrides_marked(viewed: Viewed) -> None:
    page = scorecard_page(viewed.store, viewed.cards[1])
    rows = {d.dimension: d for d in page.dimensions}
    assert (rows["craft"].card, rows["craft"].draft, rows["craft"].overridden) == (2, 3, True)
    assert rows["correctness"].overridden is False
    assert rows["design_quality"].source == "judgment"


def test_comparing_two_iterations_shows_what_changed(viewed: Viewed) -> None:
    page = compare_page(viewed.store, viewed.contract_id, 1, 2, "evaluator")
    criteria = {c.name: c for c in page.criteria}
    assert (criteria["AC-F-001"].before, criteria["AC-F-001"].after) == ("fail", "pass")
    assert criteria["AC-F-001"].changed and not criteria["AC-F-002"].changed
    dims = {d.name: d for d in page.dimensions}
    assert dims["correctness"].changed
    files = {f.name: f for f in page.files}
    assert (files["src/calc.py"].before, files["src/calc.py"].after) == ("—", "changed")
    assert files["tests/test_sum.py"].before == "changed"


def test_the_generator_view_shows_no_hold_out_anywhere(viewed: Viewed) -> None:
    pages = _every_page(viewed, "generator")
    assert links.contract(viewed.contract_id) in pages
    assert not any(n.startswith(("scorecard-", "report-", "calibration")) for n in pages)
    for name, body in pages.items():
        assert HOLDOUT_TEXT not in body, name
        assert "AC-F-002" not in body and "hidden check ran" not in body, name
    run = run_page(viewed.store, viewed.runs[1], "generator")
    assert [c.id for c in run.criteria] == ["AC-F-001"] and run.cards == []


def test_a_run_of_an_evaluator_with_only_hold_outs_is_not_the_generators(tmp_path: Path) -> None:
    store = Store(tmp_path / ".referee")
    seen = {"criterion": "adds", "verification_method": "manual", "evaluator": "judge"}
    hidden = {"criterion": "a hidden rule", "verification_method": "manual", "evaluator": "secret"}
    contract = contract_for(
        store, tmp_path, seen, {**hidden, "holdout": True}, evaluators=["judge", "secret"]
    )
    run_id = record_run(store, contract, "secret", 1)["run_id"]
    shown = contract_page(store, contract.id, "generator")
    assert "secret" not in shown.evaluators
    assert all(r.run_id != run_id for it in shown.iterations for r in it.runs)
    assert page_for(store, links.run(run_id), "generator", Context()).status == 404
    assert links.run(run_id) not in page_names(store, "generator")
    assert links.run(run_id) in page_names(store, "evaluator")
    store.close()


def test_a_store_written_outside_referee_is_refused_on_every_page(tmp_path: Path) -> None:
    store = Store(tmp_path / ".referee")
    contract = contract_for(store, tmp_path, {"criterion": "adds", "verification_method": "manual"})
    with sqlite3.connect(tmp_path / ".referee" / "referee.db") as conn:
        conn.execute("UPDATE contracts SET goal = 'rewritten' WHERE id = ?", (contract.id,))
    for name in (links.INDEX, links.contract(contract.id)):
        page = page_for(store, name, "evaluator", Context())
        assert page.status == 500 and "store_tampered" in page.body and "Store refused" in page.body
    store.close()


@pytest.mark.parametrize("name", ["scorecard-1.html", "calibration.html", "report-SC-x.html"])
def test_the_generator_view_has_no_scorecard_report_or_calibration_page(
    viewed: Viewed, name: str
) -> None:
    assert page_for(viewed.store, name, "generator", Context()).status == 404


@pytest.mark.parametrize("name", ["../etc/passwd", "run-R1/../x.html", "contract-.html", "x.html"])
def test_a_page_name_outside_the_scheme_is_not_found(viewed: Viewed, name: str) -> None:
    assert page_for(viewed.store, name, "evaluator", Context()).status == 404


def test_every_text_from_the_store_is_escaped(viewed: Viewed) -> None:
    pages = _every_page(viewed, "evaluator")
    shown = [n for n, body in pages.items() if html.escape(HOSTILE, quote=True) in body]
    assert links.scorecard(viewed.cards[1]) in shown
    for name, body in pages.items():
        assert "<script" not in body and "onerror=" not in body.replace("onerror=alert", ""), name


def test_no_machine_path_reaches_a_page(viewed: Viewed) -> None:
    repo = str(viewed.repo)
    for name, body in _every_page(viewed, "evaluator").items():
        assert repo not in body and "/tmp/" not in body and "--junitxml" not in body, name
        assert not re.search(r"\.venv/bin/python", body), name


def test_a_human_verdict_is_stored_as_record_human_verdict_stores_it(viewed: Viewed) -> None:
    card = viewed.cards[2]
    said = record_verdict(
        viewed.store, card, VerdictForm("disagree", "REVISE", "misses an edge case"), _now
    )
    assert "REVISE" in said and "disagrees" in said
    row = [r for r in calibration_rows(viewed.store) if r.scorecard_id == card][-1]
    assert (row.verdict, row.note) == ("REVISE", "misses an edge case")
    assert calibration_report(viewed.store).overall is not None
    bars = calibration_page(viewed.store).bars
    assert bars and bars[0].count >= 1
    assert scorecard_page(viewed.store, card).humans[-1].agrees is False


def test_calibration_is_split_by_the_judges_model(viewed: Viewed) -> None:
    record_verdict(viewed.store, viewed.cards[2], VerdictForm("agree", "", ""), _now)
    page = calibration_page(viewed.store)
    [judge] = [m for m in page.models if m.model == "judge-v1"]
    assert judge.cases >= 1 and judge.rate is not None
    body = page_for(viewed.store, links.CALIBRATION, "evaluator", Context()).body
    assert '<th scope="col">Model</th>' in body and "<td>judge-v1</td>" in body


def test_agreeing_records_the_scorecards_own_verdict(viewed: Viewed) -> None:
    record_verdict(viewed.store, viewed.cards[1], VerdictForm("agree", "", ""), _now)
    row = [r for r in calibration_rows(viewed.store) if r.scorecard_id == viewed.cards[1]][-1]
    assert row.verdict == "BLOCK"


@pytest.mark.parametrize(
    "form", [VerdictForm("disagree", "BLOCK", ""), VerdictForm("maybe", "ACCEPT", "")]
)
def test_a_disagreement_must_name_another_verdict(viewed: Viewed, form: VerdictForm) -> None:
    with pytest.raises(InvalidInput):
        record_verdict(viewed.store, viewed.cards[1], form, _now)


def test_the_bundle_links_only_to_pages_it_has(viewed: Viewed) -> None:
    pages = _every_page(viewed, "evaluator")
    for name, body in pages.items():
        for href in re.findall(r'href="(?!data:)([^"#]+)', body):
            assert href in pages, f"{name} links to {href}"


def test_a_runs_failing_browser_check_is_shown_in_full(viewed: Viewed, tmp_path: Path) -> None:
    run_id = browser_run(viewed.store, viewed.runs[2], tmp_path)
    page = run_page(viewed.store, run_id, "evaluator")
    assert page.browser is not None
    body = page_for(viewed.store, links.run(run_id), "evaluator", Context()).body
    assert html.escape(PLAYWRIGHT_MESSAGE) in body
    assert '<img src="data:image/png;base64,' in body and str(tmp_path) not in body
    assert run_page(viewed.store, run_id, "generator").browser is not None


def test_a_hold_outs_browser_check_is_not_shown_to_the_generator(
    viewed: Viewed, tmp_path: Path
) -> None:
    run_id = browser_run(viewed.store, viewed.runs[2], tmp_path, criterion="AC-F-002")
    assert run_page(viewed.store, run_id, "evaluator").browser is not None
    assert run_page(viewed.store, run_id, "generator").browser is None
    body = page_for(viewed.store, links.run(run_id), "generator", Context()).body
    assert PLAYWRIGHT_MESSAGE.splitlines()[0] not in body


def _now() -> datetime:
    return datetime.now(UTC)


def test_a_runs_change_is_shown_line_by_line_with_what_its_tests_did_not_run(
    viewed: Viewed,
) -> None:
    page = run_page(viewed.store, viewed.runs[2], "evaluator")
    files = {f.path: f for f in page.change.files}
    calc = files["src/calc.py"]
    assert calc.state == "modified" and calc.coverage and "AC-F-001" in calc.coverage[0]
    added = {line.new: line for line in calc.lines if line.kind == "+"}
    assert "return -1" in added[4].text
    assert added[4].marks == [("uncovered", "not executed by AC-F-001's tests")]
    assert added[2].marks == []  # `total = a + b` ran
    removed = [line for line in calc.lines if line.kind == "-"]
    assert removed and all(line.new is None and line.old for line in removed)
    body = page_for(viewed.store, links.run(viewed.runs[2]), "evaluator", Context()).body
    row = re.search(r'<tr class="add m-uncovered">.*?</tr>', body)
    assert row and "return -1" in row.group(0) and "not executed" in row.group(0)


def test_a_surviving_mutant_and_a_finding_stand_at_their_lines(viewed: Viewed) -> None:
    from referee.tools.models.adequacy import Mutant, Mutation
    from referee.tools.models.evaluation import Finding
    from referee.tools.report.places import places
    from referee.tools.store import load_run
    from referee.tools.view.change import change_view

    ev = load_run(viewed.store, viewed.runs[2]).evaluation
    mutant = Mutant(
        location="src/calc.py:3",
        original="<",
        replacement="<=",
        operator="boundary",
        status="survived",
    )
    criterion = ev.criteria[0]
    adequacy = criterion.adequacy.model_copy(
        update={"mutation": Mutation(score=0.5, run=2, killed=1, survived=[mutant])}
    )
    shown = [criterion.model_copy(update={"adequacy": adequacy})]
    finding = Finding(rule="S101", severity="HIGH", location="src/calc.py:5:4", message="look")
    ev = ev.model_copy(update={"findings": [finding]})
    change = change_view(ev, shown, places(None, None))
    calc = next(f for f in change.files if f.path == "src/calc.py")
    marks = {line.new: line.marks for line in calc.lines if line.kind == "+"}
    assert [k for k, _ in marks[3]] == ["mutant"] and "<=" in marks[3][0][1]
    assert marks[5] == [("finding", "HIGH [S101] look")]
    # A criterion the audience may not see marks nothing: a hold-out's coverage stays hidden.
    hidden = change_view(ev, [], places(None, None))
    calc = next(f for f in hidden.files if f.path == "src/calc.py")
    assert all(k == "finding" for line in calc.lines if line.kind == "+" for k, _ in line.marks)
    assert calc.coverage == []


def test_a_change_whose_objects_are_gone_is_said_not_shown(viewed: Viewed, tmp_path: Path) -> None:
    from referee.tools.report.places import places
    from referee.tools.store import load_run
    from referee.tools.view.change import change_view

    ev = load_run(viewed.store, viewed.runs[2]).evaluation
    gone = ev.model_copy(update={"target": ev.target.model_copy(update={"repo": str(tmp_path)})})
    change = change_view(gone, ev.criteria, places(None, None))
    assert change.files == [] and "cannot be shown" in change.note


def test_two_runs_are_compared_side_by_side(viewed: Viewed) -> None:
    from referee.tools.view.compare import compare_runs_page

    first, second = viewed.runs[1], viewed.runs[2]
    page = compare_runs_page(viewed.store, first, second, "evaluator")
    assert page.runs == (first, second)
    criteria = {c.name: c for c in page.criteria}
    assert (criteria["AC-F-001"].before, criteria["AC-F-001"].after) == ("fail", "pass")
    assert {f.name for f in page.files} == {"src/calc.py", "tests/test_sum.py"}
    dims = {d.name: d for d in page.dimensions}
    assert dims["correctness"].changed
    body = page_for(viewed.store, links.compare_runs(first, second), "evaluator", Context()).body
    assert f"Run {first} → {second}" in html.unescape(body)
    assert links.run(first) in body and links.run(second) in body
    # The generator sees the same comparison without the hold-out.
    hidden = compare_runs_page(viewed.store, first, second, "generator")
    assert "AC-F-002" not in {c.name for c in hidden.criteria}


def test_a_run_page_links_its_comparison_with_the_previous_run(viewed: Viewed) -> None:
    first, second = viewed.runs[1], viewed.runs[2]
    assert run_page(viewed.store, second, "evaluator").previous == first
    assert run_page(viewed.store, first, "evaluator").previous is None
    bundle = page_for(viewed.store, links.run(second), "evaluator", Context()).body
    assert links.compare_runs(first, second) in bundle
    assert links.compare_runs(first, second) in page_names(viewed.store, "evaluator")


def test_comparing_with_a_run_that_is_not_stored_is_not_found(viewed: Viewed) -> None:
    name = links.compare_runs(viewed.runs[1], "R20200101000000-00000000")
    assert page_for(viewed.store, name, "evaluator", Context()).status == 404


def test_the_contracts_list_plots_the_history_across_contracts(viewed: Viewed) -> None:
    from referee.tools.view.gather import HISTORY, history
    from referee.tools.view.html import contracts_html

    def row(n: int, weighted: float | None, iteration: int) -> ContractRow:
        stamp = f"2026-11-{n:02d}T10:00:00"
        return ContractRow(f"SC-task-{n}", "goal", "DELIVER", iteration, 3, stamp, ("e",), weighted)

    rows = [row(n, 3.0 - n / 20, 1 + n % 3) for n in range(1, 26)]
    plot = history(list(reversed(rows)))
    assert plot is not None and len(plot.xs) == HISTORY
    assert plot.columns[0] == "SC-task-6" and plot.columns[-1] == "SC-task-25"  # oldest first
    scores = next(s for s in plot.series if s.label == "weighted score").values
    assert scores[0] == 3.0 - 6 / 20 and scores[-1] == 3.0 - 25 / 20
    assert history(rows[:1]) is None  # one contract is no history
    page = contracts_page(viewed.store, "evaluator", Filters())
    body = contracts_html(replace(page, history=plot), "evaluator", Context())
    assert 'id="history-figure"' in body and ">contract</text>" in body and "SC-task-25" in body
    # The store's own row carries its latest weighted score, from the evaluators' cards.
    assert page.rows[0].weighted is not None
