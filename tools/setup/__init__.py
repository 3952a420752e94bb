"""Getting started: `referee init` files and `referee demo` on a bundled sample project.

init_files    .mcp.json, the evaluator agent, the CI workflow, the capture hook
demo          the whole loop on demo_project/, no set-up beyond the install
demo_project  the sample shop the demo evaluates (package data)
"""

from referee.tools.setup.demo import run_demo
from referee.tools.setup.init import init_files, write_init_files

__all__ = ["init_files", "run_demo", "write_init_files"]
