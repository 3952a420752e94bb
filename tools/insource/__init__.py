"""Tests that live in source files (a Rust `#[cfg(test)]` module, an in-source vitest block),
spliced into the base's version of their file for a fail-before/pass-after run.

splice.py      the pure core: the base text with the current test blocks in place
ids.py         which test ids of a run belong to a spliced block
base_build.py  what a base build that failed says of the change's tests
plan.py        which changed files of an evaluation splice, read from the repository
"""

from referee.tools.insource.base_build import BaseBuild, read_base_build
from referee.tools.insource.ids import edited, holds, out_of_line
from referee.tools.insource.plan import spliced_sources
from referee.tools.insource.splice import Spliced, splice

__all__ = [
    "BaseBuild",
    "Spliced",
    "edited",
    "holds",
    "out_of_line",
    "read_base_build",
    "splice",
    "spliced_sources",
]
