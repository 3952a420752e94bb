"""Ways a generator could try to get a new accessibility violation past an `a11y` expectation with
`new_only`: make the base run look worse (the same violation there too), make the new node read
as an old one, or show a different page to the audit. Each is a repository, a change made after
the contract exists, and (for those not closed) why it gets through.

The page of every variant is the sign-up page of a11y_sites.py, whose known debt is the
unlabelled email input; the change always brings a violation the base commit did not have.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from a11y_sites import DEBT, NEW_BUTTON, change_page, new_only_check, signup

NAMELESS = '<button id="x" type="button"></button>'
INJECT = f"document.querySelector('main').insertAdjacentHTML('beforeend', '{NAMELESS}');\n"


@dataclass(frozen=True)
class Attack:
    """One attempt: the base commit's files (over the sign-up site), what is on disk outside git
    before the contract is created, the change after it, and the contract's serve and check."""

    name: str
    change: Callable[[Path], None]
    files: dict[str, str] = field(default_factory=dict)
    before: Callable[[Path], None] | None = None
    serve: list[str] | None = None
    """The serve command ({port} is the contract's port); default: a static server of web/."""
    check: dict[str, Any] | None = None
    gets_through: str = ""
    """Why the attempt passes (a strict xfail), empty when referee refuses it."""
    refused: str = "fail"
    """How referee refuses it: `fail` naming the new violation, or `unscored` (no base to
    compare with)."""


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _with_tail(tail: str, form: str = DEBT + NEW_BUTTON) -> Callable[[Path], None]:
    return lambda repo: change_page(repo, form, tail)


# A fixed node's selector taken by a new one: the email input gets a name and another id, and a
# new unlabelled input takes `#email`.
def _take_the_selector(repo: Path) -> None:
    fixed = '<input type="email" id="email-address" aria-label="Email">'
    change_page(repo, fixed + '<input type="tel" id="email">')


# The debt's node, with another rule broken on it: a combobox role without its required states.
def _another_rule(repo: Path) -> None:
    change_page(repo, '<input type="email" id="email" role="combobox">')


def _shift_the_debt(repo: Path) -> None:
    row = '<div><input type="text"></div>'
    change_page(repo, row * 3)


def _framed(repo: Path) -> None:
    _write(repo / "web" / "frame.html", signup("", NAMELESS))
    change_page(repo, DEBT + '<iframe src="frame.html" title="Help"></iframe>')


def _script(repo: Path) -> None:
    _write(repo / "web" / "app.js", INJECT)


def _untracked_plugin(repo: Path) -> None:
    _write(repo / "web" / "plugins.js", INJECT)


def _app_writes_for_the_base(repo: Path) -> None:
    # The evaluated app writes the base page's plugin as it starts, then serves as before.
    server = (repo / "web" / "server.py").read_text(encoding="utf-8")
    plant = f"(root / 'plugins.js').write_text({INJECT!r})\n"
    _write(repo / "web" / "server.py", server.replace("handler =", plant + "handler =", 1))


def _edit_the_dependency(repo: Path) -> None:
    # The installed static server now adds the nameless button to every page it serves.
    server = repo / "node_modules" / "tiny-static" / "server.js"
    text = server.read_text(encoding="utf-8")
    _write(
        server,
        text.replace("r.end(d)", f"r.end(String(d).replace('</main>', '{NAMELESS}</main>'))"),
    )


def _break_the_base(repo: Path) -> None:
    # The base's server needs its ignored settings; the change's does not, and they are gone.
    (repo / "web" / "settings.json").unlink()
    server = (repo / "web" / "server.py").read_text(encoding="utf-8")
    _write(repo / "web" / "server.py", server.replace(_NEEDS_SETTINGS, ""))
    change_page(repo, DEBT + NEW_BUTTON)


def _rename_into_place(repo: Path) -> None:
    os.rename(repo / "web" / "spare", repo / "web" / "assets")


def _spare_folder(repo: Path) -> None:
    _write(repo / "web" / "spare" / "help.js", INJECT)


def _tiny_static(repo: Path) -> None:
    _write(repo / "node_modules" / "tiny-static" / "server.js", TINY_STATIC)


def _settings(repo: Path) -> None:
    _write(repo / "web" / "settings.json", "{}\n")


def _upload_changed(repo: Path) -> None:
    _write(repo / "fixtures" / "card.html", f"<p>Ada</p>{NAMELESS}")


# Hides its new button from the audit: when axe appears (a global, a script element) the button
# goes; a user never sees that happen.
HIDES_FROM_AXE = """<script>
const gone = () => document.getElementById('x')?.remove();
const added = ms => ms.some(m => [...m.addedNodes].some(n => n.nodeName === 'SCRIPT'));
new MutationObserver(ms => { if (added(ms)) gone(); })
  .observe(document, {subtree: true, childList: true});
setInterval(() => { if (window.axe) gone(); }, 1);
</script>"""
# Runs only where the page's CSP is bypassed (a browser relaxed for an injected script).
SEES_RELAXED_CSP = """<script>document.getElementById('x').remove();</script>"""
CSP = """<meta http-equiv="Content-Security-Policy" content="script-src 'self'">"""

