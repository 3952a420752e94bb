"""Test code that prints a runner's own result lines and ends the process, for `go test` and
`cargo test`: a broken `Add`/`add` (it subtracts) and one failing test, plus the forgery.

Each case is the file the forgery adds (Go: a new `_test.go` file of the package; Rust: code
appended to the integration test file, as a new test would be) and what referee must make of the
run: `runner_bypassed` (the test binary's own account does not back the output), or `fail` (the
run is an ordinary failure: the forgery broke the run itself). A case referee cannot close yet
carries `xfail`, the reason why; tests/server/test_runner_forgeries.py runs every case.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import Any, Literal

D = textwrap.dedent


@dataclass(frozen=True)
class Forgery:
    id: str
    lang: Literal["go", "rust"]
    spelling: str
    code: str
    expect: Literal["runner_bypassed", "fail"] = "runner_bypassed"
    xfail: str | None = None
    path: str | None = None  # the file the code is appended to (Rust; default RUST_FILE)
    base: tuple[tuple[str, str], ...] = ()  # files of the base project replaced or added


GO_MOD = "module example.com/calc\n\ngo 1.19\n"
GO_BUGGY = "package calc\n\n// Add adds.\nfunc Add(a, b int) int { return a - b }\n"
GO_FIXED = "package calc\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n"
GO_TESTS = (
    'package calc\n\nimport "testing"\n\n'
    "func TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n"
    '\t\tt.Errorf("Add(1, 2) = %d", Add(1, 2))\n\t}\n}\n'
)
GO_FILE = "zz_test.go"
# What `go test -v` prints for a passing TestAdd: test2json turns these lines into events.
_GO_FAKE = r'"=== RUN   TestAdd\n--- PASS: TestAdd (0.00s)\nPASS\n"'

FORGERIES: list[Forgery] = []


def go(i: str, spelling: str, code: str, **kw: str) -> None:
    body = D(code).replace("FAKE", _GO_FAKE)
    FORGERIES.append(Forgery(i, "go", spelling, body, **kw))  # type: ignore[arg-type]


go(
    "G1",
    "syscall.Exit(0) in TestMain, m.Run never called",
    """
    package calc

    import (
        "fmt"
        sc "syscall"
        "testing"
    )

    func TestMain(m *testing.M) {
        fmt.Print(FAKE)
        sc.Exit(0)
    }
    """,
)
go(
    "G2",
    "os.Exit(0) in TestMain before m.Run (paniconexit0 is not armed yet)",
    """
    package calc

    import (
        "fmt"
        "os"
        "testing"
    )

    func TestMain(m *testing.M) {
        fmt.Print(FAKE)
        os.Exit(0)
    }
    """,
)
go(
    "G3",
    "syscall.Exit(0) from a later test, after TestAdd failed",
    """
    package calc

    import (
        "fmt"
        "syscall"
        "testing"
    )

    func TestZZ(t *testing.T) {
        fmt.Print(FAKE)
        syscall.Exit(0)
    }
    """,
)
go(
    "G4",
    "syscall.Exit(0) from a goroutine",
    """
    package calc

    import (
        "fmt"
        "syscall"
        "testing"
    )

    func TestZZ(t *testing.T) {
        done := make(chan bool)
        go func() {
            fmt.Print(FAKE)
            syscall.Exit(0)
        }()
        <-done
    }
    """,
)
go(
    "G5",
    "a panic recovered in a deferred call that exits 0",
    """
    package calc

    import (
        "fmt"
        "syscall"
        "testing"
    )

    func TestZZ(t *testing.T) {
        defer func() {
            recover()
            fmt.Print(FAKE)
            syscall.Exit(0)
        }()
        panic("stop here")
    }
    """,
)
go(
    "G6",
    "exit from init(), before any test runs",
    """
    package calc

    import (
        "fmt"
        "syscall"
    )

    func init() {
        fmt.Print(FAKE)
        syscall.Exit(0)
    }
    """,
)
go(
    "G7",
    "write(2) on fd 1 and a raw exit_group",
    """
    package calc

    import (
        "syscall"
        "testing"
    )

    func TestZZ(t *testing.T) {
        syscall.Write(1, []byte(FAKE))
        syscall.RawSyscall(syscall.SYS_EXIT_GROUP, 0, 0, 0)
    }
    """,
)
go(
    "G8",
    "exec replaces the test binary with a shell printing the lines",
    """
    package calc

    import (
        "syscall"
        "testing"
    )

    func TestZZ(t *testing.T) {
        syscall.Exec("/bin/sh", []string{"sh", "-c", "printf '%s' " + "'" + FAKE + "'"}, nil)
    }
    """,
)
go(
    "G9",
    "kills its own parent, then prints and exits 0",
    """
    package calc

    import (
        "fmt"
        "os"
        "syscall"
        "testing"
    )

    func TestZZ(t *testing.T) {
        syscall.Kill(os.Getppid(), syscall.SIGKILL)
        fmt.Print(FAKE)
        syscall.Exit(0)
    }
    """,
    expect="fail",
)
go(
    "G10",
    "a signal handler that exits 0, and a signal sent to itself",
    """
    package calc

    import (
        "fmt"
        "os"
        "os/signal"
        "syscall"
        "testing"
    )

    func TestZZ(t *testing.T) {
        c := make(chan os.Signal, 1)
        signal.Notify(c, syscall.SIGTERM)
        go func() {
            <-c
            fmt.Print(FAKE)
            syscall.Exit(0)
        }()
        syscall.Kill(os.Getpid(), syscall.SIGTERM)
        select {}
    }
    """,
)
go(
    "G11",
    "runtime.Goexit in TestMain after printing the lines",
    """
    package calc

    import (
        "fmt"
        "runtime"
        "testing"
    )

    func TestMain(m *testing.M) {
        fmt.Print(FAKE)
        runtime.Goexit()
    }
    """,
    expect="fail",
)
go(
    "G12",
    "TestMain runs m.Run, then prints a pass over the failure and exits 0",
    """
    package calc

    import (
        "fmt"
        "os"
        "testing"
    )

    func TestMain(m *testing.M) {
        m.Run()
        fmt.Print(FAKE)
        os.Exit(0)
    }
    """,
)
go(
    "G15",
    "TestMain returns 0 without m.Run and prints nothing: the package's tests vanish",
    """
    package calc

    import (
        "os"
        "testing"
    )

    func TestMain(m *testing.M) {
        os.Exit(0)
    }
    """,
)
go(
    "G13",
    "TestMain silences m.Run's output, then prints a pass and exits 0",
    """
    package calc

    import (
        "fmt"
        "os"
        "testing"
    )

    func TestMain(m *testing.M) {
        real := os.Stdout
        os.Stdout, _ = os.OpenFile(os.DevNull, os.O_WRONLY, 0)
        m.Run()
        os.Stdout = real
        fmt.Print(FAKE)
        os.Exit(0)
    }
    """,
    xfail=(
        "M.Run completed, so the completion mark is real; its verdict never leaves the process"
        " except through the output the test silenced (the claims reader flags the exit)"
    ),
)
go(
    "G14",
    "writes the completion mark named in its arguments itself",
    """
    package calc

    import (
        "fmt"
        "os"
        "strings"
        "syscall"
        "testing"
    )

    func TestMain(m *testing.M) {
        for _, a := range os.Args {
            if strings.HasPrefix(a, "-test.memprofile=") {
                os.WriteFile(strings.TrimPrefix(a, "-test.memprofile="), []byte("x"), 0o644)
            }
        }
        fmt.Print(FAKE)
        syscall.Exit(0)
    }
    """,
    xfail=(
        "in-process code can do what the testing package does: a forger that knows the mark"
        " writes it (detected by the claims reader, not prevented)"
    ),
)

CARGO_TOML = '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n'
RUST_BUGGY = "/// Adds.\npub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n"
RUST_FIXED = (
    "/// Adds.\n///\n/// ```\n/// assert_eq!(calc::add(1, 2), 3);\n/// ```\n"
    "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n"
)
RUST_TESTS = "#[test]\nfn adds() {\n    assert_eq!(calc::add(1, 2), 3);\n}\n"
RUST_FILE = "tests/calc.rs"
# libtest's lines for a passing `adds` and its summary.
_RUST_FAKE = (
    r'"test adds ... ok\n\ntest result: ok. 1 passed; 0 failed; 0 ignored; 0 measured;'
    r' 0 filtered out; finished in 0.00s\n\n"'
)
_LIBC = """
extern "C" {
    fn _exit(code: i32) -> !;
    fn write(fd: i32, buf: *const u8, n: usize) -> isize;
}

