"""Mutants of the changed lines: small, plausible bugs a good test would notice.

Each mutant replaces one token or expression of one changed line, spliced into the original text
so every other line keeps its number and its bytes. The operator set is referee's own: the
mutation tools (mutmut, cosmic-ray, Stryker, go-mutesting, cargo-mutants, PIT, Infection) mutate
whole modules through their own runners and configuration, and none takes "these lines of this
diff" as input, while referee must run each mutant through the check's own command in its
sandbox.

spec      a mutant (one splice), the lines to make them on, the spread over those lines
python    Python files, with `ast`
syntax    JS/TS (TSX), Go, Rust, Java and PHP files, with tree-sitter
grammars  per language: the node types each operator acts on, what is never mutated
literals  the string and constant operators every language shares
returns   what a returned value becomes, per language and declared type
"""

from referee.tools.adequacy.mutants.grammars import grammar_for
from referee.tools.adequacy.mutants.python import generate_python
from referee.tools.adequacy.mutants.spec import Lines, MutantSpec, read_source, spread
from referee.tools.adequacy.mutants.syntax import generate_syntax

__all__ = ["Lines", "MutantSpec", "generate", "mutable", "read_source", "spread"]


def mutable(path: str) -> bool:
    """Whether referee makes mutants of a file of this language."""
    return path.endswith(".py") or grammar_for(path) is not None


def generate(path: str, source: bytes, lines: Lines) -> list[MutantSpec]:
    """Every mutation of the wanted lines of one file, in source order ([] for a language
    referee does not mutate, or a file that does not parse)."""
    if path.endswith(".py"):
        return generate_python(path, source, lines)
    grammar = grammar_for(path)
    return generate_syntax(grammar, path, source, lines) if grammar else []
