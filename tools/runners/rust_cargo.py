"""`cargo test`: libtest's own per-test lines (`test a::b ... ok`) and failure sections.

libtest's stable output has no machine format (its JSON needs a nightly compiler), so the lines it
prints for every test are read, with cargo's own stderr merged in for the target each test binary
was built from. Ids are the target's source and libtest's name (`src/lib.rs::tests::name`,
`tests/cli.rs::name`; run one with `cargo test --lib tests::name` or `cargo test --test cli
name`); doc tests are `src/lib.rs - item`, without the line number. `-q` is dropped (it prints
dots instead of names) and `--no-fail-fast` added, so that every binary runs.
"""

from __future__ import annotations

import functools
import itertools
import platform
import re
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from referee.tools.models.evidence import TestOutcome
from referee.tools.process.probe import host_program, probe
from referee.tools.runners.account import (
    DOC_TESTS,
    RESULT,
    RUNNING,
    account_env,
    libtest_account,
    wrapper,
)
from referee.tools.runners.base import Call, Plan, Report, Runner, base_name
from referee.tools.runners.junit import RAW_MESSAGE_LIMIT, trim_message

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
    kept = [a for a in args[:cut] if a not in _QUIET]
    # cargo stops at the first test binary that fails: the later ones would never be run or named.
    if "--no-fail-fast" not in kept:
        kept.append("--no-fail-fast")
    env = account_env(call.reports)
    # rustdoc bakes the test arguments into an edition-2024 merged doc-test binary, which then
    # ignores its own: this log is the only one it can be asked for (the runner moves it aside).
    doc_log = ("--logfile", str(Path(env["REFEREE_ACCOUNT"]) / "doc.log"))
    command = (call.command[0], *kept, *(args[cut:] or ["--"]), *doc_log)
    # Every test binary runs under referee's runner, which backs libtest's lines with libtest's
    # own log (tools/runners/account.py). The variable names the target's triple and wins over a
    # runner the project's .cargo/config.toml sets for it.
    runner = f"/bin/sh {wrapper('cargo_runner.sh', call.reports)}"
    for triple in {host_triple(call.path, str(call.tree)), *_targets(kept)}:
        env[f"CARGO_TARGET_{re.sub(r'[^A-Z0-9]', '_', triple.upper())}_RUNNER"] = runner
    return Plan(
        runner="cargo test",
        # cargo names each test binary on stderr (`Running unittests src/lib.rs (…)`), its tests'
        # lines go to stdout: one stream keeps each test with its target.
        argv=call.argv(("sh", "-c", cleaned_first(call, kept) + " 2>&1", *command)),
        report=Report(
            "libtest",
            parse_libtest,
            stdout=True,
            account=libtest_account(Path(env["REFEREE_ACCOUNT"])),
        ),
        env=env,
    )


def cleaned_first(call: Call, args: Sequence[str]) -> str:
    """A `sh -c` script that cleans the workspace's own build output, then runs `"$0" "$@"`
    (where what the run writes is thrown away: outside the sandbox's overlay it only runs).

    In the run's overlay (the tree keeps its files): cargo takes a crate for up to date by its
    files' times, which the player sets, so a test binary built from other code would otherwise
    run. The dependencies' output stays. The cleaning's outcome does not matter (an older cargo
    without `clean --workspace` cleans nothing, and the crate's files' times decide again)."""
    if not call.throwaway:
        return 'exec "$0" "$@"'
    out = [call.command[0], *(a for a in args if a.startswith("+"))]
    out += ["clean", "--workspace", "--offline", "-q"]
    for a, b in itertools.pairwise(args):
        if a in ("--manifest-path", "--target-dir"):
            out += [a, b]
    out += [a for a in args if a.startswith(("--manifest-path=", "--target-dir="))]
    return shlex.join(out) + ' >/dev/null 2>&1; exec "$0" "$@"'


def _targets(args: Sequence[str]) -> list[str]:
    """The triples a command names with `--target` (a cross build runs under their runner)."""
    found = [b for a, b in itertools.pairwise(args) if a == "--target"]
    return found + [a.split("=", 1)[1] for a in args if a.startswith("--target=")]


