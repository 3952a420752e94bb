from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from referee.tools.create_contract.entry import create_contract, generator_view, get_contract
from referee.tools.errors import InvalidInput
from referee.tools.repo import describe_repo
from referee.tools.rubrics import load_rubrics
from referee.tools.store import Store

FIXED = datetime(2026, 3, 25, 12, 0, tzinfo=UTC)
TESTS = {"kind": "tests", "argv": ["python", "-m", "pytest", "-q"]}


def make(store: Store, repo: Path, **args: Any):
    return create_contract(
        args, store=store, rubrics=load_rubrics(repo), repo=describe_repo(repo), now=lambda: FIXED
    )


def test_id_is_slug_of_goal_and_date(store: Store, repo: Path) -> None:
    result = make(
        store,
        repo,
        goal="Add a Login form!",
        functional=[{"criterion": "x", "verification_method": "test", "check": TESTS}],
    )
    assert result.contract.id == "SC-add-a-login-form-20260325"


def test_colliding_ids_get_numbered_suffixes(store: Store, repo: Path) -> None:
    crit = [{"criterion": "x", "verification_method": "manual"}]
    ids = [make(store, repo, goal="Same goal", functional=crit).contract.id for _ in range(3)]
    assert ids == ["SC-same-goal-20260325", "SC-same-goal-20260325-2", "SC-same-goal-20260325-3"]


def test_slug_is_at_most_forty_characters_and_matches_the_id_pattern(
    store: Store, repo: Path
) -> None:
    goal = "Implement the extremely long and detailed feature that nobody could summarise briefly"
    ident = make(
        store, repo, goal=goal, functional=[{"criterion": "x", "verification_method": "manual"}]
    ).contract.id
    slug = ident.removeprefix("SC-").removesuffix("-20260325")
    assert len(slug) <= 40 and not slug.endswith("-")


def test_given_slug_wins(store: Store, repo: Path) -> None:
    result = make(
        store,
        repo,
        goal="g",
        slug="login",
        functional=[{"criterion": "x", "verification_method": "manual"}],
    )
    assert result.contract.id == "SC-login-20260325"


def test_criterion_ids_are_assigned_in_order(store: Store, repo: Path) -> None:
    result = make(
        store,
        repo,
        goal="g",
        functional=[
            {"criterion": "a", "verification_method": "test", "check": TESTS},
            {"criterion": "b", "verification_method": "manual"},
        ],
        quality=[
            {
                "criterion": "q",
                "verification_method": "static",
                "threshold": "0 findings",
                "check": {"kind": "static", "rule": "function length"},
            }
        ],
    )
    ids = [c.id for c in result.contract.all_criteria()]
    assert ids == ["AC-F-001", "AC-F-002", "AC-Q-001"]
    assert result.contract.acceptance_criteria.quality[0].check.rule == "function_length"


@pytest.mark.parametrize(
    ("task_type", "has_ui", "expected"),
    [
        ("feature", True, "FEATURE_UI"),
        ("feature", False, "FEATURE_BACKEND"),
        ("bug", True, "BUG_FIX"),
        ("security", False, "SECURITY"),
        ("other", True, "FEATURE_BACKEND"),
    ],
)
def test_rubric_is_chosen_from_task_type_and_ui(
    store: Store, repo: Path, task_type: str, has_ui: bool, expected: str
) -> None:
    result = make(
        store,
        repo,
        goal="g",
        task_type=task_type,
        has_ui=has_ui,
        functional=[{"criterion": "x", "verification_method": "manual"}],
    )
    assert result.contract.rubric_ref == expected
    assert result.contract.rubric_version


