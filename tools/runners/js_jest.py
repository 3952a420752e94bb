"""jest: its built-in `--json --outputFile` (no extra package), written to the scratch folder."""

from __future__ import annotations

from collections.abc import Sequence

from referee.tools.runners.base import Advice, Call, Plan, Report, Runner, base_name
from referee.tools.runners.js_bin import runner_argv
from referee.tools.runners.js_report import jest_json_reader


def matches(command: Sequence[str]) -> bool:
    return bool(command) and base_name(command[0]) == "jest"


def plan(call: Call) -> Plan | Advice:
    if any(t == "--json" or t.startswith("--outputFile") for t in call.args):
        return Advice(
            "jest",
            "this command already writes its own JSON report: name it in the check's `junit` field",
        )
    report = call.reports / "jest.json"
    return Plan(
        runner="jest",
        argv=runner_argv(call, "jest", (*call.args, "--json", f"--outputFile={report}")),
        report=Report("jest-json", jest_json_reader(call.cwd), files=(report,)),
    )


RUNNER = Runner("jest", matches, plan)
