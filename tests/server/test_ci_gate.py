"""`referee ci` end to end in a two-branch repository: the contract on main, the change and the
scorecards on a pull-request branch, the gate run as CI runs it (its own store, its own key)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from gitrepo import git
from holdout_attacks import NAME_CHANNELS, completed, leaky_calc, written_by
from projects import calc_repo, commit_all, pytest_check
from runs import judged

from referee.server.cli import main as cli

pytestmark = pytest.mark.slow

CONTRACT_PATH = ".referee/contracts/calc.yaml"
REF = f"main:{CONTRACT_PATH}"
SUB = "\ndef sub(a, b):\n    return a - b\n"
BAD_SUB = "\ndef sub(a, b):\n    return a + b\n"
SUB_TEST = (
    "import os, sys\n"
    "sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'src'))\n"
    "from calc import sub\n\n"
    "def test_sub():\n    assert sub(5, 3) == 2\n"
)
HOLDOUT_TEST = SUB_TEST.replace("test_sub", "test_sub_negative").replace(
    "sub(5, 3) == 2", "sub(-1, -1) == 0"
)


def contract_yaml(holdout: bool = False, **fields: Any) -> dict[str, Any]:
    functional: list[dict[str, Any]] = [
        {
            "criterion": "The test suite passes, the new test of sub included",
            "verification_method": "test",
            "check": pytest_check("tests"),
        }
    ]
    if holdout:
        functional.append(
            {
                "criterion": "Subtraction also holds for negative operands",
                "verification_method": "test",
                "holdout": True,
                "check": pytest_check("tests/test_sub_negative.py"),
            }
        )
    return {
        "goal": "Add subtraction to the calculator.",
        "out_of_scope": ["multiplication"],
        "functional": functional,
        **fields,
    }


class Author:
    """The pull request's author: a store of their own, the change, the committed scorecards."""

    def __init__(self, repo: Path, home: Path) -> None:
        self.repo, self.home = repo, home

    def cli(self, *args: str) -> int:
        return cli(["--root", str(self.repo), "--home", str(self.home), *args])

    def out(self, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
        capsys.readouterr()
        code = self.cli(*args)
        return code, capsys.readouterr().out

    def contract_on_main(self, tmp: Path, capsys: pytest.CaptureFixture[str], **kw: Any) -> str:
        source = tmp / "contract-source.yaml"
        source.write_text(yaml.safe_dump(contract_yaml(**kw)), encoding="utf-8")
        code, out = self.out(capsys, "contract", "create", str(source), "--json")
        assert code == 0, out
        cid = str(json.loads(out)["contract"]["id"])
        target = self.repo / CONTRACT_PATH
        target.parent.mkdir(parents=True, exist_ok=True)
        assert self.cli("contract", "export", cid, "-o", str(target)) == 0
        commit_all(self.repo, "contract for subtraction")
        return cid

    def holdout_bundle(self, tmp: Path, capsys: pytest.CaptureFixture[str]) -> tuple[str, Path]:
        """The contract on main with its hold-out, exported as CI gets it (outside the repo)."""
        cid = self.contract_on_main(tmp, capsys, holdout=True)
        secret = tmp / "secret" / "test_sub_negative.py"
        secret.parent.mkdir()
        secret.write_text(HOLDOUT_TEST, encoding="utf-8")
        assert self.cli("holdout", "add", cid, str(secret), "--to", "tests") == 0
        bundle = tmp / "bundle"
        assert self.cli("holdout", "export", cid, str(bundle)) == 0
        return cid, bundle

    def change(self, body: str = SUB, test: str = SUB_TEST) -> None:
        git(self.repo, "checkout", "-q", "-b", "feature")
        with (self.repo / "src" / "calc.py").open("a", encoding="utf-8") as out:
            out.write(body)
        (self.repo / "tests" / "test_sub.py").write_text(test, encoding="utf-8")

    def draft(self, capsys: pytest.CaptureFixture[str], cid: str) -> dict[str, Any]:
        code, out = self.out(capsys, "evaluate", cid, "--json")
        assert code in (0, 1), out
        return dict(json.loads(out)["draft_scorecard"])

    def commit_cards(self, *cards: dict[str, Any]) -> None:
        folder = self.repo / ".referee" / "scorecards"
        folder.mkdir(parents=True, exist_ok=True)
        for i, card in enumerate(cards):
            name = f"{card.get('evaluator', 'card')}-{i}.json"
            (folder / name).write_text(json.dumps(card, indent=2), encoding="utf-8")
        git(self.repo, "add", "-f", ".referee/scorecards")
        commit_all(self.repo, "the change and its scorecards")


@pytest.fixture
def author(tmp_path: Path) -> Author:
    return Author(calc_repo(tmp_path / "calc"), tmp_path / "author-home")


def gate(
    repo: Path, tmp: Path, capsys: pytest.CaptureFixture[str], *extra: str
) -> tuple[int, dict[str, Any], str]:
    """Run the gate as CI would (a store the author never touched): code, JSON, summary."""
    summary, sarif = tmp / "summary.md", tmp / "gate.sarif"
    summary.unlink(missing_ok=True)
    capsys.readouterr()
    code = cli(
        [
            "--root",
            str(repo),
            "--home",
            str(tmp / "ci-home"),
            "ci",
            "--contract-ref",
            REF,
            "--summary",
            str(summary),
            "--sarif",
            str(sarif),
            "--json",
            *extra,
        ]
    )
    out = capsys.readouterr().out
    result = json.loads(out) if out.strip().startswith("{") else {}
    if code != 2:
        sarif_doc = json.loads(sarif.read_text(encoding="utf-8"))
        assert sarif_doc["version"] == "2.1.0" and sarif_doc["runs"][0]["tool"]["driver"]
    return code, result, summary.read_text(encoding="utf-8") if summary.exists() else ""


def test_an_honest_change_with_its_scorecard_opens_the_gate(
    author: Author, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cid = author.contract_on_main(tmp_path, capsys)
    author.change()
    author.commit_cards(judged(author.draft(capsys, cid)))
    code, result, summary = gate(author.repo, tmp_path, capsys)
    assert code == 0, result
    assert result["outcome"] == "DELIVER"
    assert [c["valid"] for c in result["scorecards"]] == [True]
    assert result["runs"][0]["sandbox"] == "bubblewrap"
    assert summary.startswith("## referee: DELIVER") and cid in summary


def test_a_hand_made_card_for_a_broken_change_is_refused(
    author: Author, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cid = author.contract_on_main(tmp_path, capsys)
    author.change(body=BAD_SUB)
    draft = author.draft(capsys, cid)
    # The author's own run failed; the card claims a pass, with invented run id and signature.
    forged = judged(draft)
    forged["run_id"], forged["signature"] = "run-forged", "0" * 64
    for criterion in forged["criteria"]:
        criterion["pass"] = True
    for dim in forged["dimensions"].values():
        dim["score"] = 3
    forged["antipatterns_detected"] = []
    author.commit_cards(forged)
    code, result, summary = gate(author.repo, tmp_path, capsys)
    assert code == 1 and result["outcome"] == "INVALID", result
    codes = {e["code"] for c in result["scorecards"] for e in c["errors"]}
    assert "contradicts_evidence" in codes, codes
    assert "### Scorecards refused" in summary and "contradicts_evidence" in summary


def test_a_contract_weakened_in_the_pull_request_is_ignored(
    author: Author, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cid = author.contract_on_main(tmp_path, capsys)
    author.change(body=BAD_SUB)
    # The pull request swaps the test check for one that always passes.
    weakened = yaml.safe_load((author.repo / CONTRACT_PATH).read_text(encoding="utf-8"))
    weakened["acceptance_criteria"]["functional"][0]["check"] = {
        "kind": "command",
        "argv": ["true"],
    }
    (author.repo / CONTRACT_PATH).write_text(yaml.safe_dump(weakened), encoding="utf-8")
    card = judged(author.draft(capsys, cid))
    author.commit_cards(card)
    code, result, summary = gate(author.repo, tmp_path, capsys)
    # The base branch's test check ran and failed (2 of 3 tests pass: correctness 1, a REVISE).
    assert code == 1 and result["outcome"] == "REVISE", result
    assert any("differs in this pull request" in n for n in result["notes"])
    assert (
        "differs in this pull request" in summary
        and "failing: tests/test_sub.py::test_sub" in summary
    )


def test_no_scorecard_is_pending_and_a_bad_reference_is_a_usage_error(
    author: Author, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    author.contract_on_main(tmp_path, capsys)
    author.change()
    commit_all(author.repo, "the change without scorecards")
    code, result, summary = gate(author.repo, tmp_path, capsys)
    assert code == 4 and result["outcome"] == "PENDING", result
    assert "no scorecard found" in summary
    capsys.readouterr()
    bad = cli(["--root", str(author.repo), "ci", "--contract-ref", "main-only-no-path"])
    assert bad == 2 and "REF:PATH" in capsys.readouterr().err
    missing = cli(["--root", str(author.repo), "ci", "--contract-ref", "main:nope.yaml"])
    assert missing == 2 and "cannot read nope.yaml" in capsys.readouterr().err


def test_a_dropped_antipattern_is_refused(
    author: Author, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cid = author.contract_on_main(tmp_path, capsys)
    author.change()
    existing = author.repo / "tests" / "test_calc.py"
    skipped = existing.read_text(encoding="utf-8").replace(
        "def test_add_negative", "import pytest\n\n@pytest.mark.skip\ndef test_add_negative"
    )
    existing.write_text(skipped, encoding="utf-8")
    draft = author.draft(capsys, cid)
    assert draft.get("antipatterns_detected"), draft
    card = judged(draft)
    card["antipatterns_detected"] = []
    author.commit_cards(card)
    code, result, _ = gate(author.repo, tmp_path, capsys)
    assert code == 1 and result["outcome"] == "INVALID", result
    codes = {e["code"] for c in result["scorecards"] for e in c["errors"]}
    assert "antipattern_dropped" in codes, codes


def test_holdouts_reach_ci_from_a_bundle_outside_the_repository_and_stay_unnamed(
    author: Author, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cid, bundle = author.holdout_bundle(tmp_path, capsys)
    committed = (author.repo / CONTRACT_PATH).read_text(encoding="utf-8")
    assert "negative operands" not in committed  # the repository holds the generator view
    # A change that passes the visible test and fails the hold-out: sub(-1, -1) gives 2.
    author.change(body="\ndef sub(a, b):\n    return abs(a) - b if a > 0 else abs(a - b) + 2\n")
    author.commit_cards(judged(author.draft(capsys, cid)))
    code, result, summary = gate(author.repo, tmp_path, capsys, "--holdout-dir", str(bundle))
    assert code == 1, result
    assert "hold-out check" in summary
    first = summary + json.dumps(result) + (tmp_path / "gate.sarif").read_text(encoding="utf-8")
    # The generator's own card knows only the visible criterion: refused, without naming the other.
    card = json.loads(next((author.repo / ".referee" / "scorecards").glob("*.json")).read_text())
    card["criteria"] = [c for c in card["criteria"] if c["id"] == "AC-F-001"]
    author.commit_cards(card)
    code, result, summary = gate(author.repo, tmp_path, capsys, "--holdout-dir", str(bundle))
    assert code == 1 and result["outcome"] == "INVALID", result
    assert "criterion_missing" in summary
    public = summary + json.dumps(result) + (tmp_path / "gate.sarif").read_text(encoding="utf-8")
    for hidden in ("negative operands", "test_sub_negative", "AC-F-002"):
        assert hidden not in first and hidden not in public, hidden


def test_a_revise_at_the_iteration_bound_does_not_open_the_gate(
    author: Author, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cid = author.contract_on_main(tmp_path, capsys, max_iterations=1)
    author.change()
    draft = author.draft(capsys, cid)
    # The judge finds the craft wanting: REVISE, at the only iteration the contract allows.
    judgement = next(k for k, d in draft["dimensions"].items() if d.get("score") is None)
    card = judged(draft)
    card["dimensions"][judgement]["score"] = 1
    card["guidance"] = "Name the operands and document sub."
    author.commit_cards(card)
    code, result, summary = gate(author.repo, tmp_path, capsys)
    assert result["aggregate"]["decision"] == "DELIVER", result  # the best iteration
    assert code == 1 and result["outcome"] == "REVISE", result
    assert "every evaluator accepted" in summary


def test_the_cards_of_a_later_iteration_are_judged_on_the_head(
    author: Author, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cid = author.contract_on_main(tmp_path, capsys)
    author.change(body=BAD_SUB)
    assert author.draft(capsys, cid)["iteration"] == 1  # the author's first attempt fails
    with (author.repo / "src" / "calc.py").open("a", encoding="utf-8") as out:
        out.write(SUB)  # the fix: a later definition wins
    second = author.draft(capsys, cid)
    assert second["iteration"] == 2
    author.commit_cards(judged(second))
    code, result, summary = gate(author.repo, tmp_path, capsys)
    assert code == 0 and result["outcome"] == "DELIVER", result
    assert result["iteration"] == 2 and "iteration 2" in summary
    # A card past the contract's bound cannot stand on any run.
    past = {**judged(second), "iteration": 9}
    author.commit_cards(judged(second), past)
    code, result, _ = gate(author.repo, tmp_path, capsys)
    assert code == 1 and result["outcome"] == "INVALID", result
    problems = [c["problem"] for c in result["scorecards"] if c["problem"]]
    assert problems and "past the contract's max_iterations" in problems[0]


@pytest.mark.parametrize("channel", ["root", "test names", "its file name"])
def test_what_a_holdout_run_writes_in_ci_never_reaches_the_pull_request(
    author: Author, tmp_path: Path, capsys: pytest.CaptureFixture[str], channel: str
) -> None:
    cid, bundle = author.holdout_bundle(tmp_path, capsys)
    # The change reads the hold-out while CI lays it over the tree and spells it in file names;
    # sub is wrong for negative operands.
    leaky = leaky_calc(NAME_CHANNELS[channel], visible=("test_calc.py", "test_sub.py"))
    author.change(body=leaky + "\ndef sub(a, b):\n    return a - b if a >= 0 else 2\n")
    card = completed(author.draft(capsys, cid))
    written = written_by(channel, HOLDOUT_TEST, "tests/test_sub_negative.py")
    # The author's card repeats a name as well: it comes from a run of their own.
    card["issues"] = [*card["issues"], {"severity": "LOW", "description": f"saw {written[0]}"}]
    author.commit_cards(card)
    code, result, summary = gate(author.repo, tmp_path, capsys, "--holdout-dir", str(bundle))
    assert code == 1 and result["outcome"] == "REVISE", result
    assert "1 hold-out check failed" in summary
    assert result["aggregate"]["revision_brief"]["hidden_checks_failed"] == 1
    public = summary + json.dumps(result) + (tmp_path / "gate.sarif").read_text(encoding="utf-8")
    for path in written:
        for part in (path, *(p for p in path.split("/") if len(p) > 8)):
            assert part not in public, part
    assert "test_sub_negative" not in public and "negative operands" not in public


# An AWS key pair written into the change (split, so that no scanner flags this test file).
AWS_KEYS = (
    '\nAWS_ACCESS_KEY_ID = "AKIA' + 'Z7XQ3MPLR4KWNB2T"\n'
    'AWS_SECRET_ACCESS_KEY = "q8Zt3Lw0Vb7Nc2Xr5Ym9' + 'Kd1Hf4Gj6Sa0Pe3Ru8Io"\n'
)


def test_a_card_lifting_security_over_a_hardcoded_key_pair_is_refused(
    author: Author, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cid = author.contract_on_main(tmp_path, capsys)
    author.change(body=SUB + AWS_KEYS)
    card = judged(author.draft(capsys, cid))
    assert card["dimensions"]["security"]["score"] == 0, card["dimensions"]["security"]
    card["dimensions"]["security"]["score"] = 3
    author.commit_cards(card)
    code, result, summary = gate(author.repo, tmp_path, capsys)
    assert code == 1 and result["outcome"] == "INVALID", result
    (refused,) = result["scorecards"]
    lifted = [e for e in refused["errors"] if e["path"] == "/dimensions/security/score"]
    assert [e["code"] for e in lifted] == ["contradicts_evidence"], refused["errors"]
    assert "security is 3, but referee derived 0" in summary


def _committed(author: Author, name: str, data: bytes) -> None:
    folder = author.repo / ".referee" / "scorecards"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(data)


def test_card_json_that_is_not_strict_is_refused_and_overrides_are_listed(
    author: Author, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cid = author.contract_on_main(tmp_path, capsys)
    author.change()
    card = judged(author.draft(capsys, cid))
    assert card["dimensions"]["correctness"]["score"] == 3
    card["dimensions"]["correctness"]["score"] = 2  # lowered: allowed, and listed
    text = json.dumps(card)
    broken = {
        "nan.json": text.replace('"score": 2', '"score": NaN', 1),
        "infinity.json": text.replace('"score": 2', '"score": 1e999', 1),
        "duplicate.json": text.replace('"dimensions": {', '"dimensions": {"correctness": 3, ', 1),
        "deep.json": "[" * 10_000 + "]" * 10_000,
        "number.json": "5",
    }
    for name, data in broken.items():
        _committed(author, name, data.encode("utf-8"))
    _committed(author, "latin1.json", text.replace("judge", "jüdge").encode("latin-1"))
    author.commit_cards(card)
    code, result, summary = gate(author.repo, tmp_path, capsys)
    assert code == 1 and result["outcome"] == "INVALID", result
    by_file = {c["source"].rpartition("/")[2]: c for c in result["scorecards"]}
    expected = {
        "nan.json": "non_finite_number",
        "infinity.json": "non_finite_number",
        "duplicate.json": "duplicate_key",
        "deep.json": "too_deep",
        "latin1.json": "json_invalid",
    }
    for name, code_of in expected.items():
        assert [e["code"] for e in by_file[name]["errors"]] == [code_of], by_file[name]
        assert f"`{code_of}`" in summary
    assert by_file["number.json"]["problem"] == "no evaluator of the contract is named"
    (counted,) = [c for c in result["scorecards"] if c["counted"]]
    assert counted["valid"] is True
    assert [o["path"] for o in counted["overrides"]] == ["/dimensions/correctness/score"]
    assert "### Where the scorecards override referee's evidence" in summary
    assert "correctness is 2, lowered from what referee derived 3" in summary
