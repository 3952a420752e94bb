"""vitest: run once (never watch), its default reporter on the console and its json reporter
(jest's format) into the scratch folder."""

from __future__ import annotations

from collections.abc import Sequence

from referee.tools.runners.base import JUNIT_HINT, Advice, Call, Plan, Report, Runner, base_name
from referee.tools.runners.js_bin import runner_argv
from referee.tools.runners.js_report import jest_json_reader

_WATCHING = ("watch", "dev")
_SUBCOMMANDS = ("run", "related", "list", *_WATCHING)


def matches(command: Sequence[str]) -> bool:
    return bool(command) and base_name(command[0]) == "vitest"


def plan(call: Call) -> Plan | Advice:
    args = list(call.args)
    if any(a.startswith("--outputFile") and not a.startswith("--outputFile.") for a in args):
        return Advice(
            "vitest",
            f"this command names its own --outputFile; add `--reporter=json "
            f"--outputFile.json=FILE` {JUNIT_HINT}",
        )
    if args and args[0] in _WATCHING:
        args[0] = "run"
    elif not args or args[0] not in _SUBCOMMANDS:
        args.insert(0, "run")
    report = call.reports / "vitest.json"
    reporters = ["--reporter=default", "--reporter=json", f"--outputFile.json={report}"]
    return Plan(
        runner="vitest",
        argv=runner_argv(call, "vitest", (*args, *reporters)),
        report=Report("jest-json", jest_json_reader(call.cwd), files=(report,)),
    )


RUNNER = Runner("vitest", matches, plan)
