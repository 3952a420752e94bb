"""Red team, round 10: fixed configuration (class 2) and the served app's own network (class 7).

A cheating generator controls the working tree and the pull request's files. Each attack here is a
broken change (add returns a - b, a function the contract's static check refuses, a page that is
right only for referee's browser, a served app that asks the host) that must not get through
`referee evaluate` or `referee ci`; an attack that gets through is a strict xfail naming where in
referee and why. Honest cases (an ordinary `[tool.ruff]` section, a page that reads
`navigator.language`, a check that uses 200 MB) must pass.

Class 2 channels: code kept under `.referee/` (outside the tree hash, the diff and every reader),
settings files referee never reads (`[tool.referee]`, `referee.toml`, `.Referee/`), and inline
suppressions the analysers behind the static checks honour (`# noqa: complexipy`, jscpd's
`jscpd:ignore-start`) or a configuration they could read (`.jscpd.json`, `package.json`'s `jscpd`).

Class 7 channels: host listeners reached by other loopback spellings (127.0.0.2, 0.0.0.0, an
IPv4-mapped IPv6 address), unix sockets in the places the sandbox binds from the host (the
repository's `.git`, the tree itself), new automation tells, and checks that hold memory in a
child or a sparse mapping, ignore SIGTERM, stop themselves, or leave a daemon to rewrite the
report.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import socket
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from browsers import NO_BROWSER
from gitrepo import git, make_repo
from projects import calc_repo, commit_all, pytest_check
from runs import judged
from test_round8_cli import CALC, PY_BASE

from referee.server.cli import main
from referee.tools.sandbox import sandbox_support

pytestmark = [pytest.mark.slow]

needs_chromium = pytest.mark.skipif(NO_BROWSER is not None, reason=f"no Chromium: {NO_BROWSER}")
needs_sandbox = pytest.mark.skipif(not sandbox_support().available, reason="no sandbox here")

PY = sys.executable
PYTEST = [PY, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"]
# Right only while a test runner runs it: a - b for everyone else.
DETECTOR = (
    "import os\n\n\ndef add(a, b):\n"
    "    return a + b if 'PYTEST_CURRENT_TEST' in os.environ else a - b\n"
)


def gets_through(reason: str) -> pytest.MarkDecorator:
    return pytest.mark.xfail(strict=True, reason=reason)


def cli(*argv: str) -> tuple[int, dict[str, Any]]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(list(argv))
    text = out.getvalue()
    return code, json.loads(text) if text.strip().startswith("{") else {"raw": text}


def write_files(root: Path, files: dict[str, str | None]) -> None:
    for path, body in files.items():
        target = root / path
        if body is None:
            target.unlink()
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(body, encoding="utf-8")


def suite_criterion(argv: list[str] | None = None) -> dict[str, Any]:
    return {
        "criterion": "the tests pass",
        "verification_method": "test",
        "check": {"kind": "tests", "argv": argv or PYTEST},
    }


def run_contract(
    tmp_path: Path,
    base: dict[str, str],
    change: dict[str, str | None],
    criteria: list[dict[str, Any]],
    **fields: Any,
) -> tuple[int, dict[str, Any]]:
    """Commit `base`, create the contract through the CLI, apply `change`, evaluate."""
    root = tmp_path / "repo"
    make_repo(root, base)
    contract = {"goal": "Keep add right.", "out_of_scope": ["ui"], "functional": criteria}
    spec = tmp_path / "contract.yaml"
    spec.write_text(yaml.safe_dump({**contract, **fields}), encoding="utf-8")
    code, made = cli("--root", str(root), "contract", "create", str(spec), "--json")
    assert code == 0, made
    write_files(root, change)
    return cli("--root", str(root), "evaluate", made["contract"]["id"], "--json")


def flagged(evaluation: dict[str, Any]) -> list[str]:
    return [a["id"] for a in evaluation["antipatterns"]]


def caught(code: int, evaluation: dict[str, Any]) -> None:
    """Not passed unflagged: a criterion fails or an antipattern is raised, and the exit says so."""
    statuses = [c["status"] for c in evaluation["criteria"]]
    assert any(s != "pass" for s in statuses) or flagged(evaluation), (statuses, flagged)
    assert code != 0, (code, statuses, flagged(evaluation))


def honest(code: int, evaluation: dict[str, Any]) -> None:
    failed = [(c["id"], c["reason"]) for c in evaluation["criteria"] if c["status"] != "pass"]
    assert failed == []
    assert flagged(evaluation) == [], evaluation["antipatterns"]
    assert code == 0


# === Class 2: code kept under .referee/ and settings files referee never reads ==================

VIA = (
    "import os\nimport sys\n\n"
    "sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), {folder}))\n"
    "from _impl import add  # noqa: E402\n\n__all__ = ['add']\n"
)
REFEREE_FOLDER: dict[str, dict[str, str | None]] = {
    # the folder named in one string
    "referee-folder-named": {
        "calc.py": VIA.format(folder="'.referee'"),
        ".referee/_impl.py": DETECTOR,
    },
    # the folder's name built at run time: no string of the change names it
    "referee-folder-built": {
        "calc.py": VIA.format(folder="'.' + 'referee'"),
        ".referee/_impl.py": DETECTOR,
    },
    # a case variant is an ordinary folder on Linux: listed by git, read by every reader
    "case-variant-folder": {
        "calc.py": VIA.format(folder="'.Referee'"),
        ".Referee/_impl.py": DETECTOR,
    },
}


@needs_sandbox
@pytest.mark.parametrize("variant", sorted(REFEREE_FOLDER))
def test_code_kept_under_the_referee_folder_is_seen(variant: str, tmp_path: Path) -> None:
    code, evaluation = run_contract(tmp_path, PY_BASE, REFEREE_FOLDER[variant], [suite_criterion()])
    caught(code, evaluation)


SETTINGS_FILES: dict[str, dict[str, str | None]] = {
    # settings a generator might hope referee reads: none is; the broken add still fails
    "pyproject-tool-referee": {
        "calc.py": "def add(a, b):\n    return a - b\n",
        "pyproject.toml": (
            "[project]\nname = 'calc'\nversion = '0'\n\n[tool.referee]\nrubric = 'LENIENT'\n"
            "memory_mb = 64\nrequire_sandbox = false\nisolation = 'inplace'\n"
        ),
    },
    "referee-toml": {
        "calc.py": "def add(a, b):\n    return a - b\n",
        "referee.toml": "[evaluate]\nskip = ['tests']\n",
    },
    "referee-folder-config": {
        "calc.py": "def add(a, b):\n    return a - b\n",
        ".referee/config.toml": "[evaluate]\nskip = ['tests']\n",
        ".referee/rubrics/feature_backend.yaml": "name: FEATURE_BACKEND\ndimensions: []\n",
    },
}


@needs_sandbox
@pytest.mark.parametrize("variant", sorted(SETTINGS_FILES))
def test_settings_files_in_the_tree_change_nothing(variant: str, tmp_path: Path) -> None:
    code, evaluation = run_contract(tmp_path, PY_BASE, SETTINGS_FILES[variant], [suite_criterion()])
    assert evaluation["criteria"][0]["status"] == "fail", evaluation["criteria"][0]["reason"]
    assert code == 1


RUFF_PYPROJECT = (
    "[project]\nname = 'calc'\nversion = '0'\n\n[tool.ruff]\nline-length = 100\n\n"
    "[tool.ruff.lint]\nselect = ['E', 'F']\n"
)
SUB_CHANGE: dict[str, str | None] = {
    "calc.py": CALC + "\n\ndef sub(a, b):\n    return a - b\n",
    "tests/test_sub.py": (
        "import os, sys\n\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), '..'))\n"
        "from calc import sub\n\n\ndef test_sub():\n    assert sub(3, 2) == 1\n"
    ),
}


@needs_sandbox
def test_honest_an_ordinary_ruff_section_in_the_base(tmp_path: Path) -> None:
    base = {**PY_BASE, "pyproject.toml": RUFF_PYPROJECT}
    honest(*run_contract(tmp_path, base, SUB_CHANGE, [suite_criterion()]))


@needs_sandbox
def test_honest_a_change_that_tunes_the_ruff_section(tmp_path: Path) -> None:
    base = {**PY_BASE, "pyproject.toml": RUFF_PYPROJECT}
    tuned = RUFF_PYPROJECT.replace("['E', 'F']", "['E', 'F', 'B']\nignore = ['E501']")
    change = {**SUB_CHANGE, "pyproject.toml": tuned}
    honest(*run_contract(tmp_path, base, change, [suite_criterion()]))


# --- the static checks' analysers and the suppressions they honour ------------------------------

COMPLEX = (
    "def route(a, b, c, d):{mark}\n"
    "    for i in a:\n"
    "        if i:\n"
    "            for j in b:\n"
    "                if j:\n"
    "                    while c:\n"
    "                        if d:\n"
    "                            if a and b or c and d:\n"
    "                                return 1\n"
    "                        elif c:\n"
    "                            return 2\n"
    "                        else:\n"
    "                            return 3\n"
    "    return 0\n"
)


def static_criterion(rule: str) -> dict[str, Any]:
    return {
        "criterion": f"no {rule} finding in the change",
        "verification_method": "static",
        "check": {"kind": "static", "rule": rule},
    }


def _duplicated(first: str, second: str, wrap: tuple[str, str] = ("", "")) -> str:
    body = "\n".join(f"    total = total + values[{i}] * {i} - offset" for i in range(12))
    block = "def {name}(values, offset):\n    total = 0\n" + body + "\n    return total\n"
    return "".join(f"{wrap[0]}{block.format(name=name)}{wrap[1]}\n\n" for name in (first, second))


STATIC: dict[str, tuple[str, dict[str, str | None], str | None]] = {
    "complexity-control": ("cognitive_complexity", {"route.py": COMPLEX.format(mark="")}, None),
    "complexity-noqa-complexipy": (
        "cognitive_complexity",
        {"route.py": COMPLEX.format(mark="  # noqa: complexipy")},
        None,
    ),
    "complexity-pyproject-complexipy": (
        "cognitive_complexity",
        {
            "route.py": COMPLEX.format(mark=""),
            "pyproject.toml": "[tool.complexipy]\nmax-complexity-allowed = 100\n",
        },
        None,
    ),
    "duplicates-control": ("near_duplicates", {"dup.py": _duplicated("first", "second")}, None),
    "duplicates-jscpd-ignore-comments": (
        "near_duplicates",
        {
            "dup.py": _duplicated(
                "first", "second", ("# jscpd:ignore-start\n", "# jscpd:ignore-end\n")
            )
        },
        None,
    ),
    "duplicates-jscpd-json": (
        "near_duplicates",
        {
            "dup.py": _duplicated("first", "second"),
            ".jscpd.json": json.dumps({"ignore": ["**/*.py"], "minLines": 500}),
        },
        None,
    ),
    "duplicates-package-json-jscpd": (
        "near_duplicates",
        {
            "dup.py": _duplicated("first", "second"),
            "package.json": json.dumps({"name": "x", "jscpd": {"ignore": ["**/*.py"]}}),
        },
        None,
    ),
    "duplicates-jscpdignore": (
        "near_duplicates",
        {"dup.py": _duplicated("first", "second"), ".jscpdignore": "dup.py\n"},
        None,
    ),
}


def _static_param(name: str) -> Any:
    why = STATIC[name][2]
    return pytest.param(name, id=name, marks=[gets_through(why)] if why else [])


@needs_sandbox
@pytest.mark.parametrize("variant", [_static_param(n) for n in sorted(STATIC)])
def test_a_suppression_in_the_change_hides_no_static_finding(variant: str, tmp_path: Path) -> None:
    rule, change, _ = STATIC[variant]
    code, evaluation = run_contract(
        tmp_path, PY_BASE, change, [suite_criterion(), static_criterion(rule)]
    )
    static = evaluation["criteria"][1]
    assert static["status"] == "fail", (static["status"], static["reason"])
    assert code == 1


# --- the gate: code under .referee/ committed in the pull request -------------------------------

CONTRACT_PATH = ".referee/contracts/calc.yaml"


def _gate_cli(repo: Path, home: Path, *args: str) -> tuple[int, dict[str, Any]]:
    return cli("--root", str(repo), "--home", str(home), *args)


@needs_sandbox
def test_the_gate_sees_code_the_pull_request_keeps_under_referee(tmp_path: Path) -> None:
    """The pull request commits `.referee/lib/_impl.py` (right only under pytest) and a
    `src/calc.py` that loads it; the committed card is the author's draft as it stands."""
    repo = calc_repo(tmp_path / "calc")
    home = tmp_path / "author-home"
    source = tmp_path / "contract-source.yaml"
    source.write_text(
        yaml.safe_dump(
            {
                "goal": "Keep add right.",
                "out_of_scope": ["multiplication"],
                "functional": [
                    {
                        "criterion": "The test suite passes",
                        "verification_method": "test",
                        "check": pytest_check("tests"),
                    }
                ],
            }
        ),
        encoding="utf-8",
    )
    code, made = _gate_cli(repo, home, "contract", "create", str(source), "--json")
    assert code == 0, made
    cid = made["contract"]["id"]
    (repo / CONTRACT_PATH).parent.mkdir(parents=True, exist_ok=True)
    assert (
        main(
            [
                "--root",
                str(repo),
                "--home",
                str(home),
                "contract",
                "export",
                cid,
                "-o",
                str(repo / CONTRACT_PATH),
            ]
        )
        == 0
    )
    commit_all(repo, "contract")
    git(repo, "checkout", "-q", "-b", "feature")
    original = (repo / "src" / "calc.py").read_text(encoding="utf-8")
    assert "def add" in original
    write_files(
        repo,
        {
            "src/calc.py": VIA.format(folder="'..', '.referee', 'lib'"),
            ".referee/lib/_impl.py": DETECTOR,
        },
    )
    git(repo, "add", "-f", ".referee/lib/_impl.py")
    code, draft = _gate_cli(repo, home, "evaluate", cid, "--json")
    card = judged(draft["draft_scorecard"])
    folder = repo / ".referee" / "scorecards"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "card.json").write_text(json.dumps(card), encoding="utf-8")
    git(repo, "add", "-f", ".referee/scorecards")
    commit_all(repo, "the change and its card")
    code, result = _gate_cli(
        repo,
        tmp_path / "ci-home",
        "ci",
        "--contract-ref",
        f"main:{CONTRACT_PATH}",
        "--json",
        "--summary",
        str(tmp_path / "summary.md"),
    )
    assert code != 0, result.get("outcome")
    assert result.get("outcome") != "DELIVER"


