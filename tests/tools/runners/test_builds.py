"""A run that stopped at the build, as each toolchain prints it (outputs copied from real runs):
the compiler's first error is the reason, its paths relative to the tree; a test that prints the
same words while it runs is no build failure."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.tools.models.evidence import TestOutcome as Outcome
from referee.tools.runners.builds import build_failure, got_to_tests
from referee.tools.runners.rust_cargo import BUILD_ERROR

TREE = Path("/work/shop")

GO_STDOUT = "FAIL\texample.com/shop/shop [build failed]\nFAIL\n"
GO_JSON = (
    '{"Action":"output","Package":"example.com/shop",'
    '"Output":"FAIL\\texample.com/shop [build failed]\\n"}\n'
)
GO_STDERR = (
    "# example.com/shop/shop [example.com/shop/shop.test]\n"
    "shop/price.go:15:22: invalid operation: division by zero\n"
)
# Under -coverprofile go compiles the cover tool's rewrite of the file: no columns.
GO_COVERED = GO_STDERR.replace(":15:22:", ":15:")
CARGO_STDERR = (
    "   Compiling shop v0.1.0 (/work/shop)\n"
    "error: this operation will panic at runtime\n"
    " --> src/lib.rs:8:24\n  |\n8 |         return total - total / 0;\n"
    "error: could not compile `shop` (lib test) due to 1 previous error\n"
)
MAVEN_STDOUT = (
    "[INFO] Compiling 1 source file to /work/shop/target/classes\n"
    "[ERROR] COMPILATION ERROR : \n[INFO] ------------------------------------------------------\n"
    "[ERROR] /work/shop/src/main/java/shop/Cart.java:[22,13] duplicate case label\n"
    "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.10.1:compile\n"
)
GRADLE_STDERR = (
    "/work/shop/src/main/java/demo/Calc.java:2: error: duplicate case label\n"
    "1 error\n\nFAILURE: Build failed with an exception.\n\n* What went wrong:\n"
    "Execution failed for task ':compileJava'.\n> Compilation failed; see the compiler error\n"
)
TSC_STDOUT = "src/cart.ts(8,5): error TS2322: Type 'string' is not assignable to type 'number'.\n"


def logs(tmp_path: Path, stdout: str, stderr: str = "") -> list[Path]:
    out, err = tmp_path / "out", tmp_path / "err"
    out.write_text(stdout, encoding="utf-8")
    err.write_text(stderr, encoding="utf-8")
    return [out, err]


@pytest.mark.parametrize(
    ("stdout", "stderr", "said"),
    [
        (GO_STDOUT, GO_STDERR, "shop/price.go:15:22: invalid operation: division by zero"),
        (GO_JSON, GO_STDERR, "shop/price.go:15:22: invalid operation: division by zero"),
        (GO_STDOUT, GO_COVERED, "shop/price.go:15: invalid operation: division by zero"),
        ("", CARGO_STDERR, "error: this operation will panic at runtime at src/lib.rs:8:24"),
        (MAVEN_STDOUT, "", "src/main/java/shop/Cart.java:[22,13] duplicate case label"),
        ("", GRADLE_STDERR, "src/main/java/demo/Calc.java:2: error: duplicate case label"),
        (TSC_STDOUT, "", "src/cart.ts(8,5): error TS2322: Type 'string' is not assignable"),
    ],
    ids=["go", "go-json", "go-coverprofile", "cargo", "maven", "gradle", "tsc"],
)
def test_each_toolchains_build_failure_names_its_first_error(
    tmp_path: Path, stdout: str, stderr: str, said: str
) -> None:
    found = build_failure([], logs(tmp_path, stdout, stderr), TREE)
    assert found is not None and found.startswith(f"did not compile: {said}"), found


def test_cargos_build_errors_as_the_runner_read_them(tmp_path: Path) -> None:
    error = Outcome(
        name="src/lib.rs",
        outcome="error",
        message=BUILD_ERROR + "cannot find function `negate` at src/lib.rs:26:20",
    )
    found = build_failure([error], logs(tmp_path, ""), TREE)
    assert found == "did not compile: cannot find function `negate` at src/lib.rs:26:20"


@pytest.mark.parametrize(
    "printed",
    [
        "--- FAIL: TestX (0.00s)\n    x_test.go:9: want FAIL\tpkg [build failed]\n",
        "thread 'tests::t' panicked at src/lib.rs:8:24:\nattempt to divide by zero\n",
        "Tests run: 1, Failures: 1\n[ERROR] Failures: \n[ERROR]   CartTest.pins:9 expected:<90>\n",
        "AssertionError: the log said error: could not compile it\n",
    ],
)
def test_a_failing_test_is_no_build_failure(tmp_path: Path, printed: str) -> None:
    failed = Outcome(name="t", outcome="failed", message=printed)
    assert build_failure([failed], logs(tmp_path, printed), TREE) is None


@pytest.mark.parametrize(
    ("runner", "printed", "started"),
    [
        ("cargo test", "   Compiling shop v0.1.0 (/work/shop)\n", False),
        ("cargo test", "   Compiling shop\n     Running unittests src/lib.rs (target/x)\n", True),
        ("go test", "", False),
        ("go test", '{"Action":"run","Package":"example.com/shop","Test":"TestX"}\n', True),
        ("maven", "[INFO] Compiling 1 source file to /work/shop/target/classes\n", False),
        ("maven", "[INFO]  T E S T S\n[INFO] Running shop.CartTest\n", True),
        ("pytest", "", None),
    ],
)
def test_a_run_stopped_before_its_got_to_tests_is_told_apart(
    tmp_path: Path, runner: str, printed: str, started: bool | None
) -> None:
    assert got_to_tests(runner, logs(tmp_path, printed, printed)) is started
