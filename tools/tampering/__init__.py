"""Test tampering: tests deleted, skipped, focused, emptied or stripped of assertions since base.

detect      compares each changed test file with its base version
model       Tampering, the kinds, and the comparison shared by every ecosystem
python, javascript, golang, rust, java   what a test is in each ecosystem (tree-sitter, ast)
run         runs the comparison inside an evaluation and records it as evidence
"""

from referee.tools.tampering.detect import detect, is_test_file
from referee.tools.tampering.model import TREE_MODIFIED, Tampering
from referee.tools.tampering.run import run_tampering

__all__ = ["TREE_MODIFIED", "Tampering", "detect", "is_test_file", "run_tampering"]
