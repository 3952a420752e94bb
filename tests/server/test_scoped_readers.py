"""Readers that tell scopes apart, and the attacks of the same shapes they still hold.

Four honest shapes from real projects were flagged while the readers matched names file-wide
(tests/server/test_redteam_round13.py `OLDER_HONEST`: pip, nix, yargs). Each fix draws a line;
these are the attacks on the other side of it:
- tools/claims/pywrites.py: a copy of the whole environment handed to a call makes an object
  whose attributes are its own (pip's script factory), but the call's result is still a path
  from the environment, and one variable's value always is;
- tools/claims/rust.py `_in_forked_child`: an exit in the child's branch of `fork()` ends the
  child; in the parent's branch, or under a test of a value not bound from `fork()`, it ends the
  runner's process;
- tools/claims/pyescape.py `_within_a_test`: a SystemExit raised by a function a test defines is
  the test's failure, unless the function is installed where no test is running (a signal
  handler, an exit hook, a thread), and pytest's own `Exit` always ends the session;
- tools/claims/tssituation.py with jsnames.py `JsNames.scope`: a value bound to one function's
  parameter is not carried into another function's parameter of the same name, but a module's
  name, a function's own local and a closure's captured name still carry it.
"""

from __future__ import annotations

import pytest
from test_redteam_round12 import _kinds

from referee.tools.claims import CODE_DETECTS_TESTS, HARNESS_MODIFIED

_ENVIRONMENT_PATHS: dict[str, str] = {
    "call-result-is-the-path": "import os\n\n\ndef pick(e):\n    return e['REPORT']\n\n\n"
    "def test_x():\n    p = pick(dict(os.environ))\n    open(p, 'w').write('x')\n",
    "copy-subscripted": "import os\n\n\ndef test_x():\n    env = {**os.environ}\n"
    "    open(env['REPORT'], 'w').write('x')\n",
    "copy-method-subscripted": "import os\n\n\ndef test_x():\n    env = os.environ.copy()\n"
    "    open(env.get('REPORT'), 'w').write('x')\n",
    "one-variable-into-an-object": "import os\n\n\ndef test_x():\n"
    "    c = Config(os.environ['REPORT'])\n    open(c.path, 'w').write('x')\n",
    "getenv-into-an-object": "import os\n\n\ndef test_x():\n"
    "    c = Config(os.getenv('REPORT'))\n    c.path.write_text('x')\n",
    "result-as-a-path": "import os\nfrom pathlib import Path\n\n\ndef test_x():\n"
    "    p = Path(str({**os.environ}['REPORT']))\n    p.write_text('x')\n",
}


@pytest.mark.parametrize("variant", sorted(_ENVIRONMENT_PATHS))
def test_a_path_from_the_environment_is_still_found(variant: str) -> None:
    assert HARNESS_MODIFIED in _kinds("tests/test_x.py", _ENVIRONMENT_PATHS[variant])


def test_an_environment_copy_handed_to_a_factory_leaves_its_attributes_alone() -> None:
    source = (
        "import os\n\n\ndef test_install(script_factory, tmp_path):\n"
        '    script = script_factory(tmp_path, env=dict(os.environ, PIP_DEBUG="1"))\n'
        "    script.site_packages_path.joinpath('x.pth').write_text('')\n"
    )
    assert _kinds("tests/test_install.py", source) == []


_FORK_EXITS: dict[str, str] = {
    "parent-arm": "use nix::unistd::{fork, ForkResult};\n\n#[test]\nfn t() {\n"
    "    match unsafe { fork() }.unwrap() {\n"
    "        ForkResult::Parent { .. } => unsafe { libc::_exit(0) },\n"
    "        ForkResult::Child => {}\n    }\n}\n",
    "pid-not-zero": "#[test]\nfn t() {\n    let pid = unsafe { libc::fork() };\n"
    "    if pid != 0 {\n        unsafe { libc::_exit(0) }\n    }\n}\n",
    "pid-zero-else": "#[test]\nfn t() {\n    let pid = unsafe { libc::fork() };\n"
    "    if pid == 0 {\n    } else {\n        std::process::exit(0);\n    }\n}\n",
    "zero-not-from-fork": "#[test]\nfn t() {\n    let pid = 0;\n"
    "    if pid == 0 {\n        unsafe { libc::_exit(0) }\n    }\n}\n",
    "child-arm-of-no-fork": "#[test]\nfn t() {\n    match which() {\n"
    "        Role::Child => unsafe { libc::_exit(0) },\n        _ => {}\n    }\n}\n",
    "abort-after-the-match": "use nix::unistd::{fork, ForkResult};\n\n#[test]\nfn t() {\n"
    "    match unsafe { fork() }.unwrap() {\n        ForkResult::Child => {}\n"
    "        ForkResult::Parent { .. } => {}\n    }\n    std::process::abort();\n}\n",
}


