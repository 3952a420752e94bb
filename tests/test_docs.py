"""The README and docs name only what exists: every repository path, link, anchor and `referee`
command they mention; the architecture page's path of one evaluate call is the path the code
takes; the README's contract example is a valid contract."""

from __future__ import annotations

import argparse
import json
import re
import sys
import threading
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
import yaml
from gitrepo import make_repo

from referee.server import cli
from referee.tools.sandbox.probe import sandbox_support

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]
TOP = ("tools", "server", "tests", "scripts", "docs", "benchmarks", "schemas", "rubrics")
# A path of referee's repository, as a whole code span: `tools/evaluate/run.py`, `tests/`, `.ci/run`
_PATH = re.compile(rf"^(?:(?:{'|'.join(TOP)}|examples)/[\w./\-]*|\.ci/run)$")
_NOT_PATHS = {"tools/list", "tools/call"}  # MCP methods
_SPAN = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_FENCE = re.compile(r"^```.*?^```", re.M | re.S)


def _prose(page: Path) -> str:
    """The page without its fenced blocks (examples of a user's project, output, YAML)."""
    return _FENCE.sub("", page.read_text(encoding="utf-8"))


def _ids(page: Path) -> set[str]:
    """The fragment ids a page has: GitHub's heading slugs and explicit `id`/`name` anchors."""
    text = _prose(page)
    found: set[str] = set()
    for title in re.findall(r"^#{1,6} (.+)$", text, re.M):
        slug = re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")
        n = 0
        while (slug if n == 0 else f"{slug}-{n}") in found:
            n += 1
        found.add(slug if n == 0 else f"{slug}-{n}")
    found |= set(re.findall(r"""<a (?:id|name)=["']([^"']+)["']""", text))
    return found


def _label(page: Path) -> str:
    return str(page.relative_to(ROOT))


@pytest.mark.parametrize("page", PAGES, ids=_label)
def test_every_repository_path_a_page_names_exists(page: Path) -> None:
    missing = []
    for span in _SPAN.findall(_prose(page)):
        path = re.sub(r":\d+$", "", span.strip())
        if path in _NOT_PATHS:
            continue
        if _PATH.match(path) and "*" not in path and "{" not in path:
            if not (ROOT / path).exists():
                missing.append(path)
    assert not missing, f"{_label(page)} names paths that do not exist: {missing}"


@pytest.mark.parametrize("page", PAGES, ids=_label)
def test_every_link_and_anchor_leads_somewhere(page: Path) -> None:
    broken = []
    for target in _LINK.findall(_prose(page)):
        if re.match(r"^[a-z]+:", target):
            continue  # https:, mailto: and the resource URIs of examples
        file, _, anchor = target.partition("#")
        where = (page.parent / file).resolve() if file else page
        if not where.exists() or (anchor and where.suffix == ".md" and anchor not in _ids(where)):
            broken.append(target)
    assert not broken, f"{_label(page)} links nowhere: {broken}"


def _commands() -> dict[str, set[str]]:
    """Each `referee` command and its subcommands, from the real parser."""
    found: dict[str, set[str]] = {}
    for action in cli.build_parser()._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                subs = {
                    n
                    for a in sub._actions
                    if isinstance(a, argparse._SubParsersAction)
                    for n in a.choices
                }
                found[name] = subs
    return found


@pytest.mark.parametrize("page", PAGES, ids=_label)
def test_every_referee_command_a_page_names_exists(page: Path) -> None:
    commands = _commands()
    unknown = []
    for span in _SPAN.findall(_prose(page)):
        words = span.split()
        if len(words) < 2 or words[0] != "referee" or words[1].startswith("-"):
            continue
        name = words[1]
        if name not in commands:
            unknown.append(span)
        elif commands[name] and len(words) > 2 and re.match(r"^[a-z][\w-]*$", words[2]):
            if words[2] not in commands[name] and not words[2].isupper():
                unknown.append(span)
    assert not unknown, f"{_label(page)} names commands referee does not have: {unknown}"


def test_every_page_of_docs_is_listed_in_the_readme_and_the_docs_index() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    index = (ROOT / "docs" / "README.md").read_text(encoding="utf-8")
    for page in sorted((ROOT / "docs").glob("*.md")):
        if page.name == "README.md":
            continue
        assert f"](docs/{page.name})" in readme, page.name
        assert f"]({page.name})" in index, page.name


def test_the_readme_is_a_front_door() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert 120 <= len(lines) <= 250


def test_the_readmes_contract_example_is_a_valid_contract(tmp_path: Path) -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    (block,) = re.findall(r"^```yaml\n(.*?)^```", text, re.M | re.S)
    fields = yaml.safe_load(block)
    files = {path: "" for path in fields["in_scope"]}
    repo = make_repo(tmp_path / "shop", files)
    (tmp_path / "contract.yaml").write_text(block, encoding="utf-8")
    home = tmp_path / "home"
    code = cli.main(
        [
            "--root",
            str(repo),
            "--home",
            str(home),
            "contract",
            "create",
            str(tmp_path / "contract.yaml"),
            "--repo",
            str(repo),
        ]
    )
    assert code == 0


def _path_steps() -> list[list[str]]:
    """The modules of each numbered step of the architecture page's evaluate path."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text[text.index("## The path of one `evaluate` call") : text.index("## Where to add")]
    steps = re.split(r"^\d\. ", section, flags=re.M)[1:]
    return [re.findall(r"`((?:tools|server)/[\w/]+\.py)`", step) for step in steps]


def test_the_architecture_pages_path_is_the_one_evaluate_takes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo(
        tmp_path / "calc",
        {
            "calc.py": "def add(a, b):\n    return a + b\n",
            "test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(1, 2)\n",
        },
    )
    contract = tmp_path / "contract.yaml"
    contract.write_text(
        "goal: Add numbers.\nin_scope: [calc.py]\nout_of_scope: [docs]\nfunctional:\n"
        "  - criterion: adds\n    verification_method: test\n"
        "    check: {kind: tests, argv: [python, -m, pytest, -q, test_calc.py]}\n",
        encoding="utf-8",
    )
    base = ["--root", str(repo), "--home", str(tmp_path / "home")]
    monkeypatch.chdir(repo)
    assert cli.main([*base, "contract", "create", str(contract), "--json"]) == 0
    contract_id = json.loads(capsys.readouterr().out)["contract"]["id"]
    entered: list[str] = []
    seen: set[str] = set()
    package = str(ROOT) + "/"

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        code = frame.f_code
        # functions only (CO_OPTIMIZED): a class body or a module run at import is not the path
        if event == "call" and code.co_flags & 1 and code.co_filename.startswith(package):
            module = code.co_filename[len(package) :]
            if module not in seen:
                seen.add(module)
                entered.append(module)

    # the sandbox probe runs once per process: an earlier test's answer would hide it
    sandbox_support.cache_clear()
    sys.setprofile(profile)
    threading.setprofile(profile)
    try:
        cli.main([*base, "evaluate", contract_id, "--json"])
    finally:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]
    steps = _path_steps()
    named = [m for step in steps for m in step]
    assert len(steps) == 5 and len(named) >= 40
    missing = [m for m in named if m not in seen]
    assert not missing, f"docs/architecture.md names modules evaluate never entered: {missing}"
    # the steps come in the order the call takes them: each step's first module is entered
    # after the one before it
    firsts = [entered.index(step[0]) for step in steps]
    assert firsts == sorted(firsts), [step[0] for step in steps]
