"""TodoMVC in React 19, served by the same Vite dev server: another framework than the plain
script of viteapp.py, for the same contract (`viteapp.todomvc_checks`).

React renders the list from state, re-creates elements on every change and attaches its events
at the root, which a check written against the DOM must survive. React comes from npm into
.cache/react (scripts/setup.sh); the app links it as its node_modules, and Vite pre-bundles it
into the app's own cache folder, never into the shared one. No JSX: `createElement` needs no
build plugin.
"""

from __future__ import annotations

import re
from pathlib import Path

from gitrepo import make_repo
from viteapp import FIXTURE, ROOT

REACT = ROOT / ".cache" / "react" / "node_modules"
NO_REACT = (
    None
    if (REACT / "react-dom" / "package.json").is_file()
    else f"no React at {REACT}: run scripts/setup.sh with the test extras"
)
# A generator's bug: the input keeps the title but Enter no longer adds it to the list.
BREAK_ADD = ("setTodos((all) => [...all, { id: nextId++, title, done: false }]);", "")

APP = """\
import { createElement as h, useState } from "react";
import { createRoot } from "react-dom/client";

let nextId = 1;

function Todo({ todo, onToggle }) {
  const [editing, setEditing] = useState(false);
  const classes = [todo.done ? "completed" : "", editing ? "editing" : ""].join(" ").trim();
  return h("li", { className: classes || undefined },
    h("input", { className: "toggle", type: "checkbox", "aria-label": "done",
                 checked: todo.done, onChange: () => onToggle(todo.id) }),
    h("label", { onDoubleClick: () => setEditing(true) }, todo.title),
    h("input", { className: "edit", "aria-label": "edit", defaultValue: todo.title }),
    h("button", { className: "destroy", "aria-label": "delete" }, "×"));
}

function App() {
  const [todos, setTodos] = useState([]);
  const [draft, setDraft] = useState("");
  const left = todos.filter((t) => !t.done).length;
  const add = (event) => {
    const title = draft.trim();
    if (event.key !== "Enter" || !title) return;
    setTodos((all) => [...all, { id: nextId++, title, done: false }]);
    setDraft("");
  };
  const toggle = (id) =>
    setTodos((all) => all.map((t) => (t.id === id ? { ...t, done: !t.done } : t)));
  return h("main", null,
    h("h1", null, "todos"),
    h("input", { className: "new-todo", "aria-label": "New todo",
                 placeholder: "What needs to be done?", value: draft,
                 onChange: (e) => setDraft(e.target.value), onKeyDown: add }),
    h("ul", { className: "todo-list" },
      todos.map((t) => h(Todo, { key: t.id, todo: t, onToggle: toggle }))),
    h("footer", null,
      h("span", { className: "todo-count" }, `${left} item${left === 1 ? "" : "s"} left`),
      h("button", { className: "clear-completed", disabled: left === todos.length },
        "Clear completed")));
}

createRoot(document.getElementById("root")).render(h(App));
"""
# The dependency cache in the app's own folder: the linked node_modules is shared by every test.
CONFIG = 'export default { cacheDir: ".vite-cache" };\n'


def react_app(path: Path) -> Path:
    """A git repository holding the React app (committed), ready for `viteapp.serve_block`."""
    page = FIXTURE.read_text(encoding="utf-8")
    head = re.search(r"<head>.*?</head>", page, re.S)
    assert head is not None
    index = (
        f'<!doctype html>\n<html lang="en">\n{head.group(0)}\n<body>\n<div id="root"></div>\n'
        '<script type="module" src="/src/main.js"></script>\n</body>\n</html>\n'
    )
    files = {
        "index.html": index,
        "src/main.js": APP,
        "vite.config.mjs": CONFIG,
        ".gitignore": "node_modules\n.vite-cache/\n*.timestamp-*.mjs\n",
    }
    repo = make_repo(path, files)
    (repo / "node_modules").symlink_to(REACT, target_is_directory=True)
    return repo