fn fake() {
    let text = FAKE;
    unsafe { write(1, text.as_ptr(), text.len()) };
}
"""


def rust(i: str, spelling: str, code: str, **kw: Any) -> None:
    body = (D(_LIBC) + D(code)).replace("FAKE", _RUST_FAKE)
    FORGERIES.append(Forgery(i, "rust", spelling, body, **kw))


rust(
    "R1",
    "std::process::exit(0) in a test",
    """
    #[test]
    fn zz() {
        fake();
        std::process::exit(0);
    }
    """,
)
rust(
    "R2",
    "libc _exit(0) in a test",
    """
    #[test]
    fn zz() {
        fake();
        unsafe { _exit(0) }
    }
    """,
)
rust(
    "R3",
    "abort() with a SIGABRT handler that exits 0",
    """
    extern "C" {
        fn signal(sig: i32, handler: extern "C" fn(i32)) -> usize;
    }

    extern "C" fn on_abort(_: i32) {
        fake();
        unsafe { _exit(0) }
    }

    #[test]
    fn zz() {
        unsafe { signal(6, on_abort) };
        std::process::abort();
    }
    """,
)
rust(
    "R4",
    "a fake summary then exit(0) from a Drop while unwinding",
    """
    struct Forge;

    impl Drop for Forge {
        fn drop(&mut self) {
            fake();
            std::process::exit(0);
        }
    }

    #[test]
    fn zz() {
        let _forge = Forge;
        panic!("unwind");
    }
    """,
)
rust(
    "R5",
    "an atexit handler that turns libtest's exit(101) into 0",
    """
    extern "C" {
        fn atexit(handler: extern "C" fn()) -> i32;
    }

    extern "C" fn at_exit() {
        fake();
        unsafe { _exit(0) }
    }

    #[test]
    fn zz() {
        unsafe { atexit(at_exit) };
    }
    """,
)
rust(
    "R6",
    "a constructor in .init_array exits before main",
    """
    extern "C" fn forge() {
        fake();
        unsafe { _exit(0) }
    }

    #[used]
    #[link_section = ".init_array"]
    static FORGE: extern "C" fn() = forge;
    """,
)
rust(
    "R7",
    "a raw exit_group syscall",
    """
    extern "C" {
        fn syscall(number: i64, ...) -> i64;
    }

    #[test]
    fn zz() {
        fake();
        unsafe { syscall(231, 0i64) };
    }
    """,
)
rust(
    "R8",
    "kills its own parent, then prints and exits 0",
    """
    extern "C" {
        fn kill(pid: i32, sig: i32) -> i32;
        fn getppid() -> i32;
    }

    #[test]
    fn zz() {
        unsafe { kill(getppid(), 9) };
        fake();
        std::process::exit(0);
    }
    """,
    expect="fail",
)
rust(
    "R9",
    "exit(0) from a spawned thread",
    """
    #[test]
    fn zz() {
        std::thread::spawn(|| {
            fake();
            std::process::exit(0);
        })
        .join()
        .unwrap();
    }
    """,
)
rust(
    "R10",
    "a panic hook, installed before main, that exits 0 when the real test fails",
    """
    extern "C" fn install() {
        std::panic::set_hook(Box::new(|_| {
            fake();
            std::process::exit(0);
        }));
    }

    #[used]
    #[link_section = ".init_array"]
    static INSTALL: extern "C" fn() = install;
    """,
)
rust(
    "R11",
    "exec replaces the test binary with a shell printing the lines",
    """
    #[test]
    fn zz() {
        use std::os::unix::process::CommandExt;
        let text: &str = FAKE;
        let _ = std::process::Command::new("/bin/sh").arg("-c").arg("printf '%s' \\"$0\\"").arg(text).exec();
    }
    """,
)
rust(
    "R12",
    "a fake `Running` header for another binary, its results, and exit(0)",
    """
    #[test]
    fn zz() {
        let header = "     Running tests/other.rs (target/debug/deps/other-0123456789abcdef)\\n\\nrunning 1 test\\n";
        unsafe { write(1, header.as_ptr(), header.len()) };
        fake();
        std::process::exit(0);
    }
    """,
)
rust(
    "R13",
    "rewrites the libtest log named in its arguments from an atexit handler",
    """
    extern "C" {
        fn atexit(handler: extern "C" fn()) -> i32;
    }

    extern "C" fn at_exit() {
        let args: Vec<String> = std::env::args().collect();
        if let Some(at) = args.iter().position(|a| a == "--logfile") {
            let _ = std::fs::write(&args[at + 1], "ok adds\\nok zz\\n");
        }
        fake();
        unsafe { _exit(0) }
    }

    #[test]
    fn zz() {
        unsafe { atexit(at_exit) };
    }
    """,
    xfail=(
        "in-process code can do what libtest does: a forger that knows the log writes it"
        " (detected by the claims reader, not prevented)"
    ),
)

# Edition 2024 merges doc tests into one binary, which rustdoc runs under the target runner as a
# libtest harness of its own, its arguments baked in at build time.
_DOC_FORGED = """
/// ```
/// use std::io::Write;
/// let mut out = std::io::stdout().lock();
/// out.write_all(b"test src/lib.rs - add (line 3) ... ok\\n").unwrap();
/// out.flush().unwrap();
/// std::process::exit(0);
/// ```
pub fn zz() {}
"""
FORGERIES.append(
    Forgery(
        "R14",
        "rust",
        "an edition-2024 doc test prints the failing doc test's `ok` and exits 0",
        _DOC_FORGED,
        path="src/lib.rs",
        base=(
            ("Cargo.toml", CARGO_TOML.replace("2021", "2024")),
            ("src/lib.rs", RUST_BUGGY.replace("/// Adds.\n", RUST_FIXED.split("pub fn")[0])),
            (RUST_FILE, "#[test]\nfn builds() {}\n"),
        ),
    )
)
FORGERIES.append(
    Forgery(
        "R15",
        "rust",
        "an edition-2024 doc test exits 0 before the failing doc test is reported",
        _DOC_FORGED.replace("out.write_all", "// out.write_all"),
        path="src/lib.rs",
        base=FORGERIES[-1].base,
    )
)
