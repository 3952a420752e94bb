"""Getting started: `referee init` files and `referee demo` on a bundled sample project.

init_files    .mcp.json, the evaluator agent, the loop command, the CI workflow, the capture hook
demo          the whole loop on demo_project/, no set-up beyond the install
demo_project  the sample shop the demo evaluates (package data)

`run_demo` is imported on first use: the CLI reads `init_files` to describe `referee init`, and
that must not import the whole evaluation stack.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from referee.tools.setup.init import init_files, write_init_files

if TYPE_CHECKING:
    from referee.tools.setup.demo import run_demo

__all__ = ["init_files", "run_demo", "write_init_files"]


def __getattr__(name: str) -> Any:
    if name == "run_demo":
        return import_module("referee.tools.setup.demo").run_demo
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
