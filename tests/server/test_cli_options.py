"""The CLI's options come from the tools' input models: same names, types, choices, defaults and
help, so the two cannot drift; a field added to a model reaches the command line."""

from __future__ import annotations

import argparse
import typing
from typing import Any

import pytest
from pydantic import BaseModel

from referee.server import cli
from referee.server.cli import options
from referee.tools.models.aggregate import AggregateInput
from referee.tools.models.contract import GetContractInput
from referee.tools.models.evaluation import EvaluateInput
from referee.tools.models.validation import ValidateScorecardInput

# command → (model, fields the command takes another way: files, an id-or-file argument)
COMMANDS: dict[tuple[str, ...], tuple[type[BaseModel], set[str]]] = {
    ("evaluate",): (EvaluateInput, set()),
    ("aggregate",): (AggregateInput, {"contract_id", "scorecards"}),
    ("validate",): (ValidateScorecardInput, {"scorecard", "contract_id", "contract"}),
    ("contract", "show"): (GetContractInput, set()),
    ("contract", "export"): (GetContractInput, set()),
}


def _subparser(path: tuple[str, ...]) -> argparse.ArgumentParser:
    parser = cli.build_parser()
    for name in path:
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = sub.choices[name]
    return parser


def _literal_values(annotation: Any) -> tuple[Any, ...] | None:
    if typing.get_origin(annotation) is typing.Literal:
        return typing.get_args(annotation)
    return None


@pytest.mark.parametrize("path", list(COMMANDS), ids=" ".join)
def test_every_model_field_is_an_option_with_the_models_default_choices_and_help(
    path: tuple[str, ...],
) -> None:
    model, elsewhere = COMMANDS[path]
    actions = {a.dest: a for a in _subparser(path)._actions}
    for name, info in model.model_fields.items():
        if name in elsewhere:
            continue
        action = actions[name]
        if action.option_strings:
            assert action.option_strings[0] == "--" + name.replace("_", "-")
            assert action.default == info.default, name
        assert (action.help or "").startswith((info.description or name).rstrip(".")), name
        values = _literal_values(info.annotation)
        if values is not None:
            assert tuple(action.choices or ()) == values, name


def test_the_options_say_what_they_do_and_their_default() -> None:
    helps = {a.dest: a.help or "" for a in _subparser(("evaluate",))._actions}
    assert helps["scope"].endswith("(default: task)") and "strategic" in helps["scope"]
    assert helps["depth"].endswith("(default: standard)") and "mutants" in helps["depth"]


def test_a_bound_of_the_model_is_a_usage_error_at_parse_time(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for command in (["evaluate", "SC-x-20260101"], ["aggregate", "SC-x-20260101"]):
        with pytest.raises(SystemExit) as caught:
            cli.main([*command, "--iteration", "0"])
        assert caught.value.code == 2
        assert "--iteration starts at 1" in capsys.readouterr().err


def test_a_field_no_option_can_hold_must_be_named_as_taken_elsewhere() -> None:
    parser = argparse.ArgumentParser()
    with pytest.raises(ValueError, match="scorecard: a property of type object"):
        options.add_model_options(parser, "validate-scorecard-input")


def test_a_default_on_switch_can_be_turned_off(tmp_path: Any) -> None:
    parsed = _subparser(("validate",)).parse_args(["card.json", "--no-store"])
    assert parsed.store is False
    assert _subparser(("validate",)).parse_args(["card.json"]).store is True
