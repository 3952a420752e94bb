"""Every code a rubric file's check can report (load.py, check.py), besides pydantic's own."""

from __future__ import annotations

from referee.tools.meanings import Family, Meaning
from referee.tools.meanings import error as _e

_DEFINE = "Give every level of the scale exactly one non-empty definition."

RUBRIC_CODES: dict[str, Meaning] = {
    "unreadable": _e("The rubric file cannot be read as UTF-8 text.", "Save it as UTF-8."),
    "yaml_syntax": _e("The file is not valid YAML; the message gives the line.", "Fix the YAML."),
    "not_a_mapping": _e(
        "The document is not a YAML mapping (an empty file, a list, a string).",
        "Write the keys name, version, scale, dimensions and examples.",
    ),
    "duplicate_rubric": _e(
        "Two user rubric files define the same name (ignoring case); the first in file-name"
        " order wins.",
        "Rename one of them.",
    ),
    "scale_range": _e(
        "The scale's min or max is not its kind's span (integer 0–3, unit 0.0–1.0).",
        "Use the kind's span.",
    ),
    "level_out_of_range": _e("A scale level lies outside the scale's span.", "Remove the level."),
    "level_not_integer": _e(
        "A level of an integer scale has decimals.", "Use whole-number levels."
    ),
    "level_duplicate": _e("A level is listed or defined twice.", "Keep one of them."),
    "level_unknown": _e(
        "A dimension defines a level the scale does not have.", "Use the scale's levels."
    ),
    "level_empty": _e("A level's definition is empty.", _DEFINE),
    "level_missing": _e("A level of the scale has no definition in a dimension.", _DEFINE),
    "duplicate_dimension": _e(
        "Two dimensions share a key.", "Give every dimension its own snake_case key."
    ),
    "weights_sum": _e(
        "The dimension weights do not sum to 1.0 (tolerance 1e-6).",
        "Adjust the weights so they sum to 1.0.",
    ),
    "score_missing": _e("An example gives no score for a dimension.", "Score every dimension."),
    "score_unknown": _e(
        "An example scores a dimension the rubric does not have.", "Use the rubric's keys."
    ),
    "score_out_of_range": _e(
        "An example's score lies outside the scale.", "Use a score inside the scale."
    ),
    "score_not_integer": _e(
        "An example's score on an integer scale has decimals.", "Use a whole number."
    ),
    "verdict_missing": _e(
        "An example on an integer scale states no verdict.", "State ACCEPT, REVISE or BLOCK."
    ),
    "verdict_mismatch": _e(
        "An example's verdict is not the one its scores give.", "State the computed verdict."
    ),
    "band_missing": _e(
        "An example on a unit scale states no band.",
        "State STRONG, ADEQUATE, NEEDS_WORK or CRITICAL.",
    ),
    "band_not_applicable": _e(
        "An example on an integer scale states a health band.", "Remove the band."
    ),
    "band_mismatch": _e(
        "An example's band is not the one its weighted score gives.", "State the computed band."
    ),
    "weighted_score_mismatch": _e(
        "An example's weighted_score differs from Σ score × weight by more than 0.01 (unit"
        " scale: 0.005).",
        "State the computed value.",
    ),
}

FAMILY = Family(
    key="rubric",
    title="Rubric file codes",
    intro=(
        "Problems of a rubric file (a built-in, or one committed in `.referee/rubrics/`), each"
        " with a JSON pointer into the file. A rubric with problems is not loaded; pydantic's"
        " codes (`required`, `unknown_field` …, see [Input codes](#input-codes)) may appear too."
    ),
    codes=RUBRIC_CODES,
)
