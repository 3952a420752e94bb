"""`new_only` a11y expectations, their pure core: which nodes are new since base, the reason, the
check the base run drives, what stops a comparison, and the files outside git a base run leaves
out."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from referee.tools.browser.a11y_base import NODES_KEPT, BaseA11y, judge_new, new_since_base
from referee.tools.browser.expectations import axe_scope
from referee.tools.browser.outcome import (
    A11yNode,
    A11yViolation,
    BrowserOutcome,
    FailedRequest,
    StepResult,
)
from referee.tools.create_contract.validation import request_problems
from referee.tools.environment.written import Written, written_since
from referee.tools.graders.base_app import base_problem, for_base
from referee.tools.graders.browser import counts
from referee.tools.models.browser import A11yExpect, BrowserCheck
from referee.tools.rubrics import load_rubrics


def _violation(rule: str, *nodes: tuple[str, str], impact: str = "critical") -> A11yViolation:
    kept = tuple(A11yNode(target=t, html=h, impact=impact) for t, h in nodes)  # type: ignore[arg-type]
    return A11yViolation(
        id=rule,
        impact=impact,  # type: ignore[arg-type]
        nodes=len(kept),
        targets=[n.target for n in kept],
        all_nodes=kept,
    )


EMAIL = ("#email", '<input type="email" id="email">')
BUTTON = ("button", "<button></button>")


def _new(found: list[A11yViolation], base: list[A11yViolation]) -> dict[str, list[str]]:
    return {v.id: v.targets for v in new_since_base(found, base, "serious").new}


def test_only_a_node_the_base_did_not_have_is_new() -> None:
    base = [_violation("label", EMAIL)]
    now = [_violation("label", EMAIL), _violation("button-name", BUTTON)]
    assert _new(now, base) == {"button-name": ["button"]}
    assert _new([_violation("label", EMAIL)], base) == {}
    assert _new([], base) == {}


def test_a_node_whose_selector_shifted_is_matched_by_its_markup() -> None:
    old = ("div:nth-child(4) > input", '<input type="text">')
    moved = ("div:nth-child(5) > input", '<input type="text">')
    assert _new([_violation("label", moved)], [_violation("label", old)]) == {}


def test_a_rule_that_gained_nodes_has_at_least_that_many_new_whatever_their_names() -> None:
    # Two identical unlabelled inputs where base had one: the markup matches one of them only.
    base = [_violation("label", ("li:nth-child(1) > input", "<input>"))]
    now = [
        _violation(
            "label", ("li:nth-child(1) > input", "<input>"), ("li:nth-child(2) > input", "<input>")
        )
    ]
    assert _new(now, base) == {"label": ["li:nth-child(2) > input"]}


def test_the_same_node_violating_another_rule_is_new() -> None:
    image = ("img", '<img src="x.png">')
    assert _new([_violation("link-name", image)], [_violation("image-alt", image)]) == {
        "link-name": ["img"]
    }


def test_a_new_node_below_min_impact_does_not_count_an_old_one_at_any_impact_is_old() -> None:
    base = [_violation("label", EMAIL, impact="minor")]
    now = [_violation("label", EMAIL), _violation("region", ("p", "<p>"), impact="moderate")]
    assert _new(now, base) == {}


def test_nodes_past_the_kept_bound_are_counted_by_the_rules_gain() -> None:
    many = NODES_KEPT + 5
    base = _violation("label", EMAIL)
    now = base.model_copy(update={"nodes": many})  # axe found more nodes than were kept
    [new] = new_since_base([now], [base], "serious").new
    assert new.nodes == many - 1


def _expect(**fields: Any) -> A11yExpect:
    return A11yExpect.model_validate({"type": "a11y", "new_only": True, **fields})


def test_the_reason_names_the_new_nodes_and_what_the_base_already_had() -> None:
    exp = _expect()
    scope = axe_scope(exp)
    base = BaseA11y(found={scope: [_violation("label", EMAIL)]})
    now = [_violation("label", EMAIL), _violation("button-name", BUTTON)]
    judged, new = judge_new(exp, now, base, scope)
    assert not judged.ok and [v.id for v in new] == ["button-name"]
    assert judged.detail == (
        "1 new violation at or above serious since base, on 1 node (max 0): button-name"
        " (critical, 1 new node: button); the base already had 1 violation on 1 node (label),"
        " 1 of its nodes still here"
    )
    fixed, _ = judge_new(exp, [], base, scope)
    assert fixed.ok and fixed.detail.endswith("(label), none still here")


def test_without_a_base_run_the_expectation_is_pending_unless_no_violation_could_be_new() -> None:
    exp = _expect()
    scope = axe_scope(exp)
    gone = BaseA11y(problem="the base commit's app never became ready", code="a11y_base_not_run")
    judged, _ = judge_new(exp, [_violation("button-name", BUTTON)], gone, scope)
    assert judged.ok and judged.pending_code == "a11y_base_not_run"
    assert "not compared with the base, which could not be run: the base commit's app never" in (
        judged.pending
    )
    clean, _ = judge_new(exp, [], gone, scope)
    assert clean.ok and not clean.pending and "none can be new" in clean.detail
    never, _ = judge_new(exp, [_violation("button-name", BUTTON)], None, scope)
    assert never.pending and never.pending_code == "a11y_base_not_run"


def _check(*expect: dict[str, Any]) -> BrowserCheck:
    return BrowserCheck.model_validate({"kind": "browser", "url": "/", "expect": list(expect)})


def test_the_base_run_drives_the_expectations_up_to_the_last_new_only_one_without_screenshots() -> (
    None
):
    check = _check(
        {"type": "visible", "text": "Sign up"},
        {"type": "screenshot", "name": "home"},
        {"type": "a11y", "new_only": True, "include": ["main"]},
        {"type": "text", "selector": "h1", "equals": "Sign up"},
    )
    driven = for_base(check)
    assert [e.type for e in driven.expect] == ["visible", "a11y"]
    a11y = driven.expect[1]
    assert isinstance(a11y, A11yExpect) and not a11y.new_only
    assert axe_scope(a11y) == axe_scope(check.expect[2])  # type: ignore[arg-type]


def _outcome(**fields: Any) -> BrowserOutcome:
    return BrowserOutcome.model_validate(
        {"status": "fail", "passed": False, "reason": "", **fields}
    )


def test_a_base_run_without_the_page_or_its_steps_gives_nothing_to_compare_with() -> None:
    check = _check({"type": "a11y", "new_only": True})
    scope = axe_scope(check.expect[0])  # type: ignore[arg-type]
    assert base_problem(_outcome(axe_runs={scope: []}), check) == ""
    missing = FailedRequest(url="http://127.0.0.1:1/new.html", resource_type="document", status=404)
    said = base_problem(_outcome(failed_requests=[missing], axe_runs={scope: []}), check)
    assert said == "on it, the page http://127.0.0.1:1/new.html answered 404"
    step = StepResult(action="click", target="#new", ok=False, error="no element\ncall log")
    assert base_problem(_outcome(steps=[step]), check) == (
        "on it, step 0 (click #new) failed: no element"
    )
    assert base_problem(_outcome(), check).startswith("axe did not run on it for expectation 1")
    unscored = _outcome(status="unscored", passed=None, reason="no browser: gone")
    assert base_problem(unscored, check) == "the check could not run on it: no browser: gone"


def test_the_dimensions_count_only_new_violations_when_every_a11y_expectation_is_new_only() -> None:
    debt = [_violation("label", EMAIL), _violation("button-name", BUTTON)]
    outcome = _outcome(a11y_violations=debt, a11y_new=debt[1:])
    assert counts(outcome, _check({"type": "a11y", "new_only": True}))["a11y_violations"] == 1
    both = _check({"type": "a11y", "new_only": True}, {"type": "a11y"})
    assert counts(outcome, both)["a11y_violations"] == 2


def _request(check: dict[str, Any], **fields: Any) -> dict[str, Any]:
    criterion = {"criterion": "no new a11y debt", "verification_method": "e2e", "check": check}
    return {"goal": "g", "out_of_scope": ["x"], "functional": [criterion], **fields}


SERVE = {"argv": ["python3", "-m", "http.server", "8123"], "url": "http://127.0.0.1:8123/"}


@pytest.mark.parametrize(
    ("url", "fields", "refused"),
    [
        ("/index.html", {"serve": SERVE}, False),
        ("http://127.0.0.1:8123/index.html", {"serve": SERVE}, False),
        ("http://localhost:8123/", {"serve": SERVE}, True),  # another origin: not the served app
        ("http://127.0.0.1:9999/", {"serve": SERVE}, True),
        ("file:///tmp/index.html", {"serve": SERVE}, True),
        ("http://127.0.0.1:8123/", {}, True),  # no serve: nothing is served at base
    ],
)
def test_new_only_needs_every_page_of_its_check_on_the_served_app(
    url: str, fields: dict[str, Any], refused: bool
) -> None:
    check = {"kind": "browser", "url": url, "expect": [{"type": "a11y", "new_only": True}]}
    found = request_problems(_request(check, **fields), load_rubrics(None))
    assert any(p.code == "new_only_off_serve" for p in found) is refused, found


def test_new_only_refuses_a_goto_step_or_setup_step_off_the_served_app() -> None:
    check = {
        "kind": "browser",
        "url": "/",
        "steps": [{"action": "goto", "url": "file:///etc/hostname"}],
        "expect": [{"type": "a11y", "new_only": True}],
    }
    setup = [{"action": "goto", "url": "http://127.0.0.1:1/"}]
    found = request_problems(_request(check, serve=SERVE, browser_setup=setup), load_rubrics(None))
    assert {p.path for p in found if p.code == "new_only_off_serve"} == {
        "/browser_setup/0/url",
        "/functional/0/check/steps/0/url",
    }


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")


def test_files_outside_git_written_since_the_anchor_are_left_out_folders_whole(
    tmp_path: Path,
) -> None:
    _write(
        tmp_path,
        {
            "web/index.html": "tracked",
            "web/plugins.js": "ignored",
            "dist/app.js": "a build",
            "node_modules/pkg/index.js": "installed: the environment check's",
            "src/__pycache__/x.pyc": "bytecode, which a sandboxed run does not read",
            ".git/config": "git's own",
        },
    )
    os.rename(tmp_path / "dist", tmp_path / "moved")  # a folder renamed into place
    known = {"web/index.html", "src/app.py"}
    stamps = [p.lstat().st_ctime for p in tmp_path.rglob("*")]
    found = written_since(tmp_path, known, min(stamps) - 1)
    assert found == Written(("moved", "web/plugins.js"))
    assert written_since(tmp_path, known, max(stamps) + 1) == Written()


def test_too_many_files_written_outside_git_stop_the_base_run_with_the_reason(
    tmp_path: Path,
) -> None:
    _write(tmp_path, {"web/index.html": "tracked"})
    _write(tmp_path, {f"web/gen-{i}.js": "" for i in range(1001)})
    found = written_since(tmp_path, {"web/index.html"}, 0.0)
    assert found.paths == () and "1001 paths outside git were written" in found.problem
