"""What a finding says, the same in every language: what was found, and why it matters."""

from __future__ import annotations

__all__ = [
    "decides",
    "detects",
    "ended",
    "hook",
    "looks_at",
    "own",
    "patched_called",
    "patched_written",
    "printed",
    "process_tree",
    "reads",
    "runner",
    "source_of",
    "stack",
    "written",
]

_ACTS = (
    "code that acts for the test runner decides what the tests report; the tests also ran"
    " without this change"
)
_WHY = "what a test expects must not depend on where it runs"
_SOURCE = "a test that reads the code it tests can tell a mutant or the base from the change"


_UNDER_TEST = (
    "code that can tell a test run from production (or one of referee's runs from another) can"
    " pass its checks and fail in use"
)


def detects(tell: str, read: str) -> str:
    return f"asks whether it runs under test ({tell}, through {read}): {_UNDER_TEST}"


def own(what: str) -> str:
    return f"reads {what}: code that reads its own bytes can tell a mutant from itself"


def ended(named: str) -> str:
    return f"ends the process under the runner ({named}): {_ACTS}"


def channel(named: str) -> str:
    return f"replaces the channel a runner's worker reports its results through ({named}): {_ACTS}"


def printed(line: str) -> str:
    return f"prints the runner's protocol ({line!r}), a forged report line: {_ACTS}"


def runner(named: str) -> str:
    return f"names the runner's report or hooks ({named}): {_ACTS}"


def written() -> str:
    return (
        "writes a file whose path comes from argv or the environment (where the runner was told"
        f" to write its report): {_ACTS}"
    )


def looks_at(where: str) -> str:
    return f"looks at {where!r}: {_WHY}"


def reads(what: str) -> str:
    return f"reads {what}: {_SOURCE}"


def source_of(name: str) -> str:
    return f"reads the source of `{name}`: {_SOURCE}"


def decides(named: str) -> str:
    return f"lets {named} decide what it expects: {_WHY}"


def stack(named: str) -> str:
    """A condition that depends on a stack read (an error's `.stack`, `runtime.FuncForPC`, a
    panic's location): where the code lies in its files, which any edit moves."""
    return f"lets where code lies in its files ({named}) decide what it expects: {_SOURCE}"


def clock(named: str) -> str:
    """A condition that depends on the time: runs made at other times (the base's, before and
    after the run now; the mutants', after it) would expect something else."""
    return (
        f"lets the clock ({named}) decide what it expects: a test that expects one thing at one"
        " time and another later can tell referee's runs apart (the base's before and after the"
        " run now, the mutants')"
    )


def listing(named: str) -> str:
    """A condition or an expectation that depends on what the tree holds: the base's view leaves
    out the change's new files, a hold-out's run has one more."""
    return (
        f"lets what the tree holds ({named}) decide what it expects: referee's base run shows"
        " the base's files (without the change's new ones) and a hold-out's run one more, so a"
        " test that lists or looks for files can tell them apart"
    )


def process_tree() -> str:
    return f"inspects the process tree: {_WHY}"


def patched_written(named: str, path: str) -> str:
    return (
        f"replaces {named}, which the change wrote in {path}: the test passes whatever that code"
        " does"
    )


def patched_called(named: str, path: str) -> str:
    return (
        f"replaces {named} of {path} and calls it itself: the test checks its own replacement,"
        " not the code"
    )


def hook(named: str) -> str:
    return (
        f"replaces the import machinery ({named}): it can put anything in place of the code"
        " under test"
    )
