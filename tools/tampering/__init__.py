"""Test tampering: tests deleted, skipped, emptied or stripped of assertions since base.

detect  compares each changed test file with its base version, per ecosystem
run     runs the comparison inside an evaluation and records it as evidence
"""

from referee.tools.tampering.detect import TREE_MODIFIED, Tampering, detect, is_test_file
from referee.tools.tampering.run import run_tampering

__all__ = ["TREE_MODIFIED", "Tampering", "detect", "is_test_file", "run_tampering"]
