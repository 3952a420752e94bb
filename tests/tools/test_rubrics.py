"""Rubric definitions, their loader and the verdict arithmetic."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from referee.tools.errors import RefereeError
from referee.tools.models.rubric import Rubric
from referee.tools.rubrics import (
    RubricError,
    builtin_rubrics,
    compute_weighted,
    health_band,
    load_rubric_file,
    load_rubric_text,
    load_rubrics,
    normalized,
    select_rubric,
    verdict_for,
)

SPEC_WEIGHTS: dict[str, dict[str, float]] = {
    "FEATURE_UI": {
        "correctness": 0.25,
        "functionality": 0.25,
        "ux_quality": 0.20,
        "design_quality": 0.15,
        "craft": 0.15,
    },
    "FEATURE_BACKEND": {
        "correctness": 0.35,
        "design_quality": 0.25,
        "functionality": 0.20,
        "craft": 0.10,
        "security": 0.10,
    },
    "BUG_FIX": {"correctness": 0.40, "functionality": 0.25, "design_quality": 0.20, "craft": 0.15},
    "SECURITY": {"security": 0.35, "correctness": 0.30, "design_quality": 0.20, "craft": 0.15},
    "PROJECT_HEALTH": {
        "correctness": 0.25,
        "security": 0.20,
        "maintainability": 0.20,
        "architecture": 0.15,
        "completeness": 0.10,
        "evolution": 0.10,
    },
    "UNIVERSAL": {
        key: 1 / 6
        for key in (
            "correctness",
            "completeness",
            "quality",
            "robustness",
            "clarity",
            "verifiability",
        )
    },
}
UNIT_RUBRICS = {"PROJECT_HEALTH", "UNIVERSAL"}


def _rubric_data(name: str) -> dict[str, Any]:
    return copy.deepcopy(builtin_rubrics()[name].model_dump(mode="json"))


def _write_user_rubric(repo: Path, filename: str, data: dict[str, Any] | str) -> Path:
    folder = repo / ".referee" / "rubrics"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / filename
    text = (
        data if isinstance(data, str) else yaml.safe_dump(data, sort_keys=False, allow_unicode=True)
    )
    path.write_text(text, encoding="utf-8")
    return path


def _refusal(data: dict[str, Any], source: str = "test.yaml") -> RubricError:
    with pytest.raises(RubricError) as info:
        load_rubric_text(yaml.safe_dump(data, sort_keys=False), source)
    return info.value


def _codes_at(error: RubricError) -> set[tuple[str, str]]:
    return {(p.path, p.code) for p in error.problems}


# The built-in rubrics


def test_every_builtin_rubric_loads_with_the_dimensions_and_weights_of_the_spec() -> None:
    rubrics = builtin_rubrics()

    assert set(rubrics) == set(SPEC_WEIGHTS)
    for name, weights in SPEC_WEIGHTS.items():
        assert list(rubrics[name].weights()) == list(weights), name
        assert rubrics[name].weights() == pytest.approx(weights, abs=1e-5), name
        # BUG_FIX 1.1.0: its level 0 says what the draft derives for a fix nothing proves.
        assert rubrics[name].version == ("1.1.0" if name == "BUG_FIX" else "1.0.0"), name


def test_builtin_rubrics_use_a_0_to_3_or_a_unit_scale_as_the_spec_says() -> None:
    for name, rubric in builtin_rubrics().items():
        scale = rubric.scale
        if name in UNIT_RUBRICS:
            assert (scale.kind, scale.min, scale.max, scale.levels) == (
                "unit",
                0.0,
                1.0,
                [0.0, 0.4, 0.7, 1.0],
            )
        else:
            assert (scale.kind, scale.min, scale.max, scale.levels) == (
                "integer",
                0,
                3,
                [0, 1, 2, 3],
            )
        assert list(scale.labels) == list(rubric.dimensions[0].levels), name


def test_every_builtin_dimension_defines_every_level_and_names_its_signals() -> None:
    for name, rubric in builtin_rubrics().items():
        expected = ["0.0", "0.4", "0.7", "1.0"] if name in UNIT_RUBRICS else ["0", "1", "2", "3"]
        for dim in rubric.dimensions:
            assert list(dim.levels) == expected, (name, dim.key)
            assert all(text.strip() for text in dim.levels.values()), (name, dim.key)
            assert dim.signals and dim.name and dim.description, (name, dim.key)


def test_builtin_examples_state_the_weighted_score_verdict_and_band_the_rules_give() -> None:
    for name, rubric in builtin_rubrics().items():
        for example in rubric.examples:
            scores = {key: entry.score for key, entry in example.scores.items()}
            assert set(scores) == set(rubric.weights()), (name, example.title)
            weighted = compute_weighted(rubric, scores)
            assert example.weighted_score == pytest.approx(weighted, abs=1e-9), (
                name,
                example.title,
            )
            assert example.verdict == verdict_for(rubric, scores), (name, example.title)
            if name in UNIT_RUBRICS:
                assert example.band == health_band(weighted), (name, example.title)


def test_builtin_examples_calibrate_an_accept_a_revise_and_a_block() -> None:
    for name, rubric in builtin_rubrics().items():
        assert [ex.verdict for ex in rubric.examples] == ["ACCEPT", "REVISE", "BLOCK"], name


def test_universal_levels_speak_to_research_and_plans_as_well_as_code() -> None:
    rubric = builtin_rubrics()["UNIVERSAL"]
    for dim in rubric.dimensions:
        text = " ".join([dim.description, *dim.levels.values()]).lower()
        assert "code" in text and "plan" in text, dim.key
        assert "research" in text or "source" in text or "conclusion" in text, dim.key


# User rubrics


def test_a_repository_without_user_rubrics_gets_the_builtins(tmp_path: Path) -> None:
    found = load_rubrics(tmp_path)

    assert found.names() == sorted(SPEC_WEIGHTS)
    assert found.errors == []
    assert load_rubrics(None).names() == sorted(SPEC_WEIGHTS)


def test_a_user_rubric_in_the_repository_is_loaded_next_to_the_builtins(tmp_path: Path) -> None:
    data = _rubric_data("BUG_FIX")
    data["name"] = "DATA_PIPELINE"
    _write_user_rubric(tmp_path, "data_pipeline.yml", data)

    found = load_rubrics(tmp_path)

    assert found.errors == []
    assert "DATA_PIPELINE" in found.names()
    assert set(SPEC_WEIGHTS) <= set(found.names())


def test_a_user_rubric_with_a_builtin_name_overrides_the_builtin(tmp_path: Path) -> None:
    data = _rubric_data("BUG_FIX")
    data["version"] = "2.0.0-team"
    _write_user_rubric(tmp_path, "bug_fix.yaml", data)

    found = load_rubrics(tmp_path)

    assert found.get("BUG_FIX") is not None
    assert found.get("BUG_FIX").version == "2.0.0-team"  # type: ignore[union-attr]
    assert builtin_rubrics()["BUG_FIX"].version == "1.1.0"


def test_a_broken_user_rubric_is_refused_with_every_problem_and_the_builtins_still_load(
    tmp_path: Path,
) -> None:
    data = _rubric_data("BUG_FIX")
    data["name"] = "TEAM_BUGS"
    data["dimensions"][0]["weight"] = 0.30  # the weights now sum to 0.9
    del data["dimensions"][2]["levels"]["2"]
    del data["examples"][1]["scores"]["craft"]
    path = _write_user_rubric(tmp_path, "team_bugs.yaml", data)

    found = load_rubrics(tmp_path)

    assert found.names() == sorted(SPEC_WEIGHTS)
    assert len(found.errors) == 1
    error = found.errors[0]
    assert error.source == str(path)
    assert {
        ("/dimensions", "weights_sum"),
        ("/dimensions/2/levels/2", "level_missing"),
        ("/examples/1/scores/craft", "score_missing"),
    } <= _codes_at(error)
    for text in (str(path), "/dimensions", "/dimensions/2/levels/2", "/examples/1/scores/craft"):
        assert text in str(error)


def test_a_user_rubric_with_a_yaml_syntax_error_is_refused_with_its_line(tmp_path: Path) -> None:
    path = _write_user_rubric(tmp_path, "broken.yaml", "name: X\nscale: [unclosed\n")

    found = load_rubrics(tmp_path)

    assert found.names() == sorted(SPEC_WEIGHTS)
    (error,) = found.errors
    assert [p.code for p in error.problems] == ["yaml_syntax"]
    assert str(path) in str(error) and "line" in str(error)
    assert isinstance(error, RefereeError)


def test_a_second_user_file_defining_the_same_rubric_is_an_error(tmp_path: Path) -> None:
    first, second = _rubric_data("SECURITY"), _rubric_data("SECURITY")
    first["name"], second["name"] = "HARDENING", "hardening"
    _write_user_rubric(tmp_path, "a.yaml", first)
    path = _write_user_rubric(tmp_path, "b.yaml", second)

    found = load_rubrics(tmp_path)

    assert found.get("HARDENING") is not None
    assert [e.source for e in found.errors] == [str(path)]
    assert found.errors[0].problems[0].code == "duplicate_rubric"


def test_a_file_that_is_not_utf8_is_refused_with_its_name(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes("name: caf\xe9".encode("latin-1"))

    with pytest.raises(RubricError) as info:
        load_rubric_file(path)

    assert info.value.source == str(path)
    assert info.value.problems[0].code == "unreadable"


def test_get_finds_a_rubric_whatever_the_case_and_none_when_absent() -> None:
    found = load_rubrics(None)

    assert found.get("feature_ui") is found.get("FEATURE_UI") is not None
    assert found.get("Bug_Fix") is not None
    assert found.get("NO_SUCH_RUBRIC") is None


# The rules of the loader


def test_a_structural_error_is_reported_with_its_json_pointer() -> None:
    data = _rubric_data("FEATURE_UI")
    data["dimensions"][1]["weight"] = 1.5
    data["dimensions"][3]["colour"] = "blue"

    error = _refusal(data)

    assert ("/dimensions/1/weight", "less_than_equal") in _codes_at(error)
    assert ("/dimensions/3/colour", "unknown_field") in _codes_at(error)


def test_semantic_problems_are_reported_alongside_structural_ones() -> None:
    data = _rubric_data("FEATURE_UI")
    data["description"] = ""
    data["examples"][0]["scores"]["charm"] = {"score": 2, "rationale": "not a dimension"}

    codes = _codes_at(_refusal(data))

    assert ("/description", "string_too_short") in codes
    assert ("/examples/0/scores/charm", "score_unknown") in codes


def test_level_keys_written_as_numbers_are_accepted_and_stored_canonically() -> None:
    text = yaml.safe_dump(_rubric_data("PROJECT_HEALTH"), sort_keys=False)
    text = text.replace("'0.0':", "0:").replace("'0.4':", "0.40:").replace("'1.0':", "1:")

    rubric = load_rubric_text(text, "numbers.yaml")

    assert list(rubric.dimensions[0].levels) == ["0.0", "0.4", "0.7", "1.0"]
    assert list(rubric.scale.labels) == ["0.0", "0.4", "0.7", "1.0"]


def test_a_level_the_scale_does_not_have_is_unknown() -> None:
    data = _rubric_data("BUG_FIX")
    data["dimensions"][0]["levels"]["4"] = "beyond excellent"
    data["dimensions"][1]["levels"]["great"] = "not a number"

    codes = _codes_at(_refusal(data))

    assert ("/dimensions/0/levels/4", "level_unknown") in codes
    assert ("/dimensions/1/levels/great", "level_unknown") in codes


def test_duplicate_dimension_keys_are_refused() -> None:
    data = _rubric_data("BUG_FIX")
    data["dimensions"][3]["key"] = "correctness"

    assert ("/dimensions/3/key", "duplicate_dimension") in _codes_at(_refusal(data))


def test_scale_levels_outside_the_range_or_fractional_on_an_integer_scale_are_refused() -> None:
    data = _rubric_data("BUG_FIX")
    data["scale"]["levels"] = [0, 1, 2.5, 4]
    data["scale"]["min"] = -1

    codes = _codes_at(_refusal(data))

    assert ("/scale/min", "scale_range") in codes
    assert ("/scale/levels/2", "level_not_integer") in codes
    assert ("/scale/levels/3", "level_out_of_range") in codes
    assert not any(
        path.startswith("/dimensions") for path, _ in codes
    )  # not repeated per dimension


def test_example_scores_outside_the_scale_or_fractional_on_an_integer_scale_are_refused() -> None:
    data = _rubric_data("BUG_FIX")
    data["examples"][0]["scores"]["craft"]["score"] = 4
    data["examples"][1]["scores"]["craft"]["score"] = 1.5

    codes = _codes_at(_refusal(data))

    assert ("/examples/0/scores/craft/score", "score_out_of_range") in codes
    assert ("/examples/1/scores/craft/score", "score_not_integer") in codes


def test_an_example_whose_weighted_score_or_verdict_disagrees_with_the_rules_is_refused() -> None:
    data = _rubric_data("BUG_FIX")
    data["examples"][0]["weighted_score"] = 2.62  # computed 2.60: more than 0.01 away is refused...
    data["examples"][1]["weighted_score"] = 1.409  # ...but 1.40 within 0.01 is tolerated
    data["examples"][2]["verdict"] = "REVISE"

    codes = _codes_at(_refusal(data))

    assert ("/examples/0/weighted_score", "weighted_score_mismatch") in codes
    assert ("/examples/1/weighted_score", "weighted_score_mismatch") not in codes
    assert ("/examples/2/verdict", "verdict_mismatch") in codes


def test_a_unit_scale_example_needs_a_band_that_agrees_with_its_composite() -> None:
    data = _rubric_data("PROJECT_HEALTH")
    data["examples"][0]["band"] = "ADEQUATE"
    data["examples"][1]["band"] = None
    data["examples"][2]["weighted_score"] = 0.246  # computed 0.24: more than 0.005 away

    codes = _codes_at(_refusal(data))

    assert ("/examples/0/band", "band_mismatch") in codes
    assert ("/examples/1/band", "band_missing") in codes
    assert ("/examples/2/weighted_score", "weighted_score_mismatch") in codes


def test_an_integer_scale_example_states_a_verdict_and_no_band() -> None:
    data = _rubric_data("SECURITY")
    data["examples"][0]["verdict"] = None
    data["examples"][1]["band"] = "STRONG"

    codes = _codes_at(_refusal(data))

    assert ("/examples/0/verdict", "verdict_missing") in codes
    assert ("/examples/1/band", "band_not_applicable") in codes


def test_a_document_that_is_not_a_mapping_is_refused() -> None:
    with pytest.raises(RubricError) as info:
        load_rubric_text("- just\n- a list\n", "list.yaml")

    assert info.value.problems[0].path == ""
    assert "list.yaml" in str(info.value)


# Selection and arithmetic


@pytest.mark.parametrize(
    ("task_type", "has_ui", "expected"),
    [
        ("feature", True, "FEATURE_UI"),
        ("feature", False, "FEATURE_BACKEND"),
        ("Feature", True, "FEATURE_UI"),
        ("bug", True, "BUG_FIX"),
        ("bug", False, "BUG_FIX"),
        ("security", False, "SECURITY"),
        ("other", True, "FEATURE_BACKEND"),
        ("refactor", False, "FEATURE_BACKEND"),
    ],
)
def test_the_rubric_follows_task_type_and_ui(task_type: str, has_ui: bool, expected: str) -> None:
    assert select_rubric(task_type, has_ui) == expected


@pytest.mark.parametrize(
    ("scores", "expected"),
    [
        ({"correctness": 3, "functionality": 2, "design_quality": 2, "craft": 3}, "ACCEPT"),
        ({"correctness": 3, "functionality": 1, "design_quality": 2, "craft": 3}, "REVISE"),
        ({"correctness": 3, "functionality": 1, "design_quality": 0, "craft": 3}, "BLOCK"),
    ],
)
def test_on_a_0_to_3_scale_any_0_blocks_and_any_1_asks_for_a_revision(
    scores: dict[str, float], expected: str
) -> None:
    assert verdict_for(builtin_rubrics()["BUG_FIX"], scores) == expected


@pytest.mark.parametrize(
    ("lowest", "expected"), [(0.6, "ACCEPT"), (0.59, "REVISE"), (0.4, "REVISE"), (0.39, "BLOCK")]
)
def test_on_a_unit_scale_below_0_4_blocks_and_below_0_6_asks_for_a_revision(
    lowest: float, expected: str
) -> None:
    rubric = builtin_rubrics()["PROJECT_HEALTH"]
    scores = {key: 0.9 for key in rubric.weights()} | {"evolution": lowest}

    assert verdict_for(rubric, scores) == expected


def test_weighted_score_is_the_sum_of_score_times_weight_and_normalizes_to_100() -> None:
    rubric = builtin_rubrics()["FEATURE_BACKEND"]
    scores = {"correctness": 3, "design_quality": 2, "functionality": 2, "craft": 1, "security": 3}

    weighted = compute_weighted(rubric, scores)

    assert weighted == 2.35  # 1.05 + 0.50 + 0.40 + 0.10 + 0.30
    assert normalized(rubric, weighted) == 78.33
    assert normalized(rubric, 3.0) == 100.0


def test_a_unit_composite_keeps_three_decimals_and_normalizes_by_100() -> None:
    rubric = builtin_rubrics()["UNIVERSAL"]
    scores = dict.fromkeys(rubric.weights(), 0.7) | {"clarity": 0.8}

    weighted = compute_weighted(rubric, scores)

    assert weighted == 0.717
    assert normalized(rubric, weighted) == 71.7


def test_compute_weighted_refuses_scores_missing_a_dimension() -> None:
    with pytest.raises(ValueError, match="craft"):
        compute_weighted(
            builtin_rubrics()["BUG_FIX"],
            {"correctness": 3, "functionality": 3, "design_quality": 3},
        )


@pytest.mark.parametrize(
    ("composite", "band"),
    [
        (1.0, "STRONG"),
        (0.8, "STRONG"),
        (0.7999999999, "STRONG"),
        (0.79, "ADEQUATE"),
        (0.6, "ADEQUATE"),
        (0.59, "NEEDS_WORK"),
        (0.4, "NEEDS_WORK"),
        (0.399, "CRITICAL"),
        (0.0, "CRITICAL"),
    ],
)
def test_health_bands_follow_the_composite(composite: float, band: str) -> None:
    assert health_band(composite) == band


def test_a_loaded_rubric_is_the_pydantic_model() -> None:
    assert all(isinstance(r, Rubric) for r in builtin_rubrics().values())