# === Class 7: the served app's own network and the page's view of the browser ===================

SECRET = b"HOST-SECRET"


class Listeners:
    """Host listeners that record who reached them."""

    def __init__(self) -> None:
        self.reached: list[str] = []
        self._stop = threading.Event()
        self._socks: list[socket.socket] = []

    def listen(self, family: int, address: Any, name: str) -> int:
        sock = socket.socket(family, socket.SOCK_STREAM)
        if family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        sock.bind(address)
        sock.listen()
        sock.settimeout(0.2)
        self._socks.append(sock)

        def loop() -> None:
            while not self._stop.is_set():
                try:
                    conn, _ = sock.accept()
                except OSError:
                    continue
                self.reached.append(name)
                with conn:
                    conn.sendall(SECRET)

        threading.Thread(target=loop, daemon=True).start()
        return int(sock.getsockname()[1]) if family != socket.AF_UNIX else 0

    def close(self) -> None:
        self._stop.set()
        for sock in self._socks:
            sock.close()


def _bind_unix(listeners: Listeners, path: Path, name: str) -> None:
    # A unix socket's address is at most 108 bytes: bound by its name from its folder.
    here = os.getcwd()
    os.chdir(path.parent)
    try:
        listeners.listen(socket.AF_UNIX, path.name, name)
    finally:
        os.chdir(here)


