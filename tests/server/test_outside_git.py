"""What the tree holds outside git is the generator's too.

Each attack leaves the tracked code broken (`add` returns a - b) and plants something git
ignores that every run would use: bytecode that matches the broken source's header, a sourceless
module where the source was, a replaced runner under node_modules/.bin, an installed package
edited after the contract, a `.pth` in an in-tree virtualenv; or code that takes pytest's place
from inside the run (writing the report it finds in argv, ending the process, rewriting the
report after pytest wrote it). None may reach DELIVER with a judge that completes the draft.
"""

from __future__ import annotations

import os
import py_compile
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from gitrepo import make_repo
from mcp import Client
from mcp_calls import call
from runner_projects import JS_CACHE
from runs import judged

from referee.server.app import build_server
from referee.tools.environment import environment_findings
from referee.tools.settings import Settings

pytestmark = pytest.mark.anyio

GOOD = "def add(a, b):\n    return a + b\n"
BROKEN = "def add(a, b):\n    return a - b\n"
TESTS = (
    "import os, sys\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), '..'))\n"
    "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
)


def project(tmp: Path, extra: dict[str, str] | None = None) -> Path:
    files = {"calc.py": GOOD, "tests/test_calc.py": TESTS, ".gitignore": "__pycache__/\n*.pyc\n"}
    return make_repo(tmp / "calc", {**files, **(extra or {})})


def pytest_check() -> dict[str, Any]:
    return {"kind": "tests", "argv": [sys.executable, "-m", "pytest", "-q", "tests"]}


async def loop(repo: Path, change: Any, check: dict[str, Any]) -> tuple[dict[str, Any], str]:
    settings = Settings.build([repo], env=dict(os.environ))
    async with Client(build_server(settings)) as agent:
        made = await call(
            agent,
            "create_contract",
            goal="Keep the calculator correct.",
            out_of_scope=["other operations"],
            functional=[{"criterion": "tests pass", "verification_method": "test", "check": check}],
        )
        cid = made["contract"]["id"]
        change(repo)
        result = await call(agent, "evaluate", contract_id=cid)
        await call(agent, "validate_scorecard", scorecard=judged(result["draft_scorecard"]))
        decided = await call(agent, "aggregate", contract_id=cid)
    return result, decided["decision"]


def stale_bytecode(repo: Path) -> None:
    """The good module's bytecode, with the broken source given the same size and mtime, so
    Python's header check would take the bytecode for the source's."""
    source = repo / "calc.py"
    stamp = source.stat().st_mtime_ns
    cache = repo / "__pycache__" / f"calc.{sys.implementation.cache_tag}.pyc"
    py_compile.compile(str(source), cfile=str(cache))
    source.write_text(BROKEN, encoding="utf-8")
    os.utime(source, ns=(stamp, stamp))


def sourceless_module(repo: Path) -> None:
    source = repo / "calc.py"
    py_compile.compile(str(source), cfile=str(repo / "calc.pyc"))
    source.unlink()


async def test_planted_bytecode_is_never_read(tmp_path: Path) -> None:
    result, decision = await loop(project(tmp_path), stale_bytecode, pytest_check())
    assert result["criteria"][0]["status"] == "fail", result["criteria"]
    assert decision != "DELIVER"


PACKAGED_TESTS = TESTS.replace("from calc import add", "from pkg.calc import add")


def planted_in(folder: str) -> Any:
    """The stale-bytecode attack on a module in `folder` (a package, the test folder)."""

    def plant(repo: Path) -> None:
        source = repo / folder / "calc.py"
        stamp = source.stat().st_mtime_ns
        cache = repo / folder / "__pycache__" / f"calc.{sys.implementation.cache_tag}.pyc"
        py_compile.compile(str(source), cfile=str(cache))
        source.write_text(BROKEN, encoding="utf-8")
        os.utime(source, ns=(stamp, stamp))

    return plant


@pytest.mark.parametrize("folder", ["pkg", "pkg/sub"])
async def test_planted_bytecode_in_a_package_is_never_read(folder: str, tmp_path: Path) -> None:
    module = folder.replace("/", ".")
    tests = TESTS.replace("from calc import add", f"from {module}.calc import add")
    package = {f"{folder}/calc.py": GOOD, f"{folder}/__init__.py": "", "pkg/__init__.py": ""}
    repo = project(tmp_path, {**package, "tests/test_calc.py": tests})
    result, decision = await loop(repo, planted_in(folder), pytest_check())
    assert result["criteria"][0]["status"] == "fail", result["criteria"]
    assert decision != "DELIVER"


