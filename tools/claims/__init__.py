"""The generator's code read as claims: what its tests replace, what they inspect, and what
acts for the test runner.

model       the three kinds, a candidate finding (`Claim`), the code under test (`Scope`)
scope       the project's source files and the names a change wrote in them
detect      reads each changed code file now and at base, keeps what the change added
patterns    protocol lines, runner report names, telling paths, source paths (every language)
python      pyfile, pynames (imports, aliases, constant folding), pyscope, and the readers
            pypatch (b), pyenvironment (c), pyescape and pywrites (d)
javascript  jsnames (imports, process, folding) and the JS/TS readers
golang, rust, java, php   the other languages referee runs
"""

from referee.tools.claims.detect import claims_in, find_claims
from referee.tools.claims.model import (
    CODE_UNDER_TEST_PATCHED,
    HARNESS_MODIFIED,
    TEST_INSPECTS_ENVIRONMENT,
    Claim,
    Module,
    Scope,
)
from referee.tools.claims.scope import build_scope

__all__ = [
    "CODE_UNDER_TEST_PATCHED",
    "HARNESS_MODIFIED",
    "TEST_INSPECTS_ENVIRONMENT",
    "Claim",
    "Module",
    "Scope",
    "build_scope",
    "claims_in",
    "find_claims",
]
