"""Tests in source files at base: the splice keeps every byte of the base's code and moves only
the test blocks; a base build that fails outside the spliced module proves nothing."""

from __future__ import annotations

from referee.tools.graders.base import GradeResult
from referee.tools.graders.base_tests import as_moved
from referee.tools.graders.fail_to_pass import SuiteRun, judge_fail_to_pass
from referee.tools.insource import edited, holds, splice
from referee.tools.models.common import ReasonCode
from referee.tools.models.evidence import TestOutcome as Outcome
from referee.tools.static.paths import module_key, same_module_paths

CODE = "/// Adds.\npub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n"
FIXED = "/// Adds.\npub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n"
TESTS = (
    "\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n"
    "    #[test]\n    fn adds() {\n        assert_eq!(add(1, 1), 2);\n    }\n}\n"
)
HELPER = "\nfn helper() -> i32 {\n    1\n}\n"


def test_the_base_code_gets_the_current_test_module_and_nothing_of_the_fix() -> None:
    base = CODE + TESTS.replace("add(1, 1), 2", "add(0, 0), 0") + HELPER
    made = splice("src/lib.rs", base, FIXED + TESTS + HELPER)
    assert made is not None
    assert made.text == CODE + TESTS + HELPER
    assert made.changed_tests == ("tests::adds",) and made.modules == ("tests",)
    first, last = made.lines[0]
    assert made.text.splitlines()[first - 1] == "#[cfg(test)]"
    assert made.text.splitlines()[last - 1] == "}"
    assert made.docs_unchanged


def test_a_module_new_in_the_change_is_appended_and_one_it_deleted_removed() -> None:
    added = splice("src/lib.rs", CODE, FIXED + TESTS)
    assert added is not None and added.text == CODE + TESTS
    removed = splice("src/lib.rs", CODE + TESTS, FIXED)
    assert removed is not None and removed.text.rstrip() + "\n" == CODE and removed.modules == ()


def test_a_parse_error_outside_the_test_module_does_not_stop_the_splice() -> None:
    # An edition-2015 crate's `try!(…)` is an error to the 2018 grammar, far from its tests.
    old = "fn show() -> Result<(), ()> {\n    try!(Ok(()));\n    Ok(())\n}\n"
    made = splice("src/lib.rs", old + CODE, old + FIXED + TESTS)
    assert made is not None and made.text == old + CODE + TESTS


def test_a_parse_error_that_may_hide_a_test_module_stops_it() -> None:
    # An unclosed item before the module: the module may be read as part of the error.
    broken = "fn show( {\n" + TESTS
    assert splice("src/lib.rs", CODE + broken, FIXED + TESTS) is None
    assert splice("src/lib.rs", CODE + TESTS, FIXED + TESTS.replace("}\n}", "\n")) is None


def test_an_in_source_vitest_block_is_spliced_in_order() -> None:
    block = (
        "if (import.meta.vitest) {\n  const { it, expect } = import.meta.vitest\n"
        "  it('adds', () => expect(add(1, 1)).toBe(2))\n}\n"
    )
    base = "export const add = (a, b) => a - b\n\n" + block.replace("toBe(2)", "toBe(0)")
    made = splice("src/add.js", base, "export const add = (a, b) => a + b\n\n" + block)
    assert made is not None
    assert made.text == "export const add = (a, b) => a - b\n\n" + block
    assert holds("src/add.js", made, "src/add.js > adds")


def test_ids_follow_the_module_a_file_is_in_its_crate() -> None:
    made = splice("src/parse.rs", CODE + TESTS, FIXED + TESTS.replace("(1, 1), 2", "(2, 2), 4"))
    assert made is not None
    assert holds("src/parse.rs", made, "src/lib.rs::parse::tests::adds")
    assert edited("src/parse.rs", made, "src/lib.rs::parse::tests::adds")
    assert not holds("src/parse.rs", made, "src/lib.rs::tests::adds")
    assert not holds("src/parse.rs", made, "tests/cli.rs::parse::tests::adds")
    assert holds("src/parse.rs", made, "src/parse.rs - parse::add")  # docs unchanged


def test_a_file_whose_doc_comments_changed_keeps_its_doc_tests_uncompared() -> None:
    made = splice("src/lib.rs", CODE + TESTS, "/// Adds, now right.\n" + FIXED[10:] + TESTS)
    assert made is not None and not made.docs_unchanged
    assert not holds("src/lib.rs", made, "src/lib.rs - add")


