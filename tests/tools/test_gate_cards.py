"""The gate's reading of committed scorecards: files the pull request controls."""

from __future__ import annotations

import json
from pathlib import Path

from referee.tools.gate.cards import MAX_CARD_BYTES, read_cards


def test_arrays_objects_and_unreadable_files_are_each_named(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text(json.dumps([{"evaluator": "x"}, {"evaluator": "y"}]))
    (tmp_path / "b.json").write_text(json.dumps({"scorecards": [{"evaluator": "z"}]}))
    (tmp_path / "c.json").write_text("{not json")
    cards = read_cards([tmp_path])
    assert [c.source.rpartition("/")[2] for c in cards] == [
        "a.json[0]",
        "a.json[1]",
        "b.json",
        "c.json",
    ]
    assert [c.body for c in cards[:3]] == [
        {"evaluator": "x"},
        {"evaluator": "y"},
        {"evaluator": "z"},
    ]
    assert cards[3].body is None and cards[3].problem and "not readable as JSON" in cards[3].problem


def test_a_symlink_or_a_huge_file_is_refused_unread(tmp_path: Path) -> None:
    secret = tmp_path / "outside.txt"
    secret.write_text("RUNNER_SECRET=hunter2")
    cards_dir = tmp_path / "cards"
    cards_dir.mkdir()
    (cards_dir / "link.json").symlink_to(secret)
    with (cards_dir / "huge.json").open("wb") as out:
        out.truncate(MAX_CARD_BYTES + 1)
    found = {c.source.rpartition("/")[2]: c for c in read_cards([cards_dir])}
    assert (found["link.json"].problem or "").startswith("refused")
    assert found["huge.json"].problem and "larger than" in found["huge.json"].problem
    assert all(c.body is None for c in found.values())
    assert "hunter2" not in repr(found)


def test_a_folder_that_leads_elsewhere_is_refused(tmp_path: Path) -> None:
    elsewhere = tmp_path / "runner"
    (elsewhere / "nested").mkdir(parents=True)
    (elsewhere / "nested" / "config.json").write_text('{"auths": {"x": "token"}}')
    folder = tmp_path / "repo" / "scorecards"
    folder.mkdir(parents=True)
    (folder / "nested").symlink_to(elsewhere / "nested")
    linked = tmp_path / "repo" / "linked"
    linked.symlink_to(elsewhere)
    cards = read_cards([folder, linked])
    assert all(c.body is None and c.problem and "refused" in c.problem for c in cards), cards
    assert len(cards) >= 1 and "token" not in repr(cards)