def test_generator_view_hides_holdouts_without_a_trace(store: Store, repo: Path) -> None:
    result = make(
        store,
        repo,
        goal="Fix the totals",
        task_type="bug",
        out_of_scope=["styling"],
        functional=[
            {"criterion": "Totals add up", "verification_method": "test", "check": TESTS},
            {
                "criterion": "SECRET rounding case holds",
                "verification_method": "test",
                "check": TESTS,
                "holdout": True,
            },
            {"criterion": "Empty cart shows zero", "verification_method": "manual"},
        ],
    )
    holdout = next(c for c in result.contract.all_criteria() if c.holdout)
    text = str(result.generator_view)
    assert holdout.id not in text and "SECRET" not in text and "holdout" not in text
    visible = [c["id"] for c in result.generator_view["acceptance_criteria"]["functional"]]
    assert visible == ["AC-F-001", "AC-F-002"]
    assert holdout.id == "AC-F-003"
    assert get_contract(result.contract.id, "generator", store=store) == result.generator_view


def test_out_of_scope_empty_is_a_warning(store: Store, repo: Path) -> None:
    result = make(
        store, repo, goal="g", functional=[{"criterion": "x", "verification_method": "manual"}]
    )
    assert [w.code for w in result.warnings] == ["out_of_scope_empty"]


def test_contract_records_repo_base_commit_and_versions(store: Store, repo: Path) -> None:
    contract = make(
        store, repo, goal="g", functional=[{"criterion": "x", "verification_method": "manual"}]
    ).contract
    assert contract.repo == str(repo.resolve())
    assert contract.base_commit and len(contract.base_commit) == 40
    assert contract.evaluator_prompt_version.startswith("sha256:")
    assert contract.created_at == "2026-03-25T12:00:00Z"


def test_every_problem_is_reported_at_once_with_pointers(store: Store, repo: Path) -> None:
    with pytest.raises(InvalidInput) as caught:
        make(
            store,
            repo,
            goal="g",
            task_type="chore",
            max_iterations=9,
            evaluators=["a", "b", "c", "d", "e"],
            functional=[
                {"criterion": "no check", "verification_method": "test", "evaluator": "a"},
                {"criterion": "who", "verification_method": "manual", "evaluator": "zed"},
                {
                    "criterion": "bad kind",
                    "verification_method": "test",
                    "evaluator": "a",
                    "check": {"kind": "telepathy"},
                },
            ],
            rubric_ref="NOPE",
        )
    found = {(p.path, p.code) for p in caught.value.problems}
    assert {
        ("/task_type", "not_allowed"),
        ("/max_iterations", "less_than_equal"),
        ("/evaluators", "too_many_evaluators"),
        ("/functional/0/check", "check_required"),
        ("/functional/1/evaluator", "unknown_evaluator"),
        ("/functional/2/check", "unknown_kind"),
        ("/rubric_ref", "unknown_rubric"),
    } <= found


def test_a_contract_needs_a_criterion(store: Store, repo: Path) -> None:
    with pytest.raises(InvalidInput) as caught:
        make(store, repo, goal="g")
    assert [p.code for p in caught.value.problems] == ["no_criteria"]


def test_several_evaluators_require_each_criterion_to_name_one(store: Store, repo: Path) -> None:
    with pytest.raises(InvalidInput) as caught:
        make(
            store,
            repo,
            goal="g",
            evaluators=["a", "b"],
            functional=[{"criterion": "x", "verification_method": "manual"}],
        )
    assert caught.value.problems[0].path == "/functional/0/evaluator"


def test_evaluators_default_to_those_the_criteria_name(store: Store, repo: Path) -> None:
    result = make(
        store,
        repo,
        goal="g",
        functional=[
            {"criterion": "x", "verification_method": "manual", "evaluator": "judge"},
            {"criterion": "y", "verification_method": "manual", "evaluator": "radar"},
        ],
    )
    assert result.contract.evaluators == ["judge", "radar"]


def test_generator_view_drops_an_evaluator_that_only_judges_holdouts(
    store: Store, repo: Path
) -> None:
    result = make(
        store,
        repo,
        goal="g",
        evaluators=["a", "hidden"],
        functional=[
            {"criterion": "x", "verification_method": "manual", "evaluator": "a"},
            {
                "criterion": "y",
                "verification_method": "manual",
                "evaluator": "hidden",
                "holdout": True,
            },
        ],
    )
    assert generator_view(result.contract)["evaluators"] == ["a"]
    assert result.contract.evaluators == ["a", "hidden"]