def run(status: str, outcomes: list[tuple[str, str, str]]) -> SuiteRun:
    verdict = GradeResult(status=status, code=ReasonCode.PASSED, reason=f"{status} run")  # type: ignore[arg-type]
    return SuiteRun(verdict, [Outcome(name=n, outcome=o, message=m) for n, o, m in outcomes])  # type: ignore[arg-type]


NEW = TESTS.replace(
    "\n}\n", "\n\n    #[test]\n    fn negates() {\n        assert_eq!(negate(1), -1);\n    }\n}\n"
)
NOW = run(
    "pass",
    [("src/lib.rs::tests::adds", "passed", ""), ("src/lib.rs::tests::negates", "passed", "")],
)


def test_a_base_build_failing_in_the_spliced_module_fails_its_new_tests_only() -> None:
    made = splice("src/lib.rs", CODE + TESTS, FIXED + NEW)
    assert made is not None
    line = next(i for i, t in enumerate(made.text.splitlines(), 1) if "negate(1)" in t)
    error = f"does not compile: cannot find function `negate` at src/lib.rs:{line}:20"
    before = run("fail", [("src/lib.rs", "error", error)])
    grade = judge_fail_to_pass(NOW, before, [], ["src/lib.rs"], {"src/lib.rs": made})
    assert (grade.status, grade.code) == ("pass", ReasonCode.PASSED), grade.reason
    assert "at base and passes now: src/lib.rs::tests::negates (" in grade.reason
    assert "did not compile" in grade.reason


def test_a_base_build_failing_outside_the_spliced_module_leaves_the_criterion_unscored() -> None:
    made = splice("src/lib.rs", CODE + TESTS, FIXED + NEW)
    assert made is not None
    error = "does not compile: mismatched types at src/lib.rs:3:5"
    before = run("fail", [("src/lib.rs", "error", error)])
    grade = judge_fail_to_pass(NOW, before, [], ["src/lib.rs"], {"src/lib.rs": made})
    assert (grade.status, grade.code) == ("unscored", ReasonCode.BASE_NOT_RUN), grade.reason
    assert "outside that module (mismatched types at src/lib.rs:3:5)" in grade.reason
    assert "the splice cannot be made" in grade.reason


def test_an_out_of_line_test_module_is_a_test_file_not_its_crate_roots_source() -> None:
    """`#[cfg(test)] mod tests;` in src/lib.rs, the tests in src/tests.rs: libtest names them by
    the crate root, but they live in a test file the base run takes as it is now."""
    from referee.tools.insource import out_of_line
    from referee.tools.insource.ids import in_module_file

    name = "src/lib.rs::tests::test_chunk_text"
    files = ["src/tests.rs", "src/parse/tests.rs"]
    assert out_of_line("src/lib.rs", None, name, files)
    assert not out_of_line("src/lib.rs", None, name, [])  # an inline module, or no such file
    assert in_module_file("src/tests.rs", name)
    assert not in_module_file("src/parse.rs", name)
    assert in_module_file("src/parse/tests.rs", "src/lib.rs::parse::tests::reads")
    assert out_of_line("src/parse.rs", None, "src/lib.rs::parse::tests::reads", files)
    # The crate root's own functions, and a module that is no test file, stay the source's.
    assert not out_of_line("src/lib.rs", None, "src/lib.rs::adds", files)
    assert not out_of_line("src/lib.rs", None, "src/lib.rs::parse::reads", files)


DOCTESTED = (
    '"""Sums."""\n\n\ndef add(a, b):\n    """The sum.\n\n    >>> add(1, 2)\n    3\n    """\n'
    "    return a + b\n\n\nclass Calc:\n    def twice(self, a):\n        return 2 * a\n"
)


