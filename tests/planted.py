"""Programs a hostile repository names for git to run, and the marks they leave when they run.

Each program leaves `ran-<name>` in a markers folder on the host (outside every sandbox, whose
/tmp is a fresh one), so any marker is a program of the player's that referee's own git ran.
"""

from __future__ import annotations

import stat
import textwrap
from pathlib import Path


def program(markers: Path, name: str) -> str:
    """An executable that leaves `ran-<name>` behind and passes its input through (a filter)."""
    script = markers / f"{name}.sh"
    script.write_text(f'#!/bin/sh\ntouch "{markers}/ran-{name}"\ncat\n', encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script)


def append(file: Path, text: str) -> None:
    file.parent.mkdir(parents=True, exist_ok=True)
    with file.open("a", encoding="utf-8") as out:
        out.write(textwrap.dedent(text))


def filter_keys(markers: Path, name: str) -> str:
    return f"""
    [filter "evil"]
        clean = {program(markers, name + "-clean")}
        smudge = {program(markers, name + "-smudge")}
    """


def diff_keys(markers: Path, name: str) -> str:
    return f"""
    [diff "evil"]
        textconv = {program(markers, name + "-textconv")}
        command = {program(markers, name + "-command")}
    [merge "evil"]
        driver = {program(markers, name + "-merge")} %O %A %B
    """


def every_key(markers: Path, name: str) -> str:
    hooks = markers / f"{name}-hooks"
    hooks.mkdir()
    for hook in ("post-checkout", "reference-transaction", "post-index-change", "pre-commit"):
        (hooks / hook).write_text(f"#!/bin/sh\n{program(markers, name + '-' + hook)}\n")
        (hooks / hook).chmod(0o755)
    return (
        f"""
    [core]
        fsmonitor = {program(markers, name + "-fsmonitor")}
        hooksPath = {hooks}
        pager = {program(markers, name + "-pager")}
        askPass = {program(markers, name + "-askpass")}
        sshCommand = {program(markers, name + "-ssh")}
        editor = {program(markers, name + "-editor")}
        alternateRefsCommand = {program(markers, name + "-altrefs")}
    [diff]
        external = {program(markers, name + "-external")}
    [pager]
        diff = {program(markers, name + "-pager-diff")}
        log = {program(markers, name + "-pager-log")}
    [credential]
        helper = !{program(markers, name + "-credential")}
    [gpg]
        program = {program(markers, name + "-gpg")}
    [commit]
        gpgSign = true
    [sequence]
        editor = {program(markers, name + "-sequence")}
    """
        + filter_keys(markers, name)
        + diff_keys(markers, name)
    )


def ran(markers: Path) -> list[str]:
    return sorted(p.name for p in markers.glob("ran-*"))