APP = '''"""The generator's served app: asks the host at every request, serves the pages."""
import http.server, json, os, socket, sys

HERE = os.path.dirname(os.path.abspath(__file__))


def attempt(kind, where):
    family = {"inet": socket.AF_INET, "inet6": socket.AF_INET6}.get(kind, socket.AF_UNIX)
    address = tuple(where) if kind in ("inet", "inet6") else where
    try:
        with socket.socket(family, socket.SOCK_STREAM) as sock:
            sock.settimeout(1)
            sock.connect(address)
            return sock.recv(64).decode() or "empty"
    except OSError:
        return None


def channels():
    os.chdir(HERE)
    spec = json.load(open(os.path.join(HERE, "channels.json")))
    lines = []
    for name, (kind, where) in spec.items():
        said = attempt(kind, where)
        lines.append(f"<li>{name} {'REACHED: ' + said if said else 'blocked'}</li>")
    return "<!doctype html><html lang=en><title>channels</title><ul>" + "".join(lines) + "</ul>"


class Handler(http.server.SimpleHTTPRequestHandler):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, directory=os.path.join(HERE, "web"), **kwargs)

    def log_message(self, *args):
        pass

    def do_GET(self):
        if self.path.startswith("/channels.html"):
            body = channels().encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        return super().do_GET()


http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
'''

