"""What each `ReasonCode` means and what to do about it (a test keeps this table and the enum
equal, so a new code cannot ship undocumented)."""

from __future__ import annotations

from referee.tools.meanings import Family, Meaning
from referee.tools.models.common import ReasonCode as R


def _pass(meaning: str, fix: str) -> Meaning:
    return Meaning(meaning, fix, status="pass")


def _fail(meaning: str, fix: str) -> Meaning:
    return Meaning(meaning, fix, status="fail")


def _unscored(meaning: str, fix: str) -> Meaning:
    return Meaning(meaning, fix, status="unscored")


def _either(meaning: str, fix: str) -> Meaning:
    return Meaning(meaning, fix, status="fail or unscored")


_RUN_AGAIN = "evaluate again."

REASONS: dict[R, Meaning] = {
    R.PASSED: _pass("The check passed.", "Nothing."),
    R.TESTS_FAILED: _fail(
        "A `tests` check ran and at least one test failed or errored; the reason names up to"
        " five of them.",
        "Fix the code (or the test, where the contract changes what it checks) and " + _RUN_AGAIN,
    ),
    R.NO_TESTS: _fail(
        "A `tests` check ran but no test passed, failed or errored (none collected, all"
        " skipped): zero tests never pass.",
        "Check the check's argv and cwd select the tests, and that they are not skipped.",
    ),
    R.EXIT_CODE: _fail(
        "A `command` check exited with another code than `expect_exit`, or a `tests` check's"
        " tests all passed but the runner exited non-zero (a coverage floor, a crash at exit).",
        "Read the command's output in the evidence; fix what made it exit so.",
    ),
    R.FINDINGS: _fail(
        "A `static` check's rule found more findings than its `max` allows (at task scope only"
        " the change's own findings count unless `baseline: include`).",
        "Fix the findings listed in the evidence.",
    ),
    R.EXPECTATION_FAILED: _fail(
        "A `browser` check ran, and a step or an expectation failed, or the check ran out of"
        " its `timeout_s`.",
        "Read the failed step or expectation in the reason (a trace and screenshot are kept);"
        " fix the app or the check.",
    ),
    R.PASSES_AT_BASE: _fail(
        "`must_fail_at_base`: the tests pass now and also on the base code, so they do not"
        " exercise the fix.",
        "Add a test that fails without the change and passes with it.",
    ),
    R.FAILS_NOW: _fail(
        "`must_fail_at_base`: the tests do not pass on the evaluated tree.",
        "Fix the code until the tests pass, then " + _RUN_AGAIN,
    ),
    R.COULD_NOT_START: _unscored(
        "The check's command (the test runner, the command) could not be started: the program"
        " is missing or not executable.",
        "Install the program, or fix the argv (`referee doctor` lists what is found).",
    ),
    R.TIMED_OUT: _unscored(
        "The check's command ran longer than its `timeout_s`; its process group was killed.",
        "Find what hangs, or raise the check's timeout_s.",
    ),
    R.NO_REPORT: _unscored(
        "The test runner ran but left no usable report of per-test outcomes: none was written,"
        " it could not be parsed, or parsing took too long.",
        "Read the runner's output in the evidence; name the report with the check's `junit`"
        " if the runner writes one elsewhere.",
    ),
    R.RUNNER_UNKNOWN: _unscored(
        "The command ran, but referee does not know how to read per-test outcomes from it; the"
        " reason says what would work.",
        "Call a supported runner directly, or write a JUnit XML report and name it with `junit`.",
    ),
    R.REPORT_TOO_LARGE: _unscored(
        "The test report is larger than the report limit (Settings.report_limit) and was not read.",
        "Run fewer tests per check, or raise the limit.",
    ),
    R.REPORT_OUTSIDE: _unscored(
        "The check's `junit` path, or the report found, leads outside the check's folder or the"
        " evaluated tree (a symlink, `..`); it was not read.",
        "Write the report inside the check's cwd, as a regular file.",
    ),
    R.CWD_OUTSIDE: _unscored(
        "The check's `cwd` lies outside the repository.",
        "Use a cwd relative to the repository, inside it.",
    ),
    R.SERVE_FAILED: _unscored(
        "The contract's `serve` app never became ready at its url within `ready_timeout_s`"
        " (or its cwd is outside the repository), so the browser checks could not run.",
        "Start the app by hand with serve.argv and check it answers at serve.url; raise"
        " ready_timeout_s if it is slow.",
    ),
    R.PORT_IN_USE: _unscored(
        "Outside a private sandbox network, `serve.url`'s port was already taken before the"
        " app started: the browser would have judged another server.",
        "Stop what listens on that port, or use another port.",
    ),
    R.SERVE_EXITED: _unscored(
        "The served app exited while the browser checks ran; the reason gives its exit code, its"
        " last line and its command. The checks that passed before stand; those it left are not"
        " run.",
        "Fix the crash shown in the serve evidence and " + _RUN_AGAIN,
    ),
    R.BROWSER_FAILED: _unscored(
        "The browser could not run the check: no Chromium, the browser crashed or disconnected,"
        " the URL was refused, or axe was unavailable for an a11y expectation.",
        "Install Chromium (`referee doctor`), or fix the URL the reason names.",
    ),
    R.NO_BASELINE: _unscored(
        "A `screenshot` expectation has no baseline yet, and nothing else in the check failed:"
        " the judge reads this run's image (kept as evidence). The delivered iteration's image"
        " becomes the baseline.",
        "Judge the image; or accept a run's image by hand with"
        " `referee baseline accept RUN CRITERION`.",
    ),
    R.NO_BASE: _unscored(
        "`must_fail_at_base`, or an `a11y` expectation with `new_only`, needs a base commit to"
        " compare with, and the contract has none.",
        "Create the contract in a git repository with a `base_commit`.",
    ),
    R.BASE_NOT_RUN: _unscored(
        "`must_fail_at_base`: the current tests could not run on the base code (or every test"
        " file failed to load there alike, or the new tests live in a source file), so nothing"
        " shows they fail without the change.",
        "Make the tests runnable at base (put new tests in a test file), or judge the fix by"
        " reading it.",
    ),
    R.NOT_RUN_AT_BASE: _fail(
        "`must_fail_at_base`: the tests passing now did not run at base and none failed there:"
        " nothing shows they fail without the change.",
        "Make a test that runs at base fail there (a new test in an existing file, say).",
    ),
    R.NEW_TESTS_SKIPPED: _fail(
        "`must_fail_at_base`: the change's own tests are skipped now (a skip mark, a focus"
        " elsewhere in their file), so they prove nothing.",
        "Remove the skip or the focus, or run them.",
    ),
    R.PIPELINE_FAILED: _unscored(
        "A `static` check could not be judged: the static pipeline did not run; the reason"
        " says why.",
        "Fix what the reason names (an unreadable file, a missing git) and " + _RUN_AGAIN,
    ),
    R.MANUAL: _unscored(
        "A manual criterion (`verification_method: manual`): only a judge can decide it.",
        "Judge it in the scorecard, with evidence.",
    ),
    R.HARNESS_FLIP: _fail(
        "The change modified the test harness, and with the base harness a test fails (or a"
        " hidden one reappears failing) that passes with the modified one: the harness, not the"
        " code, makes it pass.",
        "Revert the harness change the reason names, and fix the code.",
    ),
    R.HARNESS_UNVERIFIED: _unscored(
        "The tests pass with the modified harness, but with the base harness the suite could"
        " not be judged, so the pass rests on the modified harness alone.",
        "Judge the harness change from both runs' evidence.",
    ),
    R.FLAKY: _unscored(
        "With `repeat: N`, a test both passed and failed on the same tree.",
        "Make the named tests deterministic and " + _RUN_AGAIN,
    ),
    R.DIFF_COVERAGE_LOW: _either(
        "`min_diff_coverage`: the tests cover less of the change's lines than required (fail),"
        " or referee could not measure that command's coverage (unscored).",
        "Add tests for the uncovered lines the reason lists; for unscored, use a runner referee"
        " measures.",
    ),
    R.MUTATION_SCORE_LOW: _either(
        "`min_mutation_score`: too many mutants of the changed code survive the tests (fail),"
        " or no mutant could run to give a score (unscored).",
        "Add assertions that fail for the surviving mutants the reason lists.",
    ),
    R.BASE_TEST_FAILED: _fail(
        "A test the change edited passes in its edited form but fails in its base form on the"
        " new code: the edit hid broken behaviour (or only the edited copy of a failing test"
        " passes); or a test that passed at base is skipped now.",
        "Fix the code so the base test passes, or list the test in the check's"
        " `expected_changes` if the contract changes what it checks.",
    ),
    R.BASE_TESTS_NOT_RUN: _unscored(
        "The base's versions of the test files the change edited could not run on the new code,"
        " or did not run to their end (timed out, crashed, no test ran), so nothing shows the"
        " edits hide no failure.",
        "List the tests in `expected_changes` if the contract changes what they use, or make"
        " the base versions runnable.",
    ),
    R.A11Y_BASE_NOT_RUN: _unscored(
        "An `a11y` expectation with `new_only` could not be compared with the base: the base"
        " commit's app could not be served (no private network for it, it never became ready"
        " or exited), or at base the check's page was missing, a step failed or axe did not"
        " run; the reason says which. Nothing else in the check failed.",
        "Make the check's page and steps work on the base commit's app (or drop `new_only` and"
        " scope the known debt out with `exclude` or `disable_rules`).",
    ),
    R.RUNNER_BYPASSED: _unscored(
        "The test process did not end through the runner (os._exit, a signal), or test code"
        " wrote or rewrote the runner's report, or a Go or Rust test binary's own account (its"
        " completion mark, libtest's log) does not back the result lines it printed: the report"
        " cannot be trusted.",
        "Remove the code that ends the process or prints or writes the runner's results.",
    ),
    R.IMPORTED_ELSEWHERE: _unscored(
        "The tests passed, but imported the tree's own package from another place (an installed"
        " copy in site-packages, a PYTHONPATH entry outside the tree): they tested that copy, not"
        " the code in the tree.",
        "Run the tests with the project's environment (its virtualenv's python, an editable"
        " install), or point PYTHONPATH at the tree's source folder.",
    ),
    R.MEMORY_LIMIT: _unscored(
        "referee's watchdog killed the command (or the served app): it used more memory than"
        " the check's `memory_mb`.",
        "Find the leak, or raise the check's memory_mb.",
    ),
    R.SANDBOX_STOPPED: _unscored(
        "referee's watchdog killed the command: the sandbox's first process was stopped or"
        " traced (SIGSTOP, ptrace) by another process.",
        "Do not stop or trace the sandbox's processes.",
    ),
}

FAMILY = Family(
    key="reason",
    title="Reason codes",
    intro=(
        "The `reason_code` of each criterion in evaluate's result (the `reason` text says the"
        " same for people). `fail` is a verdict on the work; `unscored` means referee could not"
        " judge, and the criterion does not pass."
    ),
    codes={code.value: meaning for code, meaning in REASONS.items()},
)
