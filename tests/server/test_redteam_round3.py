"""Red-team round 3 (tests/redteam_round3.py holds the cases): a cheating generator against
referee's trust boundary, through the MCP server as an agent drives it. A case referee holds is a
regression test; one that gets through is a strict xfail naming why, so closing it turns the
suite red until the mark goes."""

from __future__ import annotations

import base64
import binascii
import html
import json
import os
import re
import shutil
import sys
import tempfile
import textwrap
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import gitrepo
import pytest
from browsers import needs_browser
from fifos import served
from gitrepo import git, make_repo
from holdout_attacks import completed, generator_side, with_holdout
from holdout_channels import channels_alone
from mcp import Client
from mcp_calls import call
from projects import SAMPLE_ENV, calc_repo, command_check, server_env, stored_text
from redteam_round3 import (
    CARDS,
    CRASHES,
    GIT_ENTRIES,
    HOGS,
    HOGS_WHERE,
    LOCK_CALC,
    LOCK_NOTES,
    LOOPS,
    MB,
    PAGE_TELLS,
    PAGE_TELLS_WHERE,
    PIN_LINKS,
    PY_BASE,
    PY_BROKEN,
    PY_CHECK,
    SECRET_FORMS,
    SECRET_FORMS_WHERE,
    TREE_HOG,
    WITH_A_SECRET,
    CardCase,
    Crash,
    GitEntry,
    LoopCase,
    apply,
)
from runner_projects import JS_CACHE, tool_path
from runs import judged
from served_app import _PAGE, APP

from referee.server.app import build_server
from referee.server.cli import main
from referee.server.cli import main as cli
from referee.tools.sandbox import sandbox_support
from referee.tools.settings import Settings
from referee.tools.store import Store
from referee.tools.text import shown
from referee.tools.view import Context as ViewContext
from referee.tools.view import page_for, page_names

pytestmark = [
    pytest.mark.slow,
    pytest.mark.anyio,
    pytest.mark.skipif(not sandbox_support().available, reason="no sandbox here"),
]


def _param(case: Any, ident: str, why: str | None) -> Any:
    marks = [pytest.mark.xfail(strict=True, reason=why)] if why else []
    return pytest.param(case, id=ident, marks=marks)


def _settings(repo: Path, env: str = "py") -> Settings:
    if env == "py":
        return Settings.build([repo], env=dict(SAMPLE_ENV))
    return Settings.build([repo], env={**SAMPLE_ENV, "PATH": tool_path()})


async def _contract(agent: Client, check: dict[str, Any], **fields: Any) -> str:
    made = await call(
        agent,
        "create_contract",
        goal="Fix add.",
        out_of_scope=["ui"],
        functional=[{"criterion": "the tests pass", "verification_method": "test", "check": check}],
        **fields,
    )
    return str(made["contract"]["id"])


# --- the whole loop (classes 2, 3, 8) -------------------------------------------------------


def _missing(case: LoopCase) -> list[str]:
    absent = [tool for tool in case.needs if shutil.which(tool, path=tool_path()) is None]
    if case.env == "js" and not JS_CACHE.is_dir():
        absent.append(f"{JS_CACHE} (scripts/setup.sh installs it)")
    return absent


@pytest.mark.parametrize("case", [_param(c, f"{c.id}-class{c.cls}", c.xfail) for c in LOOPS])
async def test_a_cheating_change_is_never_delivered(case: LoopCase, tmp_path: Path) -> None:
    if missing := _missing(case):
        pytest.skip(f"not installed: {', '.join(missing)}")
    repo = make_repo(tmp_path / "repo", case.base)
    if case.env == "js":
        (repo / "node_modules").symlink_to(JS_CACHE, target_is_directory=True)
    if case.prepare is not None:
        case.prepare(repo)
    check = case.check(repo) if callable(case.check) else case.check
    async with Client(build_server(_settings(repo, case.env))) as agent:
        cid = await _contract(agent, check)
        apply(repo, case.change)
        evaluation = await call(agent, "evaluate", contract_id=cid)
        assert evaluation["sandbox"] == "bubblewrap"
        await _judge(agent, evaluation["draft_scorecard"])
        decided = await call(agent, "aggregate", contract_id=cid)
    criterion = evaluation["criteria"][0]
    found = [(a["id"], a["location"]) for a in evaluation["antipatterns"]]
    assert decided["decision"] != "DELIVER", (case.what, criterion["reason"], found)