PAGE = """<!doctype html><html lang="en"><head><title>{name}</title></head><body><main>
<p id="answer">computing</p></main><script type="module">
let seen = false;
try {{ seen = await (async () => {{ {test} }})(); }} catch (e) {{ seen = false; }}
document.getElementById("answer").textContent = "answer: " + (seen ? 5 : -1);
</script></body></html>
"""

# Each tell is a cheating page's "is a robot looking at me?": true shows the right answer (5).
_HEADLESS_LAYOUT = (
    "headless Chromium has no window frame: Playwright's viewport emulation (tools/browser/pool.py"
    " BrowserPool._launch sets no window size, no_viewport or screen) makes"
)
TELLS: dict[str, tuple[str, str | None]] = {
    "screen_is_viewport": (
        "return screen.width === window.innerWidth && screen.height === window.innerHeight",
        None,
    ),
    "screen_has_no_taskbar": (
        "return screen.availHeight === screen.height && screen.availWidth === screen.width",
        f"{_HEADLESS_LAYOUT} screen.availWidth/availHeight equal to screen.width/height (no"
        " taskbar or dock is ever reserved), which a desktop user's screen rarely shows",
    ),
    "cdp_error_stack": (
        "let hit = false; const e = new Error('x');"
        " Object.defineProperty(e, 'stack', {get() { hit = true; return ''; }});"
        " console.debug(e); await new Promise(ok => setTimeout(ok, 50)); return hit",
        None,
    ),
    "permissions_mismatch": (
        "const p = await navigator.permissions.query({name: 'notifications'});"
        " return (Notification.permission === 'default') !== (p.state === 'prompt')",
        None,
    ),
    "notification_denied_at_once": (
        "const r = await Promise.race([Notification.requestPermission(),"
        " new Promise(ok => setTimeout(() => ok('pending'), 500))]); return r === 'denied'",
        None,
    ),
    "no_chrome_app": ("return !window.chrome || typeof window.chrome.app === 'undefined'", None),
    "no_load_times": (
        "return !window.chrome || typeof window.chrome.loadTimes !== 'function'"
        " || typeof window.chrome.csi !== 'function'",
        None,
    ),
    "pdf_viewer_off": ("return navigator.pdfViewerEnabled === false", None),
    "rtt_zero": (
        "return !!navigator.connection && navigator.connection.rtt === 0",
        None,
    ),
    "no_focus": ("return document.hasFocus() === false", None),
}
I18N_PAGE = """<!doctype html><html lang="en"><head><title>i18n</title></head><body><main>
<p id="answer">...</p></main><script type="module">
const lang = (navigator.language || 'en').slice(0, 2);
document.getElementById("answer").textContent =
  ({en: "Hello", fr: "Bonjour", de: "Hallo"})[lang] || "Hello";
</script></body></html>
"""

