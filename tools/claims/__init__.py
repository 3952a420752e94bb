"""The generator's code read as claims: what its tests replace, what they inspect, what acts for
the test runner, and where code asks whether it runs under test.

model       the four kinds, a candidate finding (`Claim`), the code under test (`Scope`)
scope       the project's source files and the names a change wrote in them
detect      reads each changed code file now and at base, keeps what the change added
patterns    protocol lines, runner report names, telling paths, source paths (every language)
python      pyfile, pynames (imports, aliases, constant folding), pyscope, and the readers
            pypatch (b), pyenvironment and pyvarying (c), pyescape and pywrites (d)
javascript  jsnames (imports, process, folding) and the JS/TS readers
golang, rust, java, php   the other languages referee runs
tells       what names a test runner or the tests' files, in any language
stacks, clocks   reads of where code lies and of the time, and the names bound from them
pysituation, tssituation (jssituation, gosituation, rustsituation, javasituation), phpsituation
            code that reads its situation for a tell (`code_detects_tests`)
equality    code under test whose equality ignores its operand (`equality_forged`)
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from referee.tools.claims.detect import claims_in, find_claims
    from referee.tools.claims.model import (
        CODE_DETECTS_TESTS,
        CODE_UNDER_TEST_PATCHED,
        EQUALITY_FORGED,
        HARNESS_MODIFIED,
        TEST_INSPECTS_ENVIRONMENT,
        Claim,
        Module,
        Scope,
    )
    from referee.tools.claims.scope import build_scope

# Loaded on first use: validation needs the kinds' names only, and the readers (every language's)
# cost a CLI start-up a fifth of a second.
_EXPORTS = {
    "claims_in": ".detect",
    "find_claims": ".detect",
    "CODE_DETECTS_TESTS": ".model",
    "CODE_UNDER_TEST_PATCHED": ".model",
    "EQUALITY_FORGED": ".model",
    "HARNESS_MODIFIED": ".model",
    "TEST_INSPECTS_ENVIRONMENT": ".model",
    "Claim": ".model",
    "Module": ".model",
    "Scope": ".model",
    "build_scope": ".scope",
}

__all__ = [
    "CODE_DETECTS_TESTS",
    "CODE_UNDER_TEST_PATCHED",
    "EQUALITY_FORGED",
    "HARNESS_MODIFIED",
    "TEST_INSPECTS_ENVIRONMENT",
    "Claim",
    "Module",
    "Scope",
    "build_scope",
    "claims_in",
    "find_claims",
]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name], __name__), name)
