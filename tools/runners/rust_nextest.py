"""`cargo nextest run`: its JUnit report, asked for through a tool config file of referee's
(lower priority than the project's own `.config/nextest.toml`), written to the scratch folder.

Ids are the test's name in its binary (`module::tests::name`), as for `cargo test`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from xml.etree.ElementTree import Element

from referee.tools.runners.base import Call, Plan, Report, Runner, base_name
from referee.tools.runners.junit import junit_reader
from referee.tools.runners.rust_cargo import cleaned_first


def matches(command: Sequence[str]) -> bool:
    rest = [t for t in command[1:] if not t.startswith("+")]
    return bool(command) and base_name(command[0]) == "cargo" and rest[:2] == ["nextest", "run"]


def plan(call: Call) -> Plan:
    report = call.reports / "nextest.xml"
    config = call.reports / "nextest.toml"
    profile = _profile(call.args)
    config.write_text(
        f"[profile.{profile}.junit]\npath = {json.dumps(str(report))}\n", encoding="utf-8"
    )
    at = list(call.command).index("run") + 1
    command = (*call.command[:at], f"--tool-config-file=referee:{config}", *call.command[at:])
    return Plan(
        runner="cargo nextest",
        argv=call.argv(("sh", "-c", cleaned_first(call, call.args), *command)),
        report=Report("junit", junit_reader(case_id), files=(report,)),
    )


def _profile(args: Sequence[str]) -> str:
    for index, token in enumerate(args):
        if token in ("-P", "--profile") and index + 1 < len(args):
            return _bare(args[index + 1])
        if token.startswith("--profile="):
            return _bare(token.split("=", 1)[1])
    return "default"


def _bare(name: str) -> str:
    # The profile name goes into a TOML key: keep it to the characters a bare key allows.
    return "".join(c for c in name if c.isalnum() or c in "-_") or "default"


def case_id(case: Element, suites: list[str]) -> str:
    return case.get("name") or "?"


RUNNER = Runner("cargo nextest", matches, plan)