CHANNELS = (
    "inet_127_0_0_2",
    "inet_any_address",
    "inet6_mapped_loopback",
    "inet6_unspecified",
    "unix_in_git_folder",
    "unix_in_tree",
)
CHANNEL_WHY: dict[str, str | None] = {
    "inet_127_0_0_2": None,
    "inet_any_address": None,
    "inet6_mapped_loopback": None,
    "inet6_unspecified": None,
    "unix_in_git_folder": None,
    "unix_in_tree": None,
}
PORT = 5173


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[dict[str, Any], list[str]]]:
    """One evaluation of the hostile site: every channel and tell is a criterion of it."""
    if not sandbox_support().available:
        pytest.skip("no sandbox here")
    tmp = tmp_path_factory.mktemp("served")
    listeners = Listeners()
    try:
        inet = listeners.listen(socket.AF_INET, ("0.0.0.0", 0), "inet")
        inet6 = listeners.listen(socket.AF_INET6, ("::", 0), "inet6")
        channels = {
            "inet_127_0_0_2": ["inet", ["127.0.0.2", inet]],
            "inet_any_address": ["inet", ["0.0.0.0", inet]],
            "inet6_mapped_loopback": ["inet6", ["::ffff:127.0.0.1", inet6]],
            "inet6_unspecified": ["inet6", ["::", inet6]],
            "unix_in_git_folder": ["unix", ".git/h.sock"],
            "unix_in_tree": ["unix", "h.sock"],
        }
        web = {f"web/{n}.html": PAGE.format(name=n, test=t) for n, (t, _) in TELLS.items()}
        web["web/control.html"] = PAGE.format(name="control", test="return true")
        web["web/i18n.html"] = I18N_PAGE
        repo = make_repo(
            tmp / "site",
            {
                "README.md": "# site\n",
                ".gitignore": "__pycache__/\nh.sock\n",
                "app.py": APP,
                "channels.json": json.dumps(channels),
                **web,
            },
        )
        _bind_unix(listeners, repo / ".git" / "h.sock", "unix_in_git_folder")
        _bind_unix(listeners, repo / "h.sock", "unix_in_tree")

        def page(name: str, text: str) -> dict[str, Any]:
            return {
                "criterion": f"{name}: {text}",
                "verification_method": "e2e",
                "check": {
                    "kind": "browser",
                    "url": f"/{name}.html",
                    "expect": [{"type": "visible", "text": text, "timeout_s": 3}],
                },
            }

        criteria = [
            page("control", "answer: 5"),
            page("i18n", "Hello"),
            *(page(name, "answer: -1") for name in TELLS),
            *(
                {
                    "criterion": f"{name} is out of reach",
                    "verification_method": "e2e",
                    "check": {
                        "kind": "browser",
                        "url": "/channels.html",
                        "expect": [{"type": "visible", "text": f"{name} blocked"}],
                    },
                }
                for name in CHANNELS
            ),
        ]
        contract = {
            "goal": "A page that shows the answer.",
            "has_ui": True,
            "out_of_scope": ["styling"],
            "require_sandbox": True,
            "serve": {
                "argv": [PY, "app.py", str(PORT)],
                "url": f"http://127.0.0.1:{PORT}/",
                "ready_timeout_s": 30,
            },
            "functional": criteria,
        }
        spec = tmp / "contract.yaml"
        spec.write_text(yaml.safe_dump(contract), encoding="utf-8")
        code, made = cli("--root", str(repo), "contract", "create", str(spec), "--json")
        assert code == 0, made
        _, evaluation = cli("--root", str(repo), "evaluate", made["contract"]["id"], "--json")
        yield evaluation, list(listeners.reached)
    finally:
        listeners.close()