def test_a_literal_secret_in_a_check_env_is_warned_about(store: Store, repo: Path) -> None:
    check = {**TESTS, "env": {"API_TOKEN": "abcdef123456", "SAFE_TOKEN": "${SAFE_TOKEN}"}}
    result = make(
        store,
        repo,
        goal="g",
        out_of_scope=["x"],
        functional=[{"criterion": "x", "verification_method": "test", "check": check}],
    )
    assert [(w.path, w.code) for w in result.warnings] == [
        ("/functional/0/check/env/API_TOKEN", "secret_in_contract")
    ]


BROWSER = {
    "criterion": "todos can be added",
    "verification_method": "e2e",
    "check": {"kind": "browser", "url": "/", "expect": [{"type": "visible", "selector": "h1"}]},
}
SERVE = {"argv": ["npm", "run", "dev"], "url": "http://127.0.0.1:5173/"}


def test_browser_setup_is_stored_and_shown_in_both_views(store: Store, repo: Path) -> None:
    setup = [
        {"action": "goto", "url": "/"},
        {"action": "fill", "selector": ".new-todo", "value": "milk", "timeout_s": 2},
        {"action": "press", "selector": ".new-todo", "key": "Enter"},
    ]
    result = make(store, repo, goal="g", serve=SERVE, browser_setup=setup, functional=[BROWSER])
    stored = get_contract(result.contract.id, "evaluator", store=store)
    assert stored["browser_setup"][1] == {
        "action": "fill",
        "selector": ".new-todo",
        "value": "milk",
        "timeout_s": 2.0,
    }
    assert result.generator_view["browser_setup"] == stored["browser_setup"]


def test_bad_browser_vocabulary_is_reported_field_by_field(store: Store, repo: Path) -> None:
    check = {
        "kind": "browser",
        "url": "/",
        "steps": [
            {"action": "check"},
            {"action": "set_input_files", "selector": "#f", "files": ["../../etc/passwd"]},
        ],
        "expect": [
            {"type": "count", "selector": "li", "min": 3, "max": 1},
            {"type": "text", "selector": "li"},
            {"type": "text", "selector": "li", "matches": "(unclosed"},
            {"type": "checked", "selector": "#a", "checked": "yes please"},
        ],
    }
    with pytest.raises(InvalidInput) as caught:
        make(
            store,
            repo,
            goal="g",
            serve=SERVE,
            browser_setup=[{"action": "click", "selector": "#login"}],
            functional=[{"criterion": "x", "verification_method": "e2e", "check": check}],
        )
    problems = {p.path: p for p in caught.value.problems}
    at = "/functional/0/check"
    assert problems[f"{at}/steps/0/selector"].code == "required"
    assert "without '..'" in problems[f"{at}/steps/1/files"].message
    assert problems[f"{at}/expect/0"].message == "min 3 is above max 1"
    assert problems[f"{at}/expect/1"].message == (
        "give exactly one of `equals`, `contains` or `matches`"
    )
    assert "not a valid regular expression" in problems[f"{at}/expect/2/matches"].message
    assert f"{at}/expect/3/checked" in problems
    assert problems["/browser_setup/0"].code == "setup_without_goto"


def test_a_relative_setup_url_needs_serve(store: Store, repo: Path) -> None:
    browser = {**BROWSER, "check": {**BROWSER["check"], "url": "http://127.0.0.1:5173/"}}
    with pytest.raises(InvalidInput) as caught:
        make(
            store,
            repo,
            goal="g",
            browser_setup=[{"action": "goto", "url": "/login"}],
            functional=[browser],
        )
    assert [(p.path, p.code) for p in caught.value.problems] == [
        ("/browser_setup/0/url", "relative_url_without_serve")
    ]