@functools.cache
def host_triple(path: str | None, tree: str | None = None) -> str:
    """The host's target triple as rustc says (`x86_64-unknown-linux-gnu`), else a guess from
    the platform (rustc missing, or found only inside the evaluated `tree`: the run will say so
    itself)."""
    rustc = host_program("rustc", path, Path(tree) if tree else None)
    if rustc is not None:
        # From `/`: rustup's proxy reads `rust-toolchain.toml` where it starts, and that file
        # can name a toolchain folder of the tree's to run (tools/process/probe.py).
        done = probe([rustc, "-vV"])
        host = re.search(r"^host: (\S+)$", done.stdout, re.M) if done else None
        if host is not None:
            return host[1]
    machine = platform.machine().lower().replace("amd64", "x86_64").replace("arm64", "aarch64")
    if sys.platform == "darwin":
        return f"{machine}-apple-darwin"
    return f"{machine}-unknown-linux-gnu"


def parse_libtest(data: bytes) -> list[TestOutcome]:
    """Outcomes from libtest's human output: one `test NAME ... RESULT` line per test, named
    after the target cargo said it was running (`tests/cli.rs::name`, `src/lib.rs::tests::name`);
    a doc test is `src/lib.rs - item` without its line number, which moves with every edit."""
    results: dict[str, TestOutcome] = {}
    messages: dict[str, list[str]] = {}
    current: list[str] | None = None
    names = _Names()
    build = _BuildErrors()
    for raw in data.decode("utf-8", errors="replace").splitlines():
        line = raw[:_MAX_LINE].rstrip()
        if not names.started and build.read(line):
            continue
        if (target := RUNNING.fullmatch(line)) is not None:
            names.enter(target.group(1))
            current = None
        elif DOC_TESTS.fullmatch(line) is not None:
            names.enter(None)
            current = None
        elif (found := RESULT.fullmatch(line)) is not None:
            word = found.group(2).split(",")[0]
            name = names.of(found.group(1))
            results[name] = TestOutcome(name=name, outcome=_OUTCOMES[word])
            current = None
        elif (section := _SECTION.fullmatch(line)) is not None:
            current = messages.setdefault(names.of(section.group(1), again=True), [])
        elif line in ("failures:", "successes:") or line.startswith("test result: "):
            current = None
        elif current is not None and sum(map(len, current)) < RAW_MESSAGE_LIMIT:
            current.append(raw)
    return [
        o.model_copy(update={"message": trim_message("\n".join(messages.get(o.name, [])).strip())})
        for o in results.values()
    ] + build.outcomes()


BUILD_ERROR = "does not compile: "
"""How a build error's outcome message starts (its first error, `… at src/lib.rs:26:20`)."""
_BUILD_ERROR = re.compile(r"error(?:\[E\d+\])?: (.+)")
_LOCATION = re.compile(r"\s*--> (\S+?):(\d+):(\d+)")


class _BuildErrors:
    """rustc's errors before any test binary ran (the build failed, so none will): one error
    outcome per file they point into, named by the file as a collection error is (`src/lib.rs`),
    with the first error and its place (`cannot find function `negate` … at src/lib.rs:26:20`)."""

    def __init__(self) -> None:
        self._pending: str | None = None
        self._found: dict[str, str] = {}

    def read(self, line: str) -> bool:
        if (error := _BUILD_ERROR.fullmatch(line)) is not None:
            self._pending = error.group(1)
            return True
        where = _LOCATION.fullmatch(line)
        if where is not None and self._pending is not None:
            path = where.group(1)
            self._found.setdefault(path, f"{self._pending} at {path}:{where[2]}:{where[3]}")
            self._pending = None
            return True
        return False

    def outcomes(self) -> list[TestOutcome]:
        return [
            TestOutcome(name=path, outcome="error", message=BUILD_ERROR + message)
            for path, message in self._found.items()
        ]


_DOC_LINE = re.compile(r"(.* - .*) \(line \d+\)")


class _Names:
    """Stable, unique ids for libtest's names within one cargo run."""

    def __init__(self) -> None:
        self._target: str | None = None
        self._seen: dict[tuple[str | None, str], str] = {}
        self._taken: set[str] = set()
        self.started = False
        """A test binary has run: what follows is no build output."""

    def enter(self, target: str | None) -> None:
        self._target = target
        self.started = True

    def of(self, raw: str, *, again: bool = False) -> str:
        key = (self._target, raw)
        if key in self._seen or again:
            return self._seen.get(key, self._bare(raw))
        name = self._bare(raw)
        if name in self._taken:  # two doc tests of one item, once their lines are gone
            name = next(
                f"{name} #{k}" for k in range(2, 10**6) if f"{name} #{k}" not in self._taken
            )
        self._taken.add(name)
        self._seen[key] = name
        return name

    def _bare(self, raw: str) -> str:
        doc = _DOC_LINE.fullmatch(raw)
        if doc is not None:
            return doc.group(1)
        return f"{self._target}::{raw}" if self._target else raw


RUNNER = Runner("cargo test", matches, plan)