async def test_planted_bytecode_of_a_test_module_is_never_read(tmp_path: Path) -> None:
    """The test module's own bytecode, compiled from a version that asserts nothing."""

    def plant(repo: Path) -> None:
        test = repo / "tests" / "test_calc.py"
        stamp, honest = test.stat().st_mtime_ns, test.read_text()
        empty = honest.replace("assert add(2, 3) == 5", "pass  # " + "x" * 12)
        test.write_text(empty[: len(honest)].ljust(len(honest)), encoding="utf-8")
        cache = repo / "tests" / "__pycache__" / f"test_calc.{sys.implementation.cache_tag}.pyc"
        py_compile.compile(str(test), cfile=str(cache))
        test.write_text(honest, encoding="utf-8")
        os.utime(test, ns=(stamp, stamp))
        (repo / "calc.py").write_text(BROKEN, encoding="utf-8")

    result, decision = await loop(project(tmp_path), plant, pytest_check())
    assert result["criteria"][0]["status"] == "fail", result["criteria"]
    assert decision != "DELIVER"


async def test_a_sourceless_module_where_the_source_was_is_reported(tmp_path: Path) -> None:
    result, decision = await loop(project(tmp_path), sourceless_module, pytest_check())
    kinds = {a["id"] for a in result["antipatterns"]}
    assert "environment_modified" in kinds, result["antipatterns"]
    assert decision != "DELIVER"


def test_an_extension_module_shadowing_a_source_is_found(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "calc.py").write_text(BROKEN, encoding="utf-8")
    (tmp_path / "pkg" / "calc.cpython-311-x86_64-linux-gnu.so").write_bytes(b"\x7fELF")
    (tmp_path / "pkg" / "fast.cpython-311-x86_64-linux-gnu.so").write_bytes(b"\x7fELF")
    found = environment_findings(tmp_path, ["pkg/calc.py"], anchor=None)
    assert [f.path for f in found] == ["pkg/calc.cpython-311-x86_64-linux-gnu.so"]
    assert "pkg/calc.py" in found[0].message


def venv_with_pth(repo: Path) -> None:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(repo / ".venv")], check=True)
    site = next((repo / ".venv" / "lib").glob("python*/site-packages"))
    (site / "evil.pth").write_text("import os\n", encoding="utf-8")


async def test_an_environment_changed_after_the_contract_is_reported(tmp_path: Path) -> None:
    repo = project(tmp_path, {".gitignore": "__pycache__/\n.venv/\n"})

    def change(root: Path) -> None:
        (root / "calc.py").write_text(BROKEN, encoding="utf-8")
        venv_with_pth(root)

    result, decision = await loop(repo, change, pytest_check())
    found = [a for a in result["antipatterns"] if a["id"] == "environment_modified"]
    assert found and any(".venv" in a["location"] for a in found), result["antipatterns"]
    assert decision != "DELIVER"


def test_an_environment_installed_before_the_contract_is_not_reported(tmp_path: Path) -> None:
    venv_with_pth(tmp_path)
    future = (tmp_path / ".venv" / "pyvenv.cfg").stat().st_ctime + 60
    assert environment_findings(tmp_path, [], anchor=future) == []
    assert environment_findings(tmp_path, [], anchor=future - 3600)


GUARD_ATTACKS = {
    "report-from-argv": """
        import os, sys
        def test_add():
            path = next(a.split("=", 1)[1] for a in sys.argv if a.startswith("--junitxml"))
            with open(path, "w") as out:
                out.write('<testsuite tests="1"><testcase classname="t" name="ok"/></testsuite>')
            os._exit(0)
    """,
    "report-through-pathlib": """
        import os, sys, pathlib
        def test_add():
            name = [a for a in sys.argv if a.endswith(".xml")][0].split("=")[-1]
            pathlib.Path(name).write_text('<testsuite tests="1"><testcase name="ok"/></testsuite>')
            getattr(os, "_" "exit")(0)
    """,
    "report-through-os-open": """
        import os, sys
        def test_add():
            name = os.environ["REFEREE_GUARD_REPORT"]
            fd = os.open(name, os.O_WRONLY | os.O_CREAT)
            os.write(fd, b'<testsuite tests="1"><testcase name="ok"/></testsuite>')
            os._exit(0)
    """,
    "exit-without-report": """
        import os
        def test_add():
            os._exit(0)
    """,
    "kill-self": """
        import os, signal
        def test_add():
            os.kill(os.getpid(), signal.SIGKILL)
    """,
    "report-rewritten-after-pytest": """
        import os, subprocess, sys, textwrap
        def test_add():
            name = os.environ["REFEREE_GUARD_REPORT"]
            script = textwrap.dedent(f'''
                import os, time
                for _ in range(3000):
                    if os.path.exists({name!r}):
                        break
                    time.sleep(0.005)
                time.sleep(0.05)
                open({name!r}, "w").write('<testsuite tests="1"><testcase name="ok"/></testsuite>')
            ''')
            subprocess.Popen([sys.executable, "-c", script], start_new_session=True)
            assert False
    """,
}


