"""Anti-gaming: a perturbed copy of the changed files, same behaviour, different form.

copy           build_perturbed_copy: the copy offered for re-scoring at depth `deep`
comments       comments and docstrings stripped (any language tree-sitter reads)
python_source  imports reordered, docstrings dropped, formatting removed (Python)
names          local names made generic
"""

from referee.tools.perturbation.comments import Unparsable, strip_parsed, strip_plain
from referee.tools.perturbation.copy import PerturbedCopy, build_perturbed_copy, copy_perturbed
from referee.tools.perturbation.names import rename_locals
from referee.tools.perturbation.python_source import (
    perturb_python,
    reorder_imports,
    strip_docstrings,
)

__all__ = [
    "PerturbedCopy",
    "Unparsable",
    "build_perturbed_copy",
    "copy_perturbed",
    "perturb_python",
    "rename_locals",
    "reorder_imports",
    "strip_docstrings",
    "strip_parsed",
    "strip_plain",
]