@pytest.mark.parametrize("variant", sorted(_FORK_EXITS))
def test_an_exit_outside_a_forked_child_is_still_found(variant: str) -> None:
    assert HARNESS_MODIFIED in _kinds("tests/fork.rs", _FORK_EXITS[variant])


def test_the_child_of_libc_fork_ends_itself() -> None:
    source = (
        "#[test]\nfn t() {\n    let pid = unsafe { libc::fork() };\n"
        "    if pid == 0 {\n        unsafe { libc::_exit(3) }\n    }\n"
        "    let mut status = 0;\n    unsafe { libc::waitpid(pid, &mut status, 0) };\n}\n"
    )
    assert _kinds("tests/fork.rs", source) == []


_SYSTEM_EXITS: dict[str, str] = {
    "signal-handler": "import signal\n\n\ndef test_x():\n    def f(*a):\n"
    "        raise SystemExit(0)\n\n    signal.signal(signal.SIGALRM, f)\n",
    "exit-hook": "import atexit\n\n\ndef test_x():\n    def f():\n        raise SystemExit(0)\n\n"
    "    atexit.register(f)\n",
    "thread": "import threading\n\n\ndef test_x():\n    def f():\n        raise SystemExit(0)\n\n"
    "    threading.Thread(target=f).start()\n",
    "timer": "import threading\n\n\ndef test_x():\n    def f():\n        raise SystemExit(0)\n\n"
    "    threading.Timer(1, f).start()\n",
    "module-level-function": "def f():\n    raise SystemExit(0)\n\n\ndef test_x():\n    f()\n",
    "pytest-exit-in-a-closure": "import pytest\n\n\ndef test_x():\n    def f():\n"
    "        raise pytest.exit.Exception('done', 0)\n\n    f()\n",
    "conftest-hook": "def pytest_sessionfinish(session):\n    def f():\n"
    "        raise SystemExit(0)\n\n    f()\n",
}


@pytest.mark.parametrize("variant", sorted(_SYSTEM_EXITS))
def test_an_exit_outside_a_running_test_is_still_found(variant: str) -> None:
    assert HARNESS_MODIFIED in _kinds("tests/conftest.py", _SYSTEM_EXITS[variant])


_JS_CARRIED: dict[str, str] = {
    "module-name": "const marker = 'describe';\nfunction ready() {\n"
    "  return typeof globalThis[marker] === 'function';\n}\nmodule.exports = { ready };\n",
    "local": "function ready() {\n  const marker = 'describe';\n"
    "  return typeof globalThis[marker] === 'function';\n}\nmodule.exports = { ready };\n",
    "closure": "function outer() {\n  const marker = 'describe';\n"
    "  return function inner() {\n    return typeof globalThis[marker] === 'function';\n  };\n}\n"
    "module.exports = { outer };\n",
    "parameter-reassigned": "function ready(opts) {\n  opts = 'describe';\n"
    "  return typeof globalThis[opts] === 'function';\n}\nmodule.exports = { ready };\n",
    "arrow-closure": "const marker = 'it';\nconst ready = () => {\n"
    "  const probe = () => typeof globalThis[marker] === 'function';\n  return probe();\n};\n"
    "module.exports = { ready };\n",
}


@pytest.mark.parametrize("variant", sorted(_JS_CARRIED))
def test_a_runner_global_carried_in_one_scope_is_still_found(variant: str) -> None:
    assert CODE_DETECTS_TESTS in _kinds("src/calc.js", _JS_CARRIED[variant])


def test_a_name_of_another_function_carries_nothing() -> None:
    source = (
        "function pick(opts) {\n  opts = 'describe';\n  return opts;\n}\n"
        "function ready(opts) {\n  return typeof globalThis[opts] === 'function';\n}\n"
        "module.exports = { pick, ready };\n"
    )
    assert _kinds("src/calc.js", source) == []
