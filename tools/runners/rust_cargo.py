"""`cargo test`: libtest's own per-test lines (`test a::b ... ok`) and failure sections.

libtest's stable output has no machine format (its JSON needs a nightly compiler), so the lines it
prints for every test are read from stdout. Ids are libtest's (`module::tests::name`), runnable as
`cargo test module::tests::name`. `-q` is dropped: it prints dots instead of names.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from referee.tools.models.evidence import TestOutcome
from referee.tools.runners.base import Call, Plan, Report, Runner, base_name
from referee.tools.runners.junit import RAW_MESSAGE_LIMIT, trim_message

_RESULT = re.compile(r"test (\S(?:.*\S)?) \.\.\. (ok|FAILED|ignored(?:, .*)?)")
_SECTION = re.compile(r"---- (\S(?:.*\S)?) std(?:out|err) ----")
_OUTCOMES: dict[str, Literal["passed", "failed", "skipped"]] = {
    "ok": "passed",
    "FAILED": "failed",
    "ignored": "skipped",
}
_MAX_LINE = 4096
_QUIET = ("-q", "--quiet")


def matches(command: Sequence[str]) -> bool:
    return _subcommand(command) == "test"


def _subcommand(command: Sequence[str]) -> str | None:
    if not command or base_name(command[0]) != "cargo":
        return None
    rest = [t for t in command[1:] if not t.startswith("+")]  # `cargo +nightly test`
    return rest[0] if rest else None


def plan(call: Call) -> Plan:
    args = list(call.args)
    cut = args.index("--") if "--" in args else len(args)
    kept = [a for a in args[:cut] if a not in _QUIET] + args[cut:]
    return Plan(
        runner="cargo test",
        argv=call.argv((call.command[0], *kept)),
        report=Report("libtest", parse_libtest, stdout=True),
    )


def parse_libtest(data: bytes) -> list[TestOutcome]:
    """Outcomes from libtest's human output: one `test NAME ... RESULT` line per test."""
    results: dict[str, TestOutcome] = {}
    messages: dict[str, list[str]] = {}
    current: list[str] | None = None
    for raw in data.decode("utf-8", errors="replace").splitlines():
        line = raw[:_MAX_LINE].rstrip()
        if (found := _RESULT.fullmatch(line)) is not None:
            word = found.group(2).split(",")[0]
            results[found.group(1)] = TestOutcome(name=found.group(1), outcome=_OUTCOMES[word])
            current = None
        elif (section := _SECTION.fullmatch(line)) is not None:
            current = messages.setdefault(section.group(1), [])
        elif line in ("failures:", "successes:") or line.startswith("test result: "):
            current = None
        elif current is not None and sum(map(len, current)) < RAW_MESSAGE_LIMIT:
            current.append(raw)
    return [
        o.model_copy(update={"message": trim_message("\n".join(messages.get(o.name, [])).strip())})
        for o in results.values()
    ]


RUNNER = Runner("cargo test", matches, plan)
