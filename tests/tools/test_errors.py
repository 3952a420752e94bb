"""Validation errors become problems whose pointers name the field, whatever union holds it."""

from __future__ import annotations

from typing import get_args

from referee.tools import errors
from referee.tools.models import checks
from referee.tools.models.browser import AnyExpectation, AnyStep


def _tags(models: tuple[type, ...], field: str) -> set[str]:
    return {tag for m in models for tag in get_args(m.model_fields[field].annotation)}


def test_every_union_tag_of_the_models_is_known_to_the_pointer_builder() -> None:
    kinds = _tags(get_args(get_args(checks.Check)[0]), "kind")
    actions = _tags(get_args(AnyStep), "action")
    types = _tags(get_args(AnyExpectation), "type")
    assert kinds | actions | types == errors._UNION_TAGS


def test_a_field_named_like_a_tag_keeps_its_place_in_the_pointer() -> None:
    loc = ("functional", 0, "check", "browser", "expect", 2, "text", "text")
    assert errors._pointer_parts(loc) == ("functional", 0, "check", "expect", 2, "text")
    steps = ("browser_setup", 1, "check", "selector")
    assert errors._pointer_parts(steps) == ("browser_setup", 1, "selector")