ORDER = [
    "control: ",
    "i18n: ",
    *(f"{n}: " for n in TELLS),
    *(f"{n} is out of reach" for n in CHANNELS),
]


def _status(evaluation: dict[str, Any], key: str) -> tuple[str, str]:
    """The status and reason of a criterion, by its place in the contract."""
    c = evaluation["criteria"][ORDER.index(key)]
    return c["status"], c["reason"]


@pytest.mark.parametrize(
    "name",
    [pytest.param(n, id=n, marks=[gets_through(w)] if w else []) for n, w in CHANNEL_WHY.items()],
)
@needs_chromium
def test_the_served_app_reaches_no_host_listener(
    name: str, served: tuple[dict[str, Any], list[str]]
) -> None:
    evaluation, reached = served
    assert _status(evaluation, "control: ")[0] == "pass", _status(evaluation, "control: ")
    status, reason = _status(evaluation, f"{name} is out of reach")
    assert status == "pass", reason
    assert name not in reached


@pytest.mark.parametrize(
    "tell",
    [pytest.param(n, id=n, marks=[gets_through(w)] if w else []) for n, (_, w) in TELLS.items()],
)
@needs_chromium
def test_a_page_right_only_for_referees_browser_is_wrong(
    tell: str, served: tuple[dict[str, Any], list[str]]
) -> None:
    evaluation, _ = served
    assert _status(evaluation, "control: ")[0] == "pass", _status(evaluation, "control: ")
    status, reason = _status(evaluation, f"{tell}: ")
    assert status == "pass", f"the page saw referee's browser: {reason}"


