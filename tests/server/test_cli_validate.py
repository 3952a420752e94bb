"""`referee validate`: exit codes 0/1/2, readable and JSON output, with and without a database."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from runs import corpus_accepted

from referee.server.cli import main
from referee.tools.create_contract.files import load_contract_file
from referee.tools.repo import working_tree_hash
from referee.tools.store import Store, replace_contract, scorecards_for

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "scorecards"
CID = "SC-login-form-20260325"


def card(name: str) -> dict[str, Any]:
    scorecard = json.loads((CORPUS / "cases" / f"{name}.json").read_text(encoding="utf-8"))[
        "scorecard"
    ]
    scorecard.pop("target", None)
    return scorecard


def write(folder: Path, name: str, data: Any) -> str:
    path = folder / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


@pytest.fixture
def exported(tmp_path: Path) -> str:
    target = tmp_path / "contracts" / f"{CID}.yaml"
    target.parent.mkdir()
    shutil.copyfile(CORPUS / "contract.yaml", target)
    return str(target)


@pytest.fixture
def stored(repo: Path) -> Store:
    store = Store(repo / ".referee")
    replace_contract(
        store, load_contract_file(CORPUS / "contract.yaml").model_copy(update={"repo": str(repo)})
    )
    return store


def run(repo: Path, *args: str) -> int:
    return main(["--root", str(repo), "validate", *args])


def test_valid_scorecards_against_an_exported_contract_exit_0_without_creating_a_database(
    repo: Path, tmp_path: Path, exported: str, capsys: pytest.CaptureFixture[str]
) -> None:
    files = [
        write(tmp_path, "judge.json", card("referee-valid-accept")),
        write(tmp_path, "ten.json", card("tenpoint-valid")),
    ]
    assert run(repo, *files, "--contract", exported) == 0
    out = capsys.readouterr().out
    assert "judge.json: valid · verdict ACCEPT · weighted 2.55 (85/100)" in out
    assert "[evidence_unchecked]" in out and "2 scorecards: 2 valid, 0 invalid" in out
    assert not (repo / ".referee").exists()


def test_an_invalid_scorecard_exits_1_and_lists_each_error_with_pointer_and_code(
    repo: Path, tmp_path: Path, exported: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "bad.json", card("referee-criterion-unknown"))
    assert run(repo, path, "--contract", exported) == 1
    out = capsys.readouterr().out
    assert "bad.json: INVALID (1 error)" in out
    assert (
        "/criteria/2/id [criterion_unknown] SC-login-form-20260325 has no criterion 'AC-F-009'"
        in out
    )


def test_a_json_array_holds_several_scorecards_each_reported(
    repo: Path, tmp_path: Path, exported: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(
        tmp_path, "all.json", [card("referee-valid-accept"), card("tenpoint-threshold-mismatch")]
    )
    assert run(repo, path, "--contract", exported, "--json") == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["valid"] is False and [r["index"] for r in doc["results"]] == [0, 1]
    assert [r["valid"] for r in doc["results"]] == [True, False]
    assert doc["results"][1]["errors"][0]["code"] == "threshold_mismatch"


def test_stdin_is_read_for_a_dash(
    repo: Path, exported: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(card("tenpoint-valid"))))
    assert run(repo, "-", "--contract", exported) == 0
    assert "<stdin>: valid" in capsys.readouterr().out


def test_require_evidence_without_a_database_makes_the_scorecard_invalid(
    repo: Path, tmp_path: Path, exported: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "judge.json", card("referee-valid-accept"))
    assert run(repo, path, "--contract", exported, "--require-evidence") == 1
    assert "/ [evidence_unchecked]" in capsys.readouterr().out


@pytest.mark.parametrize("problem", ["missing file", "unknown id", "broken contract"])
def test_usage_errors_exit_2_before_anything_is_validated(
    problem: str, repo: Path, tmp_path: Path, exported: str, capsys: pytest.CaptureFixture[str]
) -> None:
    good = write(tmp_path, "good.json", card("referee-valid-accept"))
    (tmp_path / "broken.yaml").write_text(
        "id: SC-x-20260101\nacceptance_criteria: {}\nrubric_version: '1'\n", encoding="utf-8"
    )
    args = {
        "missing file": [str(tmp_path / "nope.json"), "--contract", exported],
        "unknown id": [good, "--contract", "SC-nope-20260101"],
        "broken contract": [good, "--contract", str(tmp_path / "broken.yaml")],
    }[problem]
    assert run(repo, *args) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.startswith("error: ")
    assert not (repo / ".referee").exists()


def test_a_stored_contract_by_id_records_the_scorecard(
    repo: Path, tmp_path: Path, stored: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "judge.json", corpus_accepted(stored, working_tree_hash(repo)))
    assert run(repo, path, "--contract", CID) == 0
    assert "stored #" in capsys.readouterr().out
    assert run(repo, path) == 0  # the contract named by contract_ref
    assert "(replaced the earlier one)" in capsys.readouterr().out
    assert len(scorecards_for(stored, CID, history=True)) == 2


def test_no_store_validates_without_recording(
    repo: Path, tmp_path: Path, stored: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "judge.json", corpus_accepted(stored, working_tree_hash(repo)))
    assert run(repo, path, "--no-store") == 0
    assert "stored" not in capsys.readouterr().out and scorecards_for(stored, CID) == []


def test_a_scorecard_naming_an_unstored_contract_is_a_usage_error(
    repo: Path, tmp_path: Path, stored: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    other = {**card("referee-valid-accept"), "contract_ref": "SC-unknown-20260101"}
    assert run(repo, write(tmp_path, "other.json", other)) == 2
    assert "unknown contract SC-unknown-20260101" in capsys.readouterr().err
