"""A small TodoMVC-style app served by a real Vite dev server (Vite from scripts/setup.sh's cache).

The app is the browser fixture `todos.html` split as a Vite project is: `index.html` loading
`src/main.js` as a module. Breaks are edits of `src/main.js`, as a generator's bug would be.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from gitrepo import make_repo

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "browser" / "todos.html"
VITE = ROOT / ".cache" / "node" / "node_modules" / "vite" / "bin" / "vite.js"
NO_VITE = (
    None if VITE.is_file() else f"no Vite at {VITE}: run scripts/setup.sh with the test extras"
)
# A server-side failure on demand: the dev server exits, as one that crashes mid-run does.
CRASH_CONFIG = """\
export default {
  plugins: [{
    name: "crash-on-demand",
    configureServer(server) {
      server.middlewares.use("/api/crash", () => {
        console.error("fatal: the todo store is corrupt (simulated crash)");
        process.exit(3);
      });
    },
  }],
};
"""


def vite_app(path: Path, *, crash: bool = False, main_js: str | None = None) -> Path:
    """A git repository holding the app (committed), ready to be served by `serve_block`."""
    page = FIXTURE.read_text(encoding="utf-8")
    script = re.search(r"<script>\n(.*?)</script>", page, re.S)
    assert script is not None
    index = page.replace(script.group(0), '<script type="module" src="/src/main.js"></script>')
    if crash:
        index = index.replace("</footer>", '<button id="crash">Crash</button></footer>')
    code = script.group(1)
    if crash:
        code += 'document.querySelector("#crash").onclick = () => fetch("/api/crash");\n'
    files = {
        "index.html": index,
        "src/main.js": main_js if main_js is not None else code,
        ".gitignore": "node_modules/\n*.timestamp-*.mjs\n",
    }
    if crash:
        files["vite.config.js"] = CRASH_CONFIG
    return make_repo(path, files)


def main_js(repo: Path) -> str:
    return (repo / "src" / "main.js").read_text(encoding="utf-8")


def serve_block(port: int) -> dict[str, Any]:
    """The contract's `serve`: Vite's dev server, strict about its port as `webServer` is."""
    argv = ["node", str(VITE), "--port", str(port), "--strictPort", "--host", "127.0.0.1"]
    return {"argv": argv, "url": f"http://127.0.0.1:{port}/", "ready_timeout_s": 30}


def add(*titles: str) -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = []
    for title in titles:
        steps += [
            {"action": "fill", "selector": ".new-todo", "value": title},
            {"action": "press", "selector": ".new-todo", "key": "Enter"},
        ]
    return steps


def browser(
    criterion: str, steps: list[dict[str, Any]], expect: list[dict[str, Any]]
) -> dict[str, Any]:
    check = {
        "kind": "browser",
        "url": "/",
        "steps": steps,
        "expect": expect,
        "timeout_s": 30,
        "action_timeout_s": 3,
    }
    return {"criterion": criterion, "verification_method": "e2e", "check": check}


def todomvc_checks(wait_s: float = 2) -> list[dict[str, Any]]:
    """Six TodoMVC-style checks, as a frontend developer would write them in Playwright Test."""
    short = {"timeout_s": wait_s}
    return [
        browser(
            "a new todo is added and the input cleared",
            add("buy milk"),
            [
                {"type": "count", "selector": ".todo-list li", "equals": 1, **short},
                {"type": "text", "selector": ".todo-list li label", "equals": "buy milk", **short},
                {"type": "value", "selector": ".new-todo", "equals": "", **short},
            ],
        ),
        browser(
            "todos are listed in the order they were added",
            add("one", "two", "three"),
            [
                {
                    "type": "text",
                    "selector": ".todo-list li label",
                    "equals": ["one", "two", "three"],
                    **short,
                },
                {"type": "text", "selector": ".todo-count", "equals": "3 items left", **short},
            ],
        ),
        browser(
            "completing a todo marks it and enables Clear completed",
            [*add("walk the dog"), {"action": "check", "selector": ".todo-list .toggle"}],
            [
                {"type": "checked", "selector": ".todo-list .toggle", **short},
                {
                    "type": "attribute",
                    "selector": ".todo-list li",
                    "name": "class",
                    "matches": r"\bcompleted\b",
                    **short,
                },
                {"type": "enabled", "selector": ".clear-completed", **short},
            ],
        ),
        browser(
            "double-clicking a todo edits it",
            [*add("typo"), {"action": "dblclick", "selector": ".todo-list li label"}],
            [
                {"type": "visible", "selector": ".todo-list li .edit", **short},
                {"type": "value", "selector": ".todo-list li .edit", "equals": "typo", **short},
            ],
        ),
        browser(
            "hovering a todo shows its delete button",
            [*add("hover me"), {"action": "hover", "selector": ".todo-list li"}],
            [{"type": "visible", "selector": ".todo-list li .destroy", **short}],
        ),
        browser(
            "the page loads cleanly",
            [],
            [
                {"type": "title_contains", "value": "TodoMVC"},
                {"type": "visible", "selector": "h1"},
                {"type": "disabled", "selector": ".clear-completed", **short},
                {"type": "no_console_errors"},
                {"type": "no_failed_requests"},
            ],
        ),
    ]