def test_a_docstrings_examples_splice_by_what_they_document() -> None:
    """The base's code keeps every byte but the docstrings whose examples changed; a method that
    gains an example gets the docstring put in, one that loses it an empty string."""
    now = (
        DOCTESTED.replace("a + b", "a - b")
        .replace("    3\n", "    -1\n")
        .replace(
            "        return 2 * a",
            '        """>>> Calc().twice(2)\n        4\n        """\n        return a * 2',
        )
    )
    made = splice("calc.py", DOCTESTED, now)
    assert made is not None
    assert "return a + b" in made.text and "return 2 * a" in made.text  # the base's code
    assert "    -1\n" in made.text and ">>> Calc().twice(2)" in made.text  # the change's examples
    assert len(made.lines) == 2
    back = splice("calc.py", now, DOCTESTED)
    assert back is not None
    assert "return a - b" in back.text and "    3\n" in back.text
    assert '        ""\n        return a * 2' in back.text  # the example the base did not have
    compile(made.text, "calc.py", "exec")
    compile(back.text, "calc.py", "exec")


def test_prose_edited_around_an_example_swaps_nothing() -> None:
    now = DOCTESTED.replace("The sum.", "Adds two numbers.").replace("a + b", "b + a")
    made = splice("calc.py", DOCTESTED, now)
    assert made is not None and made.text == DOCTESTED and made.lines == ()


def test_doctest_ids_are_the_files() -> None:
    made = splice("calc.py", DOCTESTED, DOCTESTED.replace("    3\n", "    4\n"))
    assert made is not None
    assert holds("calc.py", made, "calc.py::calc.add")
    assert not holds("calc.py", made, "tests/test_calc.py::test_add")


def test_a_name_defined_twice_keeps_the_examples_of_the_definition_that_has_them() -> None:
    """A property's setter after its documented getter, an `else` beside a documented `if`."""
    getter = (
        'class C:\n    @property\n    def x(self):\n        """>>> C().x\n        1\n'
        '        """\n        return 1\n\n    @x.setter\n    def x(self, value):\n        pass\n'
    )
    made = splice(
        "c.py", getter, getter.replace('        1\n        """', '        2\n        """')
    )
    assert made is not None and "        2\n" in made.text
    branches = (
        "import sys\n\nif sys.version_info >= (3, 9):\n    def f():\n"
        '        """>>> f()\n        1\n        """\n        return 1\nelse:\n'
        "    def f():\n        return 1\n"
    )
    made = splice(
        "f.py", branches, branches.replace('        1\n        """', '        2\n        """')
    )
    assert made is not None and "        2\n" in made.text


def test_a_module_is_the_same_module_at_its_other_paths() -> None:
    assert module_key("calc.py") == module_key("calc/__init__.py") == "py:calc"
    assert module_key("pkg/calc.py") == module_key("pkg/calc/__init__.py")
    assert module_key("src/ops.rs") == module_key("src/ops/mod.rs")
    assert module_key("src/util.js") == module_key("src/util.ts") == module_key("src/util/index.ts")
    assert module_key("calc.py") != module_key("calc2.py")
    assert module_key("pkg/__init__.py") != module_key("pkg/calc/__init__.py")
    assert module_key("README.md") is None
    assert same_module_paths("calc.py") == [
        "src/calc.py",
        "calc/__init__.py",
        "src/calc/__init__.py",
    ]
    assert module_key("src/pkg/calc.py") == module_key("pkg/calc/__init__.py")
    assert same_module_paths("src/ops/mod.rs") == ["src/ops.rs"]
    assert "src/util/index.ts" in same_module_paths("src/util.mjs")


def test_a_test_name_under_a_moved_module_is_the_same_test() -> None:
    def run(*names: str) -> SuiteRun:
        outcomes = [Outcome(name=n, outcome="passed") for n in names]
        return SuiteRun(GradeResult("pass", ReasonCode.PASSED, "ok", []), outcomes)

    moved = (("calc/__init__.py", "calc.py"),)
    names = [t.name for t in as_moved(run("calc::calc.add", "tests.test_x::t"), moved).outcomes]
    assert names == ["calc.__init__::calc.add", "tests.test_x::t"]
    back = (("calc.py", "calc/__init__.py"),)
    assert [t.name for t in as_moved(run("calc.__init__::calc.add"), back).outcomes] == [
        "calc::calc.add"
    ]
    # A module whose name only begins like the moved one's is another module.
    assert [t.name for t in as_moved(run("calculus::f", "calc.py::g"), moved).outcomes] == [
        "calculus::f",
        "calc/__init__.py::g",
    ]
    vitest = (("src/calc/index.js", "src/calc.js"),)
    assert (
        as_moved(run("src/calc.js > adds"), vitest).outcomes[0].name == "src/calc/index.js > adds"
    )