TINY_STATIC = """const http = require('http'), fs = require('fs'), path = require('path');
const [port, dir] = process.argv.slice(2);
http.createServer((q, r) => {
  const f = path.join(dir, decodeURIComponent(q.url.split('?')[0]));
  fs.readFile(f, (e, d) => {
    if (e) { r.writeHead(404); r.end(); return; }
    r.writeHead(200, {'Content-Type': f.endsWith('.html') ? 'text/html' : 'text/javascript'});
    r.end(d);
  });
}).listen(+port, '127.0.0.1');
"""
_NEEDS_SETTINGS = "json.loads((root / 'settings.json').read_text())\n"
SERVER = f"""import functools, http.server, json, pathlib, sys
root = pathlib.Path(__file__).parent
{_NEEDS_SETTINGS}handler = functools.partial(
    http.server.SimpleHTTPRequestHandler, directory=str(root))
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), handler).serve_forever()
"""
_PY_SERVER = [sys.executable, "web/server.py", "{port}"]
_UPLOAD_PAGE = signup(
    DEBT + '<input type="file" id="card" aria-label="Card"><div id="preview"></div>',
    "<script>document.getElementById('card').onchange = async e =>"
    " { document.getElementById('preview').innerHTML = await e.target.files[0].text(); };"
    "</script>",
)
_UPLOAD_STEPS = [
    {"action": "set_input_files", "selector": "#card", "files": ["fixtures/card.html"]},
    {"action": "wait_for", "selector": "#preview p", "state": "visible"},
]

ATTACKS = [
    Attack(
        "a_new_node_takes_the_selector_of_one_the_change_fixed",
        _take_the_selector,
        gets_through=(
            "nodes are matched one to one by rule and selector: a new unlabelled input given the"
            " id of the one the change labelled reads as that node, and the rule's node count"
            " did not grow"
        ),
    ),
    Attack(
        "a_new_violation_inside_an_iframe",
        _framed,
        gets_through=(
            "axe runs in the page's main frame only, as it did before new_only: what an iframe"
            " holds is audited neither now nor at base"
        ),
    ),
    Attack("a_copy_of_the_debt_beside_it", lambda repo: change_page(repo, DEBT + DEBT)),
    Attack(
        "a_new_row_shifts_the_debts_positional_selectors",
        _shift_the_debt,
        files={"web/index.html": signup('<div><input type="text"></div>' * 2)},
    ),
    Attack("another_rule_broken_on_the_debts_own_node", _another_rule),
    Attack(
        "a_tracked_script_the_base_page_loads_injects_it",
        _script,
        files={"web/index.html": signup(DEBT, '<script src="app.js"></script>'), "web/app.js": ""},
    ),
    Attack(
        "an_untracked_file_the_base_page_would_load",
        _untracked_plugin,
        files={"web/index.html": signup(DEBT, '<script src="plugins.js"></script>')},
    ),
    Attack(
        "an_ignored_file_the_base_page_loads_written_during_the_work",
        _untracked_plugin,
        files={
            "web/index.html": signup(DEBT, '<script src="plugins.js"></script>'),
            ".gitignore": "__pycache__/\nweb/plugins.js\n",
        },
    ),
    Attack(
        "an_ignored_folder_of_old_files_renamed_into_place",
        _rename_into_place,
        files={
            "web/index.html": signup(DEBT, '<script src="assets/help.js"></script>'),
            ".gitignore": "__pycache__/\nweb/assets/\nweb/spare/\n",
        },
        before=_spare_folder,
    ),
    Attack(
        "the_evaluated_app_writes_a_file_the_base_page_loads",
        _app_writes_for_the_base,
        files={
            "web/index.html": signup(DEBT, '<script src="plugins.js"></script>'),
            "web/server.py": SERVER.replace(_NEEDS_SETTINGS, ""),
            ".gitignore": "__pycache__/\nweb/plugins.js\n",
        },
        serve=_PY_SERVER,
    ),
    Attack(
        "an_installed_dependency_edited_to_render_it_for_both_runs",
        _edit_the_dependency,
        files={".gitignore": "__pycache__/\nnode_modules/\n"},
        before=_tiny_static,
        serve=["node", "node_modules/tiny-static/server.js", "{port}", "web"],
        gets_through=(
            "installed dependencies (node_modules, virtualenvs) are read by both runs: an edit to"
            " one is reported (environment_modified), not kept from the base run, whose app an"
            " honest upgrade would break"
        ),
    ),
    Attack(
        "the_base_app_broken_on_purpose_by_removing_an_ignored_file",
        _break_the_base,
        files={"web/server.py": SERVER, ".gitignore": "__pycache__/\nweb/settings.json\n"},
        before=_settings,
        serve=_PY_SERVER,
        refused="unscored",
    ),
    Attack(
        "a_page_that_hides_its_violation_once_axe_is_injected",
        _with_tail(HIDES_FROM_AXE, DEBT + NAMELESS),
    ),
    Attack(
        "a_page_that_hides_its_violation_where_its_csp_is_bypassed",
        lambda repo: (repo / "web" / "index.html").write_text(
            signup(DEBT + NAMELESS, SEES_RELAXED_CSP).replace("<head>", "<head>" + CSP),
            encoding="utf-8",
        ),
    ),
    Attack(
        "a_chosen_file_changed_so_the_base_shows_it_too",
        _upload_changed,
        files={"web/index.html": _UPLOAD_PAGE, "fixtures/card.html": "<p>Ada</p>"},
        check=new_only_check(steps=_UPLOAD_STEPS),
    ),
]


def serve_argv(attack: Attack, port: int) -> list[str] | None:
    return [a.replace("{port}", str(port)) for a in attack.serve] if attack.serve else None
