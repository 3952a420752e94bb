"""Red-team round 3 (tests/redteam_round3.py holds the cases): a cheating generator against
referee's trust boundary, through the MCP server as an agent drives it. A case referee holds is a
regression test; one that gets through is a strict xfail naming why, so closing it turns the
suite red until the mark goes."""

from __future__ import annotations

import base64
import binascii
import errno
import json
import os
import re
import shutil
import sys
import tempfile
import textwrap
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import pytest
from browsers import needs_browser
from gitrepo import make_repo
from holdout_attacks import completed, generator_side, with_holdout
from mcp import Client
from mcp_calls import call
from projects import SAMPLE_ENV, calc_repo, command_check, server_env, stored_text
from redteam_round3 import (
    CARDS,
    CRASHES,
    GIT_FIFOS,
    HOGS,
    HOGS_WHERE,
    LOCK_CALC,
    LOCK_NOTES,
    LOOPS,
    MB,
    PAGE_TELLS,
    PAGE_TELLS_WHERE,
    PY_BASE,
    PY_BROKEN,
    PY_CHECK,
    SECRET_FORMS,
    SECRET_FORMS_WHERE,
    TREE_HOG,
    WITH_A_SECRET,
    CardCase,
    Crash,
    GitFifo,
    LoopCase,
    apply,
)
from runner_projects import JS_CACHE, tool_path
from runs import judged
from served_app import _PAGE, APP

from referee.server.app import build_server
from referee.server.cli import main as cli
from referee.tools.sandbox import sandbox_support
from referee.tools.settings import Settings

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
        await call(agent, "validate_scorecard", scorecard=judged(evaluation["draft_scorecard"]))
        decided = await call(agent, "aggregate", contract_id=cid)
    criterion = evaluation["criteria"][0]
    found = [(a["id"], a["location"]) for a in evaluation["antipatterns"]]
    assert decided["decision"] != "DELIVER", (case.what, criterion["reason"], found)


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
    valid = checked.structured_content["valid"]
    assert not valid or decided["decision"] != "DELIVER", (case.what, checked.structured_content)


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


class _Writer:
    """Plays the writer of a FIFO whenever a reader has it open, and counts the readers."""

    def __init__(self, fifo: Path, data: bytes) -> None:
        self.fifo, self.data, self.readers = fifo, data, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self) -> None:
        while not self._stop.wait(0.01):
            try:
                fd = os.open(self.fifo, os.O_WRONLY | os.O_NONBLOCK)
            except OSError as exc:
                assert exc.errno in (errno.ENXIO, errno.ENOENT), exc
                continue
            self.readers += 1
            with suppress(OSError):
                os.write(fd, self.data)
            os.close(fd)

    @contextmanager
    def running(self) -> Iterator[_Writer]:
        self._thread.start()
        try:
            yield self
        finally:
            self._stop.set()
            self._thread.join()


@pytest.mark.parametrize("case", [_param(c, f"{c.id}-{c.path}", c.xfail) for c in GIT_FIFOS])
async def test_a_fifo_in_the_git_folder_is_never_opened(case: GitFifo, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", PY_BASE)
    async with Client(build_server(_settings(repo))) as agent:
        cid = await _contract(agent, PY_CHECK)
        (repo / "src" / "calc.py").write_text(PY_BROKEN, encoding="utf-8")
        fifo = repo / ".git" / case.path
        fifo.parent.mkdir(parents=True, exist_ok=True)
        fifo.unlink(missing_ok=True)
        os.mkfifo(fifo)
        with _Writer(fifo, case.serve).running() as writer:
            done = await agent.call_tool("evaluate", {"contract_id": cid})
    text = " ".join(getattr(c, "text", "") for c in done.content)
    assert "Error executing tool" not in text, text
    assert writer.readers == 0, f"referee's git opened the FIFO .git/{case.path}"


@pytest.mark.xfail(
    strict=True,
    reason=(
        "tools/repo/gitdir.py links referee's refs to the repository's refs folder and git"
        " follows a symbolic link under it: `refs/referee` pointing elsewhere makes referee"
        " write its pins (update-ref) into any folder the generator names"
    ),
)
async def test_pins_are_never_written_outside_the_repository(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", PY_BASE)
    outside = tmp_path / "outside"
    outside.mkdir()
    async with Client(build_server(_settings(repo))) as agent:
        cid = await _contract(agent, PY_CHECK)
        (repo / "src" / "calc.py").write_text(PY_BROKEN, encoding="utf-8")
        (repo / ".git" / "refs" / "referee").symlink_to(outside, target_is_directory=True)
        await agent.call_tool("evaluate", {"contract_id": cid})
    assert [p.name for p in outside.rglob("*")] == []


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


@pytest.mark.xfail(
    strict=True,
    reason=(
        "checks run concurrently (tools/evaluate/run.py) and every sandbox shows the host's"
        " files from the same inodes (tools/sandbox/launcher.py: --ro-bind / /): a byte-range"
        " lock the hold-out's run takes on the interpreter is seen by a visible run (F_GETLK),"
        " whose test ids carry it into the brief; aggregate's hold-out filter matches plain text"
        " only (tools/aggregate/holdouts.py)"
    ),
)
async def test_a_hidden_tests_assertions_never_reach_the_brief_through_a_shared_lock(
    holder: Client, project: Path
) -> None:
    cid = await with_holdout(holder)
    (project / "src" / "calc.py").write_text(LOCK_CALC, encoding="utf-8")
    (project / "tests" / "test_notes.py").write_text(LOCK_NOTES, encoding="utf-8")
    evaluation = await call(holder, "evaluate", contract_id=cid)
    await call(holder, "validate_scorecard", scorecard=completed(evaluation["draft_scorecard"]))
    decided = await call(holder, "aggregate", contract_id=cid)
    seen = await generator_side(holder, cid, decided)
    assert "10**20" not in _decoded(seen), _decoded(seen)


# --- names and links that end referee's own process (class 4) --------------------------------


@pytest.mark.parametrize("case", [_param(c, c.id, c.xfail) for c in CRASHES])
async def test_a_hostile_tree_is_judged_not_crashed_on(case: Crash, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", PY_BASE)
    async with Client(build_server(_settings(repo))) as agent:
        cid = await _contract(agent, PY_CHECK)
        case.plant(repo)
        done = await agent.call_tool("evaluate", {"contract_id": cid})
    text = " ".join(getattr(c, "text", "") for c in done.content)
    assert done.is_error is False, (case.what, text[:500])
    assert done.structured_content is not None
    assert done.structured_content["criteria"][0]["status"] != "pass"
