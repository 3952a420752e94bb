"""Source perturbations for the anti-gaming test: same behaviour, different form (see tools/perturb.py)."""

from .comments import Unparsable, strip_parsed, strip_plain
from .names import rename_locals
from .python_source import perturb_python, reorder_imports, strip_docstrings

__all__ = ["Unparsable", "perturb_python", "rename_locals", "reorder_imports", "strip_docstrings", "strip_parsed",
           "strip_plain"]
