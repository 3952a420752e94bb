"""A sign-up page with a known accessibility debt (an unlabelled input), served by the contract's
`serve`, and a contract whose `a11y` expectation counts only what the base did not have: what the
`new_only` tests share."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from gitrepo import make_repo

DEBT = '<input type="email" id="email">'
NEW_BUTTON = '<button class="icon" type="button"><svg width="10" height="10"></svg></button>'
LABELLED = '<label for="email">Email</label>'

PAGE = """<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Sign up</title></head>
<body>
<main>
<h1>Sign up</h1>
<form>
{form}
</form>
</main>
{tail}
</body>
</html>
"""


def signup(form: str = DEBT, tail: str = "") -> str:
    """The page: by default the base's, whose email input has no label."""
    return PAGE.format(form=form, tail=tail)


def a11y_site(root: Path, files: dict[str, str] | None = None) -> Path:
    """A repository whose `web/index.html` is the sign-up page with its debt (plus `files`)."""
    base = {"README.md": "# sign-up\n", ".gitignore": "__pycache__/\n", "web/index.html": signup()}
    return make_repo(root, {**base, **(files or {})})


def serve_block(port: int, argv: list[str] | None = None) -> dict[str, Any]:
    served = [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"]
    return {
        "argv": argv or [*served, "--directory", "web"],
        "url": f"http://127.0.0.1:{port}/",
        "ready_timeout_s": 20,
    }


def new_only_check(url: str = "/index.html", **check: Any) -> dict[str, Any]:
    expect = [{"type": "a11y", "new_only": True, "max_violations": 0, "min_impact": "serious"}]
    return {"kind": "browser", "url": url, "expect": expect, **check}


def new_only_contract(
    port: int, check: dict[str, Any] | None = None, **fields: Any
) -> dict[str, Any]:
    """A contract whose one criterion accepts the page's known debt and refuses any new one."""
    return {
        "goal": "The sign-up page gains no new accessibility violation.",
        "task_type": "feature",
        "has_ui": True,
        "out_of_scope": ["the existing unlabelled email input"],
        "serve": serve_block(port),
        "functional": [
            {
                "criterion": "no accessibility violation the base did not have",
                "verification_method": "e2e",
                "check": check or new_only_check(),
            }
        ],
        **fields,
    }


def change_page(repo: Path, form: str, tail: str = "") -> None:
    """The generator's change to the page (left in the working tree, as a generator leaves it)."""
    (repo / "web" / "index.html").write_text(signup(form, tail), encoding="utf-8")
