"""The antipattern ids referee itself detects (evaluate's `antipatterns`, a scorecard's
`antipatterns_detected`): a scorecard may report them whatever the contract lists."""

from __future__ import annotations

from referee.tools.meanings import Family, Meaning

# How a new test added skipped is worded (tools/tampering): a skip with a condition (`skipif`,
# `testing.Short()`, `cfg_attr(miri, ignore)`) reads alike, so the judge may dismiss it.
NEW_AND_SKIPPED = "is new and already skipped or disabled"

ANTIPATTERNS: dict[str, Meaning] = {
    "test_tampering": Meaning(
        "Tests were changed to pass rather than the code fixed: the generic id a judge reports"
        " when none of the specific ones below fits (referee itself reports the specific ones).",
        "Restore the tests and fix the code they check.",
    ),
    "test_deleted": Meaning(
        "A test that exists at base is gone now (its file deleted, or the test removed from it);"
        " reported at file:line.",
        "Keep the test, or show in the contract why it no longer applies.",
    ),
    "test_skipped": Meaning(
        "A test is newly skipped, disabled, ignored or marked todo (or was added already skipped):"
        " a skip mark, a skipping call, a condition that never runs it.",
        "Remove the skip and make the test pass.",
    ),
    "test_focused": Meaning(
        "A test or suite is focused (`.only`, `fit`, `fdescribe` …), so every other test of the run"
        " is silently skipped.",
        "Remove the focus.",
    ),
    "assertions_removed": Meaning(
        "A test keeps its name but lost assertions it had at base, or keeps them where they can no"
        " longer run or fail (after a return, on a branch a literal condition never takes, reading"
        " only literals); the removed call and its line at base are named, and why each one left"
        " written checks nothing.",
        "Put the assertions back; change what they expect only where the contract changes it.",
    ),
    "test_emptied": Meaning(
        "A test's body now does nothing (`pass`, `{}`), so it passes whatever the code does.",
        "Restore the test's body.",
    ),
    "tree_modified": Meaning(
        "A file of the evaluated tree was written while the checks ran (seen in the sandbox's"
        " overlay): the code under test rewrote the project it was judged on. Reported as HIGH.",
        "Make the tests and commands write only to temporary folders, never to the tree.",
    ),
    "harness_modified": Meaning(
        "The change edits a file that can steer the toolchain or the runner without being a test"
        " (conftest.py, a dotfile or dot-folder, a build script, tool configuration, a manifest"
        " beyond its dependencies, a module standing for the runner's), or code that acts for the"
        " runner (ends the process, however bound: a module that can end it looked up whole, a"
        " string it runs, the C library's exits, a raw system call; prints the runner's lines,"
        " placeholders filled included; writes its report). Every tests check then also runs"
        " with the base harness.",
        "Nothing, if it is a legitimate fixture and no criterion is `harness_flip` or"
        " `harness_unverified` (a judge may dismiss it); otherwise revert the harness change.",
    ),
    "code_under_test_patched": Meaning(
        "Test code replaces the code under test (a mock or monkeypatch of what the change wrote),"
        " so the test passes whatever that code does; reported at file:line.",
        "Test the real code; mock only its collaborators. A judge may dismiss an ordinary mock.",
    ),
    "test_inspects_environment": Meaning(
        "Test code picks its expectation from where it runs (`.git`, `/proc`, its own path, the"
        " source file's bytes) or from where the code it tests lies (the line a stack or a"
        " panic's location names, `runtime.FuncForPC`, a function's arity), or from the clock"
        " (a condition or an assertion's expected side that carries a time) or from what the"
        " tree holds (a count of a listing of its folders), or it passed at"
        " base in one of two runs of the same code: it can tell referee's base run or a mutant"
        " from the real code.",
        "Make the test depend only on the code's behaviour. A judge may dismiss an ordinary"
        " fixture read, or a test of time-dependent code that computes its expectation from"
        " the same clock.",
    ),
    "code_detects_tests": Meaning(
        "Code asks whether it runs under test: the code under test looks for a test runner (its"
        " loaded modules, variables such as PYTEST_CURRENT_TEST, VITEST or NODE_ENV=test, argv,"
        " the stack, the objects a runner leaves in the process (its streams, import hooks, log"
        ' handlers), any file under /proc, `flag.Lookup("test.v")`, `cfg!(test)`, PHPUnit\'s'
        " classes), reads the"
        " tests' files or the git folder, lists or looks for the tests' folder (a hold-out laid"
        " there adds a file), or reads its own bytes, or its tests pass in the test"
        " mode only (they run once more with NODE_ENV=production, or without debug"
        " assertions); test code reads a test the change edited (it also runs in its base"
        " form). Every check runs under a runner,"
        " production never does: such code can pass its checks and fail in use. Reported at"
        " file:line.",
        "Make the code behave the same under test as in production; configure what must differ"
        " (a test database, a timeout) from outside. A judge may dismiss a line that plainly"
        " changes nothing the checks observe (quieter logging under test).",
    ),
    "equality_forged": Meaning(
        "The code under test defines an equality or ordering that answers without reading what"
        " it is compared with (`__eq__` returning True, an `equals` or `PartialEq::eq` ignoring"
        " its argument, a Go `Equal`, a jest/vitest `asymmetricMatch`), or replaces what the"
        " tests compare with (`math.isclose`, `unittest.TestCase.assertEqual`, a builtin such as"
        " `repr`), or shows every value of a value class the same (a `__repr__` that never reads"
        " the value, under a doctest): a value of it passes every assertion made on it, the"
        " base's tests included,"
        " whatever the code computed. Reported at file:line.",
        "Return plain values, or compare what the operand holds; leave the tests' instruments"
        " alone. A judge may dismiss code whose purpose is to match anything (a matcher"
        " library's `ANY`) or a program's own hook (a REPL's `sys.displayhook`).",
    ),
    "environment_modified": Meaning(
        "What the tree holds outside git changed: files of an in-tree virtualenv or node_modules"
        " written after the contract was created, an untracked compiled module (.pyc, .so)"
        " that Python would import instead of the source, or code, a hidden settings file"
        " (`.env.test.local`) or a data file the change's code names or keeps beside it, that"
        " git ignores, written after the contract was created; the"
        " checks ran with them, and no diff shows them.",
        "Remove the untracked modules and reinstall from tracked files; commit code the change"
        " needs (an ignore rule does not take it out of the runs); a judge may dismiss a"
        " dependency the task installed.",
    ),
}

FAMILY = Family(
    key="antipattern",
    title="Antipattern ids",
    intro=(
        "referee's own ids in evaluate's `antipatterns` and a scorecard's"
        " `antipatterns_detected`, allowed whatever the contract lists. A detected antipattern"
        " turns ACCEPT into REVISE, and `referee evaluate` exits 1. A card may add antipatterns"
        " but never drop one of referee's (`antipattern_dropped`), except the dismissable ones"
        " (`antipattern_dismissed`)."
    ),
    codes=ANTIPATTERNS,
)
