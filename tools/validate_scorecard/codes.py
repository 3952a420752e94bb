"""Every code `validate_scorecard` can report: its severity, what it means and how to fix it.

docs/codes.md is generated from `CODES` (scripts/generate_docs.py; a test keeps them equal), so a
new rule is one entry here. A code has one severity, except `evidence_unchecked`, which becomes an
error when the caller requires evidence.
"""

from __future__ import annotations

from referee.tools.meanings import Family, Meaning, Severity
from referee.tools.meanings import error as _e
from referee.tools.meanings import warning as _w
from referee.tools.models.antipatterns import ANTIPATTERNS

CODES: dict[str, Meaning] = {
    # JSON text (the CLI's files and standard input, the gate's committed cards; MCP arguments)
    "json_invalid": _e(
        "The text is not JSON a parser can agree on: a syntax error, not UTF-8, an unpaired"
        " surrogate in a string, a number of more than 4,300 digits.",
        "Write plain UTF-8 JSON (`json.dumps` of the scorecard object).",
    ),
    "duplicate_key": _e(
        "An object names the same key twice (the pointer names it); parsers disagree on which"
        " value counts.",
        "Keep exactly one value for the key.",
    ),
    "non_finite_number": _e(
        "`NaN`, `Infinity`, `-Infinity` or a number beyond a double's range (`1e999`): not a JSON"
        " number, and one that compares false with every bound.",
        "Write a finite number.",
    ),
    "too_deep": _e(
        "The JSON nests more than 64 levels deep (a scorecard needs a handful).",
        "Send the scorecard's own structure, nothing nested inside it.",
    ),
    "too_large": _e(
        "The JSON text is larger than 2 MiB (a scorecard is a few KiB).",
        "Send one scorecard of ordinary size; cite long output by evidence id.",
    ),
    # Shape (JSON Schema, draft 2020-12)
    "not_an_object": _e(
        "The scorecard is not a JSON object.",
        "Send one scorecard object (the CLI also takes an array of them).",
    ),
    "format_unknown": _e(
        "Neither format can be recognised: no `contract_ref`/`dimensions` (canonical) and no"
        " `task_id`/`domains` (tenpoint).",
        "Add the identifying fields, or pass the format explicitly.",
    ),
    "required": _e("A required field is missing; the pointer names it.", "Add the field."),
    "type": _e(
        'A value has the wrong JSON type (e.g. `pass: "true"`).',
        "Write the type the schema asks for (booleans unquoted, numbers as numbers).",
    ),
    "out_of_range": _e(
        "A number lies outside its range (0–3 or 0.0–1.0 per the rubric's scale, 1–10 for tenpoint"
        " scores, iteration ≥ 1).",
        "Use a value inside the range.",
    ),
    "score_not_integer": _e(
        "A score on an integer scale (0–3 rubrics, tenpoint 1–10) has decimals.",
        "Use a whole number.",
    ),
    "not_allowed": _e(
        "A value is not one of the allowed values (severity, verdict …).",
        "Use one of the values the message lists.",
    ),
    "unknown_field": _e(
        "A field that is not part of the format (often a misspelling).",
        "Remove it or correct its spelling.",
    ),
    "empty": _e("A required text (provider, description, id …) is empty.", "Write it."),
    "evidence_empty": _e(
        "Evidence (or, tenpoint, comment) is missing or blank.",
        "Cite what supports the score or verdict: file:line, an evidence id, observed behaviour.",
    ),
    "dispatch_count": _e(
        "`dispatch_count` is not 1.", "Set it to 1; the orchestrator counts dispatches."
    ),
    "spec_defect_shape": _e(
        '`spec_defect` is neither null/absent nor `{"detected": true, "reason": "…"}`.',
        "Use null when the spec is sound; otherwise detected true with a non-empty reason.",
    ),
    "schema_violation": _e(
        "Another JSON Schema rule failed.",
        "Follow the message; the schema is served as schema://scorecard and"
        " schema://tenpoint-scorecard.",
    ),
    # Contract
    "contract_unchecked": _w(
        "No contract was given, so the contract rules were skipped.",
        "Validate against a contract (contract_id, an inline contract, or `--contract`).",
    ),
    "contract_mismatch": _e(
        "`contract_ref` / `task_id` is not the id of the contract validated against.",
        "Use the contract's id, or validate against the right contract.",
    ),
    "iteration_out_of_range": _e(
        "The iteration is beyond the contract's `max_iterations`.",
        "Use an iteration between 1 and max_iterations.",
    ),
    "evaluator_unknown": _e(
        "The evaluator is not one of the contract's evaluators.",
        "Use the evaluator name the contract assigns.",
    ),
    "evaluator_missing": _e(
        "A tenpoint scorecard names no evaluator, the contract has several, and its criteria do"
        " not all belong to one of them.",
        "Add `evaluator` (or a `provider` equal to an evaluator's name).",
    ),
    "criterion_missing": _e(
        "A criterion assigned to this evaluator (hold-outs included) has no verdict.",
        "Add `{id, pass, evidence}` for it.",
    ),
    "criterion_unknown": _e(
        "A criterion id that the contract does not have.",
        "Reproduce the contract's criterion ids exactly.",
    ),
    "criterion_duplicate": _e(
        "The same criterion id appears twice.", "Keep one verdict per criterion."
    ),
    "criterion_other_evaluator": _w(
        "A verdict for a criterion assigned to another evaluator.",
        "Leave it to that evaluator, or keep it knowing only the assigned evaluator's verdict"
        " counts.",
    ),
    "pass_without_evidence": _e(
        'A criterion is marked pass with evidence "no evidence".',
        "A criterion the evidence cannot support is `pass: false`.",
    ),
    "rubric_unknown": _e(
        "The rubric cannot be found, so dimension keys and arithmetic cannot be checked.",
        "Name an available rubric in `rubric.ref`, or validate against the contract.",
    ),
    "rubric_mismatch": _e(
        "`rubric.ref` differs from the contract's rubric.", "Score with the contract's rubric."
    ),
    "rubric_version_changed": _w(
        "`rubric.version` differs from the version the contract recorded; scores are not comparable"
        " across versions.",
        "Score with the contract's rubric version, or accept that the comparability guard will"
        " say so.",
    ),
    "dimension_missing": _e(
        "A dimension of the rubric (tenpoint: one the contract sets a threshold for) has no score.",
        "Score every dimension.",
    ),
    "dimension_unknown": _e(
        "A dimension key that the rubric does not have.",
        "Use the rubric's snake_case keys exactly.",
    ),
    "dimensions_without_thresholds": _w(
        "Tenpoint dimensions scored where the contract sets no threshold for them.",
        'Use `"dimensions": {}` for evidence-only domains, or add thresholds to the contract.',
    ),
    "threshold_missing": _e(
        "A tenpoint dimension the contract sets a threshold for states none.",
        "Copy the contract's threshold into `threshold`.",
    ),
    "threshold_mismatch": _e(
        "A tenpoint dimension states a threshold other than the contract's.",
        "Use the contract's threshold.",
    ),
    "guidance_missing": _e(
        "A dimension is below its threshold (0–3: below 2; unit: below 0.6; tenpoint: its"
        " threshold) but guidance is empty.",
        "Write actionable guidance for each weak dimension.",
    ),
    "antipattern_unknown": _e(
        "A detected antipattern id is neither in the contract's `antipatterns` nor one of referee's"
        " own.",
        f"Use an id from the contract or referee's list ({', '.join(ANTIPATTERNS)}).",
    ),
    # Arithmetic
    "weighted_score_mismatch": _e(
        "The stated `weighted_score` differs from Σ score × weight (tenpoint: the mean) by more"
        " than 0.01.",
        "State the computed value (see `computed`) or leave it out.",
    ),
    "verdict_mismatch": _e(
        "The stated `verdict` differs from the one the scores, criteria, antipatterns and"
        " spec_defect give.",
        "State the computed verdict (see `computed`) or leave it out.",
    ),
    # Evidence
    "evidence_unchecked": _w(
        "No recorded evaluation is at hand, so the evidence rules were skipped (an error with"
        " `--require-evidence` / require_evidence).",
        "Run `evaluate` first, or validate where referee's database is available.",
    ),
    "evidence_unknown": _e(
        "An `evidence_ids` entry does not exist in the recorded evaluation.",
        "Cite ids from evaluate's `evidence` list (E1, E2 …).",
    ),
    "unverified_pass": _e(
        "A criterion is marked passed although referee could not run its check (runner missing,"
        " timeout, server never ready).",
        "Fix what stopped the check and evaluate again, or mark it pass: false.",
    ),
    "flaky_pass": _e(
        "A criterion is marked passed although its tests disagreed across repeated runs"
        " (`repeat: N`: a test both passed and failed on the same tree).",
        "Make the flaky tests deterministic and evaluate again, or mark it pass: false.",
    ),
    "generator_evidence_only": _e(
        "A criterion marked passed cites only evidence captured from the generator's own session"
        " (G-…).",
        "Cite evidence referee recorded with evaluate, or file:line you checked yourself.",
    ),
    "contradicts_evidence": _e(
        "The scorecard raises what referee's own run decided: a criterion verdict against the"
        ' recorded check ("contradicts E3: exit code 1"), a deterministic dimension scored above'
        " the score referee derived, an issue referee found left out (or kept at a lower"
        " severity), or, in either format, a verdict better than the run's evidence allows"
        " (a derived dimension at 0 allows BLOCK; a failed check, an antipattern no judge may"
        " dismiss or a CRITICAL issue allows REVISE), whatever the card names or leaves out.",
        "Follow the evidence: mark criteria as the check found, score a deterministic dimension at"
        " most as derived under referee's name for it (tenpoint too: `security`, at most its"
        " allowance on 1–10), keep referee's issues; or fix the code and evaluate again.",
    ),
    "stale": _e(
        "`target.tree` is not the current tree of what its run evaluated (the working tree, or"
        " what the ref of `evaluate --ref` points at now): the scorecard judges other content.",
        "Evaluate the current tree (or that ref) again and score the new run.",
    ),
    "stale_unchecked": _w(
        "The repository's current tree is unknown, so staleness was not checked.",
        "Validate where the contract's repository is available.",
    ),
    "target_missing": _e(
        "`target.tree` is absent, so neither staleness nor the binding to a run can be checked.",
        "Copy `target` from evaluate's draft scorecard.",
    ),
    "run_required": _e(
        "No recorded run of this contract, evaluator and iteration backs the scorecard (canonical:"
        " no `run_id`; tenpoint: no run of its evaluator and iteration).",
        "Call evaluate, then complete its draft scorecard, keeping run_id and signature.",
    ),
    "run_mismatch": _e(
        "The run the scorecard names is of another evaluator, iteration or tree than the"
        " scorecard.",
        "Score the run of your own evaluator and iteration, with its target.tree unchanged.",
    ),
    "antipattern_dropped": _e(
        "An antipattern referee detected in the run (test tampering, tree_modified,"
        " harness_modified …) is missing from `antipatterns_detected`.",
        "Keep every antipattern of the draft scorecard; a judge may add, never drop.",
    ),
    "antipattern_dismissed": _w(
        "The scorecard leaves out `harness_modified`, which referee allows only when every tests"
        " check gave the same verdict with the base harness (a new fixture, not a trick), or"
        " `code_under_test_patched` / `test_inspects_environment` / `code_detects_tests` /"
        " `equality_forged` / `environment_modified`, suspicions at file:line that the judge may"
        " find ordinary (a mocked collaborator, a fixture read, logging quieter under test, a"
        " matcher library's `ANY`, a dependency the task installed).",
        "Nothing, if the harness change is legitimate: the dismissal is listed in aggregate's"
        " quality notes and the report.",
    ),
    "deterministic_override": _w(
        "A dimension score is lower than the one referee derived from the evidence (a judge may"
        " lower it, never raise it).",
        "Nothing, if the judgement is deliberate: the override is listed in aggregate's quality"
        " notes and the report.",
    ),
    "store_tampered": _e(
        "A stored row does not verify with referee's key, or the database holds objects referee"
        " never creates.",
        "Evaluate again into a fresh store and find out who wrote to it.",
    ),
    "run_unknown": _e(
        "`run_id` names no recorded evaluation of this contract.",
        "Use the run id evaluate returned.",
    ),
    "signature_missing": _e(
        "A `run_id` without a `signature`.", "Copy the signature evaluate returned with that run."
    ),
    "signature_invalid": _e(
        "The signature does not match the recorded evaluation: the scorecard is not grounded in"
        " that run.",
        "Copy run_id and signature unchanged from evaluate's result.",
    ),
    "signature_unchecked": _w(
        "No signing key is available, so the signature was not verified.",
        "Validate where referee's store (and its key) is available.",
    ),
    # Storage
    "replaced_scorecard": _w(
        "An earlier scorecard of this evaluator for this iteration was replaced (kept in history).",
        "Nothing, if the resubmission was intended.",
    ),
    "not_stored": _w(
        "The scorecard is valid but was not recorded as the evaluator's verdict.",
        "Validate against a stored contract with storing enabled.",
    ),
}

REQUIRABLE = frozenset({"evidence_unchecked"})
REQUIRABLE_NOTE = "warning (error when evidence is required)"

OVERRIDES = frozenset({"deterministic_override", "antipattern_dismissed"})
"""Warnings where a valid card departs from referee's own evidence (a lowered deterministic score,
a dismissed antipattern): aggregate's quality notes, the report and the gate's summary list them."""


def severity(code: str, *, require_evidence: bool = False) -> Severity:
    """Return whether a code is an error or a warning (unknown codes are errors).

    Args:
        code: A validation code.
        require_evidence: Evidence must be checked, so skipping the evidence rules is an error.

    Returns:
        "error" or "warning".
    """
    if require_evidence and code in REQUIRABLE:
        return "error"
    entry = CODES.get(code)
    return (entry.severity if entry else None) or "error"


FAMILY = Family(
    key="validate",
    title="Validate codes",
    intro=(
        "Each problem `validate_scorecard` and `referee validate` report, `{path, code, message}`"
        " in `errors` or `warnings`. Errors make the scorecard invalid (`valid: false`, CLI exit"
        " 1); warnings do not."
    ),
    codes=CODES,
    notes=dict.fromkeys(REQUIRABLE, REQUIRABLE_NOTE),
)