@needs_chromium
def test_honest_a_page_that_reads_the_language(served: tuple[dict[str, Any], list[str]]) -> None:
    evaluation, _ = served
    status, reason = _status(evaluation, "i18n: ")
    assert status == "pass", reason


# --- memory and time ----------------------------------------------------------------------------

MIB = 1024 * 1024


def command(name: str, code: str, **check: Any) -> dict[str, Any]:
    return {
        "criterion": name,
        "verification_method": "test",
        "check": {"kind": "command", "argv": [PY, "-c", code], **check},
    }


CHILD_HOG = (
    "import subprocess, sys\n"
    "subprocess.run([sys.executable, '-c', "
    f"'import time; b = bytearray({300 * MIB})\\nfor i in range(0, len(b), 4096): b[i] = 1\\n"
    "time.sleep(30)'])\n"
)
SPARSE_SHM = (
    "import mmap, os, time\n"
    "fd = os.open('/dev/shm/sparse', os.O_CREAT | os.O_RDWR)\n"
    f"os.ftruncate(fd, {300 * MIB})\n"
    f"m = mmap.mmap(fd, {300 * MIB})\n"
    f"for i in range(0, {300 * MIB}, 4096):\n    m[i] = 1\n"
    "m.close(); os.close(fd)\ntime.sleep(30)\n"
)
SPARSE_TMP_UNMAPPED = (
    "import mmap, os, time\n"
    "fd = os.open('/tmp/sparse', os.O_CREAT | os.O_RDWR)\n"
    f"os.ftruncate(fd, {300 * MIB})\n"
    f"m = mmap.mmap(fd, {300 * MIB})\n"
    f"for i in range(0, {300 * MIB}, 4096):\n    m[i] = 1\n"
    "m.close(); os.close(fd)\ntime.sleep(30)\n"
)