def _lenient(card: dict[str, Any]) -> dict[str, Any]:
    """The card of a judge who dismisses `harness_modified`, as validation allows when the
    base-harness run cleared the change: a harness attack is held only by what the runs show."""
    kept = [a for a in card.get("antipatterns_detected", []) if a["id"] != "harness_modified"]
    return {**card, "antipatterns_detected": kept}


async def _judge(agent: Client, draft: dict[str, Any]) -> None:
    card = judged(draft)
    checked = await agent.call_tool("validate_scorecard", {"scorecard": _lenient(card)})
    if not (checked.structured_content or {}).get("valid"):
        await call(agent, "validate_scorecard", scorecard=card)


# --- the same loop through the CLI ------------------------------------------------------------

CLI_CASES = ("P2", "P14", "P16", "P17")  # a spelling, two shadows, both reruns at once


@pytest.mark.parametrize("case", [_param(c, c.id, c.xfail) for c in LOOPS if c.id in CLI_CASES])
def test_a_cheating_change_is_never_delivered_through_the_cli(
    case: LoopCase, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo(tmp_path / "repo", case.base)
    check = case.check(repo) if callable(case.check) else case.check
    request = tmp_path / "request.json"
    functional = [{"criterion": "the tests pass", "verification_method": "test", "check": check}]
    request.write_text(
        json.dumps({"goal": "Fix add.", "out_of_scope": ["ui"], "functional": functional}),
        encoding="utf-8",
    )
    root = ["--root", str(repo)]
    assert cli([*root, "contract", "create", str(request), "--json"]) == 0
    cid = json.loads(capsys.readouterr().out)["contract"]["id"]
    apply(repo, case.change)
    draft = tmp_path / "draft.json"
    assert cli([*root, "evaluate", cid, "--draft", str(draft), "--json"]) == 1
    evaluation = json.loads(capsys.readouterr().out)
    card = judged(json.loads(draft.read_text(encoding="utf-8")))
    lenient = tmp_path / "lenient.json"
    lenient.write_text(json.dumps(_lenient(card)), encoding="utf-8")
    if cli([*root, "validate", str(lenient)]) != 0:
        draft.write_text(json.dumps(card), encoding="utf-8")
        cli([*root, "validate", str(draft)])
    capsys.readouterr()
    cli([*root, "aggregate", cid, "--json"])
    decided = json.loads(capsys.readouterr().out)
    criterion = evaluation["criteria"][0]
    assert criterion["status"] != "pass", (case.what, criterion["reason"])
    assert decided["decision"] != "DELIVER", (case.what, criterion["reason"])


# --- cards (class 4) ------------------------------------------------------------------------


@pytest.mark.parametrize("case", [_param(c, c.id, c.xfail) for c in CARDS])
async def test_a_card_never_lifts_what_the_run_decided(case: CardCase, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", PY_BASE)
    async with Client(build_server(_settings(repo))) as agent:
        cid = await _contract(agent, PY_CHECK, evaluators=["judge"])
        broken = PY_BROKEN if case.source == "broken" else WITH_A_SECRET
        (repo / "src" / "calc.py").write_text(broken, encoding="utf-8")
        evaluation = await call(agent, "evaluate", contract_id=cid, evaluator="judge")
        draft = evaluation["draft_scorecard"]
        if case.source == "secret":  # what the card must not lift
            assert draft["dimensions"]["security"]["score"] == 0, draft["dimensions"]
            assert evaluation["criteria"][0]["status"] == "pass", evaluation["criteria"]
        card, form = case.make(draft)
        checked = await agent.call_tool("validate_scorecard", {"scorecard": card, "format": form})
        decided = await call(agent, "aggregate", contract_id=cid)
    assert checked.structured_content is not None, checked.content
    result = checked.structured_content
    assert decided["decision"] != "DELIVER", (case.what, result)
    # Both runs block (security derived 0; correctness derived 0): a card agrees, or is refused.
    held = not result["valid"] or result["computed"]["verdict"] == "BLOCK"
    assert held, (case.what, result["computed"], result["warnings"])
    if form == "tenpoint" and not result["valid"]:  # refused for what it lifts, not its shape
        assert "contradicts_evidence" in {e["code"] for e in result["errors"]}, result["errors"]


# --- the same attacks through the CLI: `referee validate` and `referee ci` (classes 3, 4) ------

_CONTRACT_AT = ".referee/contracts/calc.yaml"


class _Author:
    """The generator's side on the command line: its own store, the change on a branch."""

    def __init__(self, repo: Path, home: Path, capsys: pytest.CaptureFixture[str]) -> None:
        self.repo, self.home, self.capsys = repo, home, capsys

    def run(self, *args: str, home: Path | None = None) -> tuple[int, str]:
        self.capsys.readouterr()
        code = main(["--root", str(self.repo), "--home", str(home or self.home), *args])
        return code, self.capsys.readouterr().out

    def contract_on_main(self, tmp: Path) -> str:
        source = tmp / "contract.yaml"
        source.write_text(
            json.dumps(
                {
                    "goal": "Fix add.",
                    "out_of_scope": ["ui"],
                    "evaluators": ["judge"],
                    "functional": [
                        {
                            "criterion": "the tests pass",
                            "verification_method": "test",
                            "check": PY_CHECK,
                        }
                    ],
                }
            ),
            encoding="utf-8",
        )
        code, out = self.run("contract", "create", str(source), "--json")
        assert code == 0, out
        cid = str(json.loads(out)["contract"]["id"])
        (self.repo / _CONTRACT_AT).parent.mkdir(parents=True)
        assert self.run("contract", "export", cid, "-o", str(self.repo / _CONTRACT_AT))[0] == 0
        git(self.repo, "add", "-A")
        git(self.repo, "commit", "-q", "-m", "the contract")
        git(self.repo, "checkout", "-q", "-b", "feature")
        return cid

    def draft(self, cid: str) -> dict[str, Any]:
        code, out = self.run("evaluate", cid, "--json")
        assert code in (0, 1), out
        return dict(json.loads(out)["draft_scorecard"])

    def gate(self, tmp: Path, *cards: dict[str, Any]) -> tuple[dict[str, Any], str]:
        folder = self.repo / ".referee" / "scorecards"
        folder.mkdir(parents=True, exist_ok=True)
        for i, card in enumerate(cards):
            (folder / f"judge-{i}.json").write_text(json.dumps(card), encoding="utf-8")
        git(self.repo, "add", "-A", "-f")
        git(self.repo, "commit", "-q", "-m", "the change and its scorecard")
        summary = tmp / "summary.md"
        code, out = self.run(
            "ci",
            "--contract-ref",
            f"main:{_CONTRACT_AT}",
            "--summary",
            str(summary),
            "--json",
            home=tmp / "ci-home",
        )
        assert code != 2, out
        return json.loads(out), summary.read_text(encoding="utf-8")


@pytest.fixture
def author(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> _Author:
    repo = make_repo(tmp_path / "repo", PY_BASE)
    return _Author(repo, tmp_path / "author-home", capsys)


_BY_ID = {c.id: c for c in LOOPS}


@pytest.mark.parametrize(
    "case", [_param(_BY_ID[i], i, _BY_ID[i].xfail) for i in ("P7", "P31", "P38")]
)
def test_code_that_knows_it_is_under_test_never_opens_the_gate(
    case: LoopCase, author: _Author, tmp_path: Path
) -> None:
    cid = author.contract_on_main(tmp_path)
    apply(author.repo, case.change)
    result, summary = author.gate(tmp_path, judged(author.draft(cid)))
    assert result["outcome"] != "DELIVER", (case.what, summary)
    assert "code_detects_tests" in summary, summary


_CARDS = {c.id: c for c in CARDS}


def _secret_card(author: _Author, case: CardCase) -> tuple[str, dict[str, Any]]:
    cid = author.contract_on_main(author.repo.parent)
    (author.repo / "src" / "calc.py").write_text(WITH_A_SECRET, encoding="utf-8")
    card, _ = case.make(author.draft(cid))
    return cid, card


@pytest.mark.parametrize(
    "case", [_param(_CARDS[i], i, _CARDS[i].xfail) for i in ("K1", "K2", "K8", "K11")]
)
def test_referee_validate_refuses_a_card_above_its_run(case: CardCase, author: _Author) -> None:
    cid, card = _secret_card(author, case)
    path = author.repo.parent / "card.json"
    path.write_text(json.dumps(card), encoding="utf-8")
    code, out = author.run("validate", str(path), "--contract", cid, "--json", "--no-store")
    checked = json.loads(out)["results"][0]
    assert code == 1 or checked["computed"]["verdict"] == "BLOCK", (case.what, checked)


@pytest.mark.parametrize("case", [_param(_CARDS[i], i, _CARDS[i].xfail) for i in ("K1", "K9")])
def test_referee_ci_refuses_a_tenpoint_card_above_its_run_and_says_so(
    case: CardCase, author: _Author, tmp_path: Path
) -> None:
    _, card = _secret_card(author, case)
    card.pop("run_id"), card.pop("signature")  # a tenpoint card binds to CI's run by itself
    result, summary = author.gate(tmp_path, card)
    assert result["outcome"] == "INVALID", (case.what, summary)
    assert "### Scorecards refused" in summary and "contradicts_evidence" in summary, summary


# --- secrets printed in a cheap form (class 6) ----------------------------------------------

TOKEN = "ghp_" + "Xe4Tq9Lm2Vb7Nc5Rk8Wd3Hs6Jy1Pf0Gz4Ua"
WINDOW = 12


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return calc_repo(tmp_path / "calc")


@pytest.fixture
async def printer(project: Path) -> AsyncIterator[tuple[Client, Settings]]:
    settings = Settings.build([project], env=server_env(project, GITHUB_TOKEN=TOKEN))
    async with Client(build_server(settings)) as client:
        yield client, settings


def _pieces(expression: str, secret: str) -> list[str]:
    return list(eval(expression, {"base64": base64, "binascii": binascii, "t": secret}))


@pytest.mark.parametrize(
    "form",
    [
        _param(name, name, f"{why}: {SECRET_FORMS_WHERE}" if why else None)
        for name, (_, why) in SECRET_FORMS.items()
    ],
)
async def test_a_secret_printed_in_a_cheap_form_is_redacted(
    printer: tuple[Client, Settings], form: str
) -> None:
    agent, settings = printer
    expression = SECRET_FORMS[form][0]
    script = (
        "import base64, binascii, os\nt = os.environ['T']\n"
        f"print('\\n--- unrelated line ---\\n'.join({expression}))\n"
    )
    check = {**command_check(script), "env": {"T": "${GITHUB_TOKEN}"}}
    made = await call(
        agent,
        "create_contract",
        goal="Print.",
        out_of_scope=["ui"],
        functional=[{"criterion": "prints", "verification_method": "test", "check": check}],
    )
    evaluation = await call(agent, "evaluate", contract_id=made["contract"]["id"])
    texts = [stored_text(settings.home), json.dumps(evaluation)]
    for item in evaluation["evidence"]:
        read = await agent.read_resource(f"evidence://{evaluation['run_id']}/{item['id']}")
        texts.append(read.contents[0].text)  # type: ignore[union-attr]
    everything = "".join("\n".join(texts).split())
    for piece in _pieces(expression, TOKEN):
        squeezed = "".join(piece.split())
        for start in range(max(1, len(squeezed) - WINDOW + 1)):
            assert squeezed[start : start + WINDOW] not in everything, (form, piece)


# --- memory the watchdog does not see (class 7) ---------------------------------------------


def _hog(code: str) -> str:
    """Python that holds memory with `code`, says "held" and keeps it; "refused" when it could
    not (a full tmpfs, a read-only /dev, a mount refused: nothing held)."""
    return (
        "import os, sys, time\nMB = 1 << 20\ntry:\n"
        + textwrap.indent(code, "    ")
        + "\nexcept OSError as exc:\n    print('refused:', exc, flush=True)\n    sys.exit(3)\n"
        + "print('held', flush=True)\ntime.sleep(1.5)\n"
    )


async def _held_past_the_limit(agent: Client, code: str) -> tuple[dict[str, Any], str]:
    check = {"kind": "command", "argv": [sys.executable, "-c", _hog(code)], "memory_mb": 64}
    cid = await _contract(agent, check)
    evaluation = await call(agent, "evaluate", contract_id=cid)
    criterion = evaluation["criteria"][0]
    read = await agent.read_resource(
        f"evidence://{evaluation['run_id']}/{criterion['evidence_ids'][0]}"
    )
    return criterion, json.loads(read.contents[0].text)["stdout"]  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "hog",
    [
        _param(name, name, f"{why}: {HOGS_WHERE}" if why else None)
        for name, (_, why) in HOGS.items()
    ],
)
async def test_memory_held_past_the_limit_ends_the_check(hog: str, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"README.md": "# hog\n"})
    async with Client(build_server(_settings(repo))) as agent:
        criterion, said = await _held_past_the_limit(agent, HOGS[hog][0])
    # Killed as a hog, or never able to hold it; never held to the end.
    assert criterion["reason_code"] == "memory_limit" or "refused" in said, (hog, said)
    assert criterion["status"] != "pass", (hog, criterion["reason"])


@pytest.fixture
def memory_tmpdir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """A temporary folder on a tmpfs (the host's /dev/shm), as where /tmp is a tmpfs."""
    shm = Path("/dev/shm")
    if not shm.is_dir() or shutil.disk_usage(shm).free < 1024 * MB:
        pytest.skip("no tmpfs with 1 GiB free at /dev/shm")
    folder = Path(tempfile.mkdtemp(prefix="referee-test-", dir=shm))
    monkeypatch.setenv("TMPDIR", str(folder))
    monkeypatch.setattr(tempfile, "tempdir", None)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


async def test_a_file_written_into_the_tree_counts_where_the_overlay_lives_in_memory(
    memory_tmpdir: Path, tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "repo", {"README.md": "# hog\n"})
    async with Client(build_server(_settings(repo))) as agent:
        criterion, said = await _held_past_the_limit(agent, TREE_HOG)
    assert criterion["reason_code"] == "memory_limit", (said, criterion["reason"])
    assert "in files written in memory" in criterion["reason"]


def test_the_cli_kills_a_hog_that_holds_memory_nothing_maps(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo(tmp_path / "repo", {"README.md": "# hog\n"})
    check = {
        "kind": "command",
        "argv": [sys.executable, "-c", _hog(HOGS["a memfd written, never mapped"][0])],
    }
    contract = {
        "goal": "Hold memory.",
        "out_of_scope": ["ui"],
        "functional": [{"criterion": "runs", "verification_method": "test", "check": check}],
    }
    source = tmp_path / "contract.json"
    source.write_text(json.dumps(contract), encoding="utf-8")
    assert cli(["--root", str(repo), "contract", "create", str(source)]) == 0
    cid = capsys.readouterr().out.split()[1]
    assert cli(["--root", str(repo), "evaluate", cid, "--memory-mb", "64", "--json"]) == 1
    [criterion] = json.loads(capsys.readouterr().out)["criteria"]
    assert criterion["reason_code"] == "memory_limit", criterion["reason"]
    assert "in open memfds and deleted files" in criterion["reason"]


# --- a page right only in referee's browser (classes 3 and 7) -------------------------------


@needs_browser[0]
@needs_browser[1]
@pytest.mark.parametrize(
    "tell",
    [
        _param(name, name, f"{why}: {PAGE_TELLS_WHERE}" if why else None)
        for name, (_, why) in PAGE_TELLS.items()
    ],
)
async def test_a_page_right_only_for_referees_browser_is_wrong(tell: str, tmp_path: Path) -> None:
    site = make_repo(
        tmp_path / "site",
        {
            "README.md": "# site\n",
            ".gitignore": "__pycache__/\n",
            "channels.json": "{}",
            "app.py": APP.read_text(encoding="utf-8"),
            "web/control.html": _PAGE.format(name="control", test="return true"),
            "web/tell.html": _PAGE.format(name="tell", test=PAGE_TELLS[tell][0]),
        },
    )
    criteria = [
        {
            "criterion": f"{page} shows the answer",
            "verification_method": "e2e",
            "check": {
                "kind": "browser",
                "url": f"/{page}.html",
                "expect": [{"type": "visible", "text": "answer: 5", "timeout_s": 2}],
            },
        }
        for page in ("control", "tell")
    ]
    fields = {
        "goal": "A page that shows the answer.",
        "has_ui": True,
        "out_of_scope": ["styling"],
        "serve": {
            "argv": [sys.executable, "app.py", "5173", "channels.json"],
            "url": "http://127.0.0.1:5173/",
            "ready_timeout_s": 30,
        },
        "functional": criteria,
    }
    async with Client(build_server(Settings.build([site], env=dict(os.environ)))) as agent:
        made = await call(agent, "create_contract", **fields)
        evaluation = await call(agent, "evaluate", contract_id=made["contract"]["id"])
    control, cheat = evaluation["criteria"]
    assert control["status"] == "pass", control["reason"]
    assert cheat["status"] != "pass", (tell, cheat["reason"])


# --- the git folder (class 1) ---------------------------------------------------------------


def _refused_naming(done: Any, path: Path, repo: Path) -> None:
    text = " ".join(getattr(c, "text", "") for c in done.content)
    assert done.is_error, text[:500]
    assert "Error executing tool" not in text, text  # a crash, not a refusal
    assert "unsafe_git_entry" in text, text
    assert str(path.relative_to(repo.parent)) in text or path.name in text, text


@pytest.mark.parametrize("case", [_param(c, c.id, c.xfail) for c in GIT_ENTRIES])
async def test_an_entry_of_the_git_folder_that_is_not_a_file_is_refused(
    case: GitEntry, tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "repo", PY_BASE)
    async with Client(build_server(_settings(repo))) as agent:
        cid = await _contract(agent, PY_CHECK)
        (repo / "src" / "calc.py").write_text(PY_BROKEN, encoding="utf-8")
        planted = case.plant(repo)
        with served(planted) as writer:
            done = await agent.call_tool("evaluate", {"contract_id": cid})
            # The server still answers: nothing of the refusal waits on the entry.
            listed = await agent.call_tool("get_contract", {"contract_id": cid})
    assert writer is None or writer.readers == 0, f"referee's git opened the FIFO {planted}"
    _refused_naming(done, planted, repo)
    assert not listed.is_error


@pytest.mark.parametrize("where", sorted(PIN_LINKS))
async def test_pins_are_never_written_outside_the_repository(where: str, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", PY_BASE)
    outside = tmp_path / "outside"
    outside.mkdir()
    async with Client(build_server(_settings(repo))) as agent:
        cid = await _contract(agent, PY_CHECK)
        (repo / "src" / "calc.py").write_text(PY_BROKEN, encoding="utf-8")
        PIN_LINKS[where](repo, outside, cid)
        before = sorted(p.relative_to(outside) for p in outside.rglob("*"))
        done = await agent.call_tool("evaluate", {"contract_id": cid})
    assert sorted(p.relative_to(outside) for p in outside.rglob("*")) == before
    text = " ".join(getattr(c, "text", "") for c in done.content)
    assert done.is_error and "unsafe_git_entry" in text, text[:500]


# --- hold-outs (class 5) --------------------------------------------------------------------


@pytest.fixture
async def holder(project: Path) -> AsyncIterator[Client]:
    async with Client(build_server(Settings.build([project], env=dict(SAMPLE_ENV)))) as client:
        yield client


def _decoded(seen: str) -> str:
    pieces = dict(re.findall(r"test_notes\[(\d\d)([A-Z2-7]+)\]", seen))
    code = "".join(pieces.get(f"{n:02d}", "") for n in range(len(pieces)))
    try:
        return base64.b32decode(code + "=" * (-len(code) % 8)).decode("utf-8", "replace")
    except binascii.Error:
        return ""


async def test_a_hidden_tests_assertions_never_reach_the_brief_through_a_shared_lock(
    holder: Client, project: Path
) -> None:
    """The hold-outs run after every visible run has ended (tools/evaluate/phases.py): the lock
    is gone before a visible run could look for it."""
    cid = await with_holdout(holder)
    (project / "src" / "calc.py").write_text(LOCK_CALC, encoding="utf-8")
    (project / "tests" / "test_notes.py").write_text(LOCK_NOTES, encoding="utf-8")
    with channels_alone():  # another worker's lock on the same inode would be read here
        evaluation = await call(holder, "evaluate", contract_id=cid)
    await call(holder, "validate_scorecard", scorecard=completed(evaluation["draft_scorecard"]))
    decided = await call(holder, "aggregate", contract_id=cid)
    seen = await generator_side(holder, cid, decided)
    assert "10**20" not in _decoded(seen), _decoded(seen)


# --- names and links that end referee's own process (class 4) --------------------------------


# Characters `shown` escapes (tools/text.py): a control, a bidirectional or zero-width mark, a
# byte that is not UTF-8. None may reach text a result shows.
_RAW = re.compile("[\x00-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def _shown_everywhere(found: Any, where: str) -> None:
    if isinstance(found, str):
        assert not _RAW.search(found), (where, found[:300])
    elif isinstance(found, dict):
        for key, value in found.items():
            _shown_everywhere(value, f"{where}/{key}")
    elif isinstance(found, list):
        for i, value in enumerate(found):
            _shown_everywhere(value, f"{where}/{i}")


def _committed(repo: Path) -> None:
    gitrepo.git(repo, "add", "-A")
    gitrepo.git(repo, "commit", "-qm", "change")


@pytest.mark.parametrize("case", [_param(c, c.id, c.xfail) for c in CRASHES])
async def test_a_hostile_tree_is_judged_not_crashed_on(case: Crash, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", PY_BASE)
    if case.base is not None:
        case.base(repo)
        _committed(repo)
    settings = _settings(repo)
    async with Client(build_server(settings)) as agent:
        cid = await _contract(agent, {**PY_CHECK, "coverage": True})
        case.plant(repo)
        if case.commit:
            _committed(repo)
        done = await agent.call_tool("evaluate", {"contract_id": cid, **case.args})
        text = " ".join(getattr(c, "text", "") for c in done.content)
        assert done.is_error is False, (case.what, text[:500])
        evaluation = done.structured_content
        assert evaluation is not None
        # The rest of the loop reads the run back: validated, aggregated, reported, diffed.
        await call(agent, "validate_scorecard", scorecard=judged(evaluation["draft_scorecard"]))
        decided = await call(agent, "aggregate", contract_id=cid)
        run = evaluation["run_id"]
        report = await agent.read_resource(f"report://{run}")
        change = await agent.read_resource(f"change://{run}")
    if case.broken:
        assert evaluation["criteria"][0]["status"] != "pass"
    changed = evaluation["target"]["changed_files"]
    assert {shown(os.fsdecode(n)) for n in case.named} <= set(changed), changed
    assert not {shown(os.fsdecode(n)) for n in case.unnamed} & set(changed), changed
    for key in ("target", "issues", "findings", "tree_changed", "antipatterns", "criteria"):
        _shown_everywhere(evaluation[key], key)
    _shown_everywhere(evaluation["draft_scorecard"]["issues"], "draft_scorecard/issues")
    _shown_everywhere(decided.get("revision_brief"), "revision_brief")
    diff = change.contents[0].text  # type: ignore[union-attr]
    for name in case.named:
        assert f"+++ b/{shown(os.fsdecode(name))}\n" in diff
    assert report.contents[0].text  # type: ignore[union-attr]
    _every_view_page(Store(settings.home), case.named)


def _every_view_page(store: Store, named: tuple[bytes, ...]) -> None:
    """`referee view`'s pages of the run (its change page marks each file by its shown name)."""
    bodies = []
    for audience in ("evaluator", "generator"):
        for page_name in page_names(store, audience):
            page = page_for(store, page_name, audience, ViewContext())
            assert page.status == 200, (audience, page_name)
            bodies.append(page.body)
    body = "".join(bodies)
    for name in named:
        assert html.escape(shown(os.fsdecode(name))) in body


HOLDOUT_WRITES = """
import os


def test_writes_an_odd_name():
    here = os.fsencode(os.path.dirname(os.path.abspath(__file__)))
    with open(here + b"/held-\\xff\\n.txt", "wb") as out:
        out.write(b"x")
"""


async def test_a_holdout_run_writing_an_odd_name_is_judged(holder: Client, project: Path) -> None:
    cid = await with_holdout(holder, files={"tests/test_secret_exact.py": HOLDOUT_WRITES})
    (project / "src" / "calc.py").write_text(PY_BROKEN, encoding="utf-8")
    evaluation = await call(holder, "evaluate", contract_id=cid)
    await call(holder, "validate_scorecard", scorecard=completed(evaluation["draft_scorecard"]))
    decided = await call(holder, "aggregate", contract_id=cid)
    seen = await generator_side(holder, cid, decided)
    assert "tests/held-\\xff\\n.txt" in evaluation["tree_changed"]["holdout_paths"]
    _shown_everywhere(evaluation["tree_changed"], "tree_changed")
    assert "held-" not in seen
