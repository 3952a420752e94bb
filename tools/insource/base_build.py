"""A base build that failed: what it says of the change's tests.

cargo builds a crate's test targets before running any: one error and nothing at base ran. The
runner reads the errors as one outcome per file they point into (tools/runners/rust_cargo.py).
The rule, as for a Python test file that fails to import the base code:

- an error inside a spliced test module, or in a test file the change touched, comes from the
  change's tests calling what base does not have (a new function, a new signature): the tests the
  change added or edited there fail at base; its other tests did not run there, and prove nothing;
- an error anywhere else (the base's own code, with the test module spliced in, or a file the
  change's tests do not touch) says the splice or the base build itself is broken: nothing shows
  the tests fail without the change, and the criterion is unscored with that error.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass

from referee.tools.insource.ids import edited, in_declared_file, in_module_file
from referee.tools.insource.splice import Spliced
from referee.tools.models.evidence import TestOutcome
from referee.tools.runners.rust_cargo import BUILD_ERROR

__all__ = ["BaseBuild", "read_base_build"]

_PLACE = re.compile(r":(\d+):\d+$")


@dataclass(frozen=True)
class BaseBuild:
    """The base run's outcomes with its build errors read."""

    outcomes: list[TestOutcome]
    """The base outcomes, each build error caused by the change's tests replaced by an error for
    each of those tests (as run now)."""
    caused: list[str]
    """The files whose build error the change's tests caused, with the error."""
    broken: str | None = None
    """Why the base build proves nothing (an error outside the change's tests), else None."""


def read_base_build(
    before: list[TestOutcome],
    now: list[TestOutcome],
    spliced: Mapping[str, Spliced],
    touched: Collection[str],
) -> BaseBuild:
    """The base run's outcomes once its build errors are read (see the module docstring)."""
    errors = [t for t in before if t.outcome == "error" and t.message.startswith(BUILD_ERROR)]
    if not errors:
        return BaseBuild(before, [])
    kept = [t for t in before if t not in errors]
    caused: list[str] = []
    for error in errors:
        tests = _tests_of(error, now, spliced, touched)
        if tests is None:
            return BaseBuild(before, [], _broken(error, error.name in spliced))
        detail = error.message.removeprefix(BUILD_ERROR)
        caused.append(f"{error.name} ({detail})")
        kept += [TestOutcome(name=n, outcome="error", message=error.message) for n in tests]
    return BaseBuild(kept, caused)


def _tests_of(
    error: TestOutcome,
    now: list[TestOutcome],
    spliced: Mapping[str, Spliced],
    touched: Collection[str],
) -> list[str] | None:
    """The change's tests a build error keeps from running at base, or None when the error is
    not theirs."""
    path = error.name
    if path in touched:
        # A module file's tests (`src/tests.rs`, or a `#[path]` file) are named by their crate
        # root and the module that declares them.
        return [
            t.name
            for t in now
            if t.name.startswith(path + "::")
            or in_module_file(path, t.name)
            or any(in_declared_file(path, p, s, t.name) for p, s in spliced.items())
        ]
    block = spliced.get(path)
    place = _PLACE.search(error.message)
    if block is None or place is None:
        return None
    line = int(place[1])
    if not any(first <= line <= last for first, last in block.lines):
        return None
    return [t.name for t in now if edited(path, block, t.name)]


def _broken(error: TestOutcome, was_spliced: bool) -> str:
    detail = error.message.removeprefix(BUILD_ERROR)
    if was_spliced:
        return (
            f"at base, {error.name} with the change's test module spliced in does not compile"
            f" outside that module ({detail}): the splice cannot be made, so nothing shows the"
            " tests fail without the change"
        )
    return (
        f"at base, {error.name} does not compile although the change's tests do not touch it"
        f" ({detail}): the base build is broken, so nothing shows the tests fail without the"
        " change"
    )