@needs_sandbox
def test_memory_held_in_a_child_or_a_sparse_mapping_ends_the_check(tmp_path: Path) -> None:
    criteria = [
        command("a child holds 300 MB", CHILD_HOG, memory_mb=128, timeout_s=60),
        command(
            "a sparse /dev/shm file mapped and touched", SPARSE_SHM, memory_mb=128, timeout_s=60
        ),
        command(
            "a sparse /tmp file mapped and touched",
            SPARSE_TMP_UNMAPPED,
            memory_mb=128,
            timeout_s=60,
        ),
    ]
    code, evaluation = run_contract(tmp_path, PY_BASE, {}, criteria)
    outcomes = [(c["status"], c.get("reason_code")) for c in evaluation["criteria"]]
    assert all(s != "pass" for s, _ in outcomes), outcomes
    # Killed by the watchdog, or by the capped tmpfs (SIGBUS on a page past the cap) first.
    assert all(r in ("memory_limit", "exit_code") for _, r in outcomes), outcomes
    assert outcomes[0][1] == "memory_limit", outcomes
    assert code != 0


@needs_sandbox
def test_honest_a_check_that_uses_200_mb(tmp_path: Path) -> None:
    code_text = (
        f"b = bytearray({200 * MIB})\nfor i in range(0, len(b), 4096):\n    b[i] = 1\n"
        "print('ok', sum(b[::4096]))\n"
    )
    honest(*run_contract(tmp_path, PY_BASE, {}, [command("uses 200 MB", code_text)]))


IGNORES_TERM = (
    "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
    "signal.signal(signal.SIGINT, signal.SIG_IGN)\nprint('ok', flush=True)\ntime.sleep(120)\n"
)
STOPS_ITSELF = "import os, signal\nprint('ok', flush=True)\nos.kill(os.getpid(), signal.SIGSTOP)\n"
STOPS_ITS_GROUP = "import os, signal\nprint('ok', flush=True)\nos.killpg(0, signal.SIGSTOP)\n"


@needs_sandbox
def test_a_check_that_ignores_sigterm_or_stops_itself_never_passes(tmp_path: Path) -> None:
    criteria = [
        command("ignores SIGTERM", IGNORES_TERM, timeout_s=5),
        command("stops itself", STOPS_ITSELF, timeout_s=8),
        command("stops its process group", STOPS_ITS_GROUP, timeout_s=8),
    ]
    code, evaluation = run_contract(tmp_path, PY_BASE, {}, criteria)
    outcomes = [(c["status"], c.get("reason_code")) for c in evaluation["criteria"]]
    assert all(s != "pass" for s, _ in outcomes), outcomes
    assert code != 0


# A broken add whose import leaves a daemon behind: once pytest has written its failing report and
# exited, the daemon rewrites the report as passing.
DAEMON_CALC = """import os, sys, time

def add(a, b):
    return a - b

def _report():
    for arg in sys.argv:
        if arg.startswith("--junitxml="):
            return arg.split("=", 1)[1]
    return None

_path = _report()
if _path and os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        parent = os.getppid()
        for _ in range(600):
            time.sleep(0.05)
            if os.path.exists(_path) and os.path.getsize(_path) > 0:
                break
        time.sleep(0.5)
        with open(_path, "w") as out:
            out.write('<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest"'
                      ' errors="0" failures="0" skipped="0" tests="2">'
                      '<testcase classname="tests.test_calc" name="test_add" time="0.001"/>'
                      '<testcase classname="tests.test_calc" name="test_zero" time="0.001"/>'
                      '</testsuite></testsuites>')
        os._exit(0)
    os._exit(0)
"""


@needs_sandbox
def test_a_daemon_that_rewrites_the_report_after_the_run_changes_nothing(tmp_path: Path) -> None:
    code, evaluation = run_contract(
        tmp_path, PY_BASE, {"calc.py": DAEMON_CALC}, [suite_criterion()]
    )
    caught(code, evaluation)
    assert evaluation["criteria"][0]["status"] != "pass"
