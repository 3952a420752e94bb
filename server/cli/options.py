"""Command-line options built from the tools' input models, so a flag's type, choices, default and
help have one source: the pydantic model the MCP tool takes too.

The models are read through their generated JSON Schemas (`schemas/*-input.schema.json`, checked
against the models by tests/test_schemas.py), not imported: building the parser for `--help` or
`--version` must not load pydantic and referee's models.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any


@dataclass(frozen=True)
class Field:
    """One property of an input schema, as a command-line option needs it."""

    name: str
    kind: str  # string · integer · number · boolean · array
    description: str
    default: Any
    required: bool
    choices: tuple[str, ...] | None
    minimum: float | None

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")


@cache
def schema(name: str) -> dict[str, Any]:
    """A generated schema of the package (`evaluate-input` …)."""
    text = resources.files("referee.schemas").joinpath(f"{name}.schema.json").read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def fields(name: str) -> dict[str, Field]:
    """The properties of an input schema, in the model's order."""
    body = schema(name)
    required = set(body.get("required", []))
    return {
        key: _field(key, prop, key in required, body.get("$defs", {}))
        for key, prop in body.get("properties", {}).items()
    }


def _field(name: str, prop: dict[str, Any], required: bool, defs: dict[str, Any]) -> Field:
    shape = _resolved(prop, defs)
    return Field(
        name=name,
        kind=str(shape.get("type", "object")),
        description=str(prop.get("description") or shape.get("description") or ""),
        default=prop.get("default"),
        required=required,
        choices=tuple(shape["enum"]) if "enum" in shape else None,
        minimum=shape.get("minimum"),
    )


def _resolved(prop: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    """The property's own shape: a `$ref` followed, an optional (`anyOf` with null) unwrapped."""
    if "$ref" in prop:
        return _resolved(defs[prop["$ref"].rsplit("/", 1)[-1]], defs)
    options = [p for p in prop.get("anyOf", []) if p.get("type") != "null"]
    if len(options) == 1:
        return _resolved({**prop, **options[0], "anyOf": []}, defs)
    return prop


def add_model_options(
    parser: argparse.ArgumentParser,
    name: str,
    *,
    positional: Iterable[str] = (),
    skip: Iterable[str] = (),
) -> list[str]:
    """Add one option per property of the input schema `name`.

    Args:
        parser: The subcommand's parser.
        name: The schema (`evaluate-input`).
        positional: Properties taken as positional arguments, in this order.
        skip: Properties the command takes another way (files, an id-or-file argument); every
            other property becomes an option, so a field added to a model reaches the CLI.

    Returns:
        The properties added, to build the model from the parsed namespace (`model_arguments`).

    Raises:
        ValueError: a property has a shape no option can take (an object) and is not skipped.
    """
    found = fields(name)
    skipped = set(skip)
    added = []
    for key in positional:
        spec = found[key]
        parser.add_argument(key, help=_help(spec))
        added.append(key)
    for key, spec in found.items():
        if key in skipped or key in added:
            continue
        parser.add_argument(spec.flag, dest=key, **_option(spec))
        added.append(key)
    return added


def _option(spec: Field) -> dict[str, Any]:
    text = _help(spec)
    if spec.kind == "boolean":
        if spec.default:
            return {"action": argparse.BooleanOptionalAction, "default": True, "help": text}
        return {"action": "store_true", "default": False, "help": text}
    if spec.kind == "array":
        return {"action": "append", "default": None, "metavar": "VALUE", "help": text}
    convert = {"string": str, "integer": int, "number": float}.get(spec.kind)
    if convert is None:
        raise ValueError(f"{spec.name}: a property of type {spec.kind} cannot be an option")
    kind = _at_least(convert, spec.minimum, spec.flag) if spec.minimum is not None else convert
    option: dict[str, Any] = {"type": kind, "default": spec.default, "help": text}
    if spec.choices is not None:
        option["choices"] = list(spec.choices)
    elif spec.kind in ("integer", "number"):
        option["metavar"] = "N"
    return option


def _at_least(convert: Any, minimum: float, flag: str) -> Any:
    """The converter of a bounded number: the model's `ge` said at parse time, as a usage error."""

    def parse(text: str) -> Any:
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{flag} starts at {minimum:g}")
        return value

    return parse


def _help(spec: Field) -> str:
    text = spec.description.rstrip(".") or spec.name.replace("_", " ")
    if spec.kind == "boolean":
        return f"{text} (default: on)" if spec.default else text
    return f"{text} (default: {spec.default})" if spec.default is not None else text


def model_arguments(args: argparse.Namespace, names: Iterable[str]) -> dict[str, Any]:
    """The model's keyword arguments from a parsed namespace (options left out are the model's
    defaults already)."""
    return {key: getattr(args, key) for key in names}