@pytest.mark.parametrize("attack", sorted(GUARD_ATTACKS))
async def test_code_that_takes_pytests_place_is_never_a_pass(attack: str, tmp_path: Path) -> None:
    repo = project(tmp_path)

    def change(root: Path) -> None:
        (root / "calc.py").write_text(BROKEN, encoding="utf-8")
        (root / "tests" / "test_forge.py").write_text(
            textwrap.dedent(GUARD_ATTACKS[attack]), encoding="utf-8"
        )

    result, decision = await loop(repo, change, pytest_check())
    criterion = result["criteria"][0]
    assert criterion["status"] != "pass", criterion
    assert decision != "DELIVER"


async def test_an_honest_suite_is_not_taken_for_a_bypass(tmp_path: Path) -> None:
    result, decision = await loop(project(tmp_path), lambda r: None, pytest_check())
    assert result["criteria"][0]["status"] == "pass", result["criteria"]
    assert decision == "DELIVER"


def replaced_runner(repo: Path) -> None:
    (repo / "src" / "calc.mjs").write_text(
        "export const add = (a, b) => a - b;\n", encoding="utf-8"
    )
    fake = repo / "node_modules" / ".bin" / "vitest"
    fake.unlink()
    fake.write_text(
        '#!/bin/sh\nfor a in "$@"; do case $a in --outputFile.json=*) out=${a#*=};; esac; done\n'
        'echo \'{"numTotalTests":1,"numFailedTests":0,"success":true,"testResults":[{"name":"'
        'x","assertionResults":[{"fullName":"adds","title":"adds","status":'
        '"passed"}]}]}\' > "$out"\necho "1 passed"\n',
        encoding="utf-8",
    )
    fake.chmod(0o755)


@pytest.mark.slow
@pytest.mark.skipif(not (JS_CACHE / "vitest").is_dir(), reason="scripts/setup.sh installs vitest")
async def test_a_replaced_runner_under_node_modules_bin_is_not_run(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "js",
        {
            "src/calc.mjs": "export const add = (a, b) => a + b;\n",
            "test/calc.test.mjs": (
                "import { test, expect } from 'vitest';\n"
                "import { add } from '../src/calc.mjs';\n"
                "test('adds', () => { expect(add(2, 3)).toBe(5); });\n"
            ),
            "package.json": '{"name": "calc", "private": true, "type": "module"}\n',
            ".gitignore": "node_modules\n",
        },
    )
    modules = repo / "node_modules"
    (modules / ".bin").mkdir(parents=True)
    (modules / "vitest").symlink_to(JS_CACHE / "vitest", target_is_directory=True)
    (modules / ".bin" / "vitest").symlink_to(JS_CACHE / "vitest" / "vitest.mjs")
    check = {"kind": "tests", "argv": ["vitest", "run"], "timeout_s": 300}
    result, decision = await loop(repo, replaced_runner, check)
    assert result["criteria"][0]["status"] == "fail", result["criteria"]
    assert decision != "DELIVER"


async def test_an_untracked_virtualenv_is_no_part_of_the_change(tmp_path: Path) -> None:
    """A virtualenv in the tree that git does not ignore: its packages are not the change's
    files (no scan, no claims, no findings of theirs), and the environment check still
    watches them."""
    repo = project(tmp_path)

    def change(root: Path) -> None:
        venv_with_pth(root)
        site = next((root / ".venv" / "lib").glob("python*/site-packages"))
        (site / "pkg").mkdir()
        (site / "pkg" / "keys.py").write_text(
            "import os\nKEY = 'AKIAQ3EGUX5NJZ7XWPLM'\nos._exit(0)\n", encoding="utf-8"
        )
        (root / "calc.py").write_text(GOOD.replace("a + b", "b + a"), encoding="utf-8")

    result, _ = await loop(repo, change, pytest_check())
    assert result["target"]["changed_files"] == ["calc.py"], result["target"]
    assert result["criteria"][0]["status"] == "pass", result["criteria"][0]["reason"]
    assert not [f for f in result["findings"] if ".venv" in str(f.get("location", ""))]
    found = [a for a in result["antipatterns"] if a["id"] == "environment_modified"]
    assert found and all(".venv" in a["location"] for a in found), result["antipatterns"]
