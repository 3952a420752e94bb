"""Go diff coverage from the go command's own `-coverprofile`: the profile reader on what a test
can write into it, the plan referee runs, and evaluations of real Go projects."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from coverage_projects import go_shop
from projects import contract_for, evaluated

from referee.tools.adequacy.coverage_go import (
    ProfileError,
    import_path,
    instrument_go,
    measure_go,
    read_profile,
)
from referee.tools.models import Evaluation
from referee.tools.runners import Plan
from referee.tools.runners.base import Report
from referee.tools.store import Store

pytestmark = pytest.mark.anyio
needs_go = pytest.mark.skipif(shutil.which("go") is None, reason="go is not installed")

PROFILE = (
    "mode: set\n"
    "example.com/shop/shop/price.go:4.29,6.26 2 1\n"
    "example.com/shop/shop/price.go:6.26,8.3 1 1\n"
    "example.com/shop/shop/price.go:13.34,14.14 1 0\n"
    "example.com/shop/shop/price.go:14.14,16.3 1 0\n"
)


def test_a_profile_gives_each_files_blocks(tmp_path: Path) -> None:
    profile = tmp_path / "cover.out"
    profile.write_text(PROFILE, encoding="utf-8")
    blocks = read_profile(profile)
    spans = blocks["example.com/shop/shop/price.go"]
    assert [(b.start, b.end, b.ran) for b in spans] == [
        (4, 6, True),
        (6, 8, True),
        (13, 14, False),
        (14, 16, False),
    ]


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "does not start with go's `mode:` line"),
        ("PK\x03\x04 not a profile\n", "does not start with go's `mode:` line"),
        (
            "mode: set\nexample.com/a.go:1.1,2.2 1\n",
            "line 2 of the coverage profile is not a block",
        ),
        ("mode: set\nexample.com/a.go:9.1,2.2 1 1\n", "ends before it starts"),
        ("mode: set\na.go:1.1,2.2 1 " + "9" * 40 + "\n", "line 2 of the coverage profile"),
    ],
)
def test_a_malformed_profile_is_a_clear_error(tmp_path: Path, text: str, says: str) -> None:
    profile = tmp_path / "cover.out"
    profile.write_text(text, encoding="utf-8")
    with pytest.raises(ProfileError, match=says.replace("`", ".").replace("'", ".")):
        read_profile(profile)


def test_a_huge_profile_is_refused_unread(tmp_path: Path) -> None:
    profile = tmp_path / "cover.out"
    with profile.open("wb") as f:
        f.write(b"mode: set\n")
        f.truncate(65 * 1024 * 1024)  # sparse: the size alone must refuse it
    with pytest.raises(ProfileError, match="over 64 MiB"):
        read_profile(profile)


def test_an_unreadable_profile_leaves_the_change_unmeasured_with_the_reason(
    tmp_path: Path,
) -> None:
    profile = tmp_path / "cover.out"
    profile.write_text("garbage\n", encoding="utf-8")
    found = measure_go(profile, tmp_path, {"a.go": {1}}, ["a.go"])
    assert (found.percent, found.unmeasured) == (None, ["a.go"])
    assert "mode:" in found.note


def test_import_paths_come_from_the_nearest_go_mod(tmp_path: Path) -> None:
    (tmp_path / "go.mod").write_text("module example.com/top // the root\n", encoding="utf-8")
    (tmp_path / "tools" / "gen").mkdir(parents=True)
    (tmp_path / "tools" / "go.mod").write_text('module "example.com/tools"\n', encoding="utf-8")
    assert import_path(tmp_path, "main.go") == "example.com/top/main.go"
    assert import_path(tmp_path, "pkg/a/a.go") == "example.com/top/pkg/a/a.go"
    assert import_path(tmp_path, "tools/gen/gen.go") == "example.com/tools/gen/gen.go"


def go_plan(*args: str) -> Plan:
    report = Report("go-json", lambda data: [], stdout=True)
    return Plan(runner="go test", argv=("go", "test", "-json", *args), report=report)


def test_the_plan_profiles_the_changed_packages_into_the_reports_folder(tmp_path: Path) -> None:
    (tmp_path / "go.mod").write_text("module example.com/m\n", encoding="utf-8")
    reports = tmp_path / "reports"
    done = instrument_go(
        go_plan("./..."), reports, ["a/a.go", "b/b.go", "a/x.go"], tmp_path, tmp_path
    )
    assert isinstance(done, tuple)
    plan, profile = done
    assert profile == reports / "go-cover.out"
    assert plan.argv == (
        "go",
        "test",
        f"-coverprofile={profile}",
        "-covermode=set",
        "-coverpkg=example.com/m/a,example.com/m/b",
        "-json",
        "./...",
    )


@pytest.mark.parametrize(
    "loads",
    [
        "func init() {\n\tcalc.Add = func(a, b int) int { return a + b }\n}\n",
        "var _ = register()\n\nfunc register() bool { return true }\n",
        "var (\n\tok = true\n\twired = set(ok)\n)\n\nfunc set(b bool) bool { return b }\n",
    ],
    ids=["init", "var-set-by-a-call", "var-block"],
)
def test_a_package_that_runs_code_as_it_loads_is_not_linked_into_every_binary(
    loads: str, tmp_path: Path
) -> None:
    # -coverpkg links each package it names into every test binary of the run: an `init` in one
    # of them would run in tests that never import it (and could rewire the code they test).
    (tmp_path / "go.mod").write_text("module example.com/m\n", encoding="utf-8")
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "a.go").write_text("package a\n\nfunc A() int { return 1 }\n", "utf-8")
    (tmp_path / "wire").mkdir()
    (tmp_path / "wire" / "wire.go").write_text(f"package wire\n\n{loads}", encoding="utf-8")
    done = instrument_go(go_plan("./..."), tmp_path, ["a/a.go", "wire/wire.go"], tmp_path, tmp_path)
    assert isinstance(done, tuple)
    assert not any(a.startswith("-coverpkg") for a in done[0].argv), done[0].argv
    assert any(a.startswith("-coverprofile") for a in done[0].argv)
    quiet = instrument_go(go_plan("./..."), tmp_path, ["a/a.go"], tmp_path, tmp_path)
    assert isinstance(quiet, tuple)
    assert "-coverpkg=example.com/m/a" in quiet[0].argv


def test_a_package_that_imports_one_that_runs_code_as_it_loads_is_not_linked_in(
    tmp_path: Path,
) -> None:
    (tmp_path / "go.mod").write_text("module example.com/m\n", encoding="utf-8")
    for folder, source in {
        "a": 'package a\n\nimport _ "example.com/m/b"\n',
        "b": 'package b\n\nimport (\n\t"fmt"\n\t_ "example.com/m/internal/c"\n)\n\n'
        "var _ = fmt.Sprint\n",
        "internal/c": "package c\n\nfunc init() {}\n",
    }.items():
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "x.go").write_text(source, encoding="utf-8")
    done = instrument_go(go_plan("./..."), tmp_path, ["a/x.go"], tmp_path, tmp_path)
    assert isinstance(done, tuple)
    assert not any(a.startswith("-coverpkg") for a in done[0].argv), done[0].argv


def test_a_race_run_counts_atomically(tmp_path: Path) -> None:
    (tmp_path / "go.mod").write_text("module example.com/m\n", encoding="utf-8")
    done = instrument_go(go_plan("-race", "./..."), tmp_path, ["a.go"], tmp_path, tmp_path)
    assert isinstance(done, tuple) and "-covermode=atomic" in done[0].argv


def test_the_projects_own_profile_is_left_alone_and_said_so(tmp_path: Path) -> None:
    (tmp_path / "go.mod").write_text("module example.com/m\n", encoding="utf-8")
    plan = go_plan("-coverprofile=c.out", "./...")
    why = instrument_go(plan, tmp_path, ["a.go"], tmp_path, tmp_path)
    assert isinstance(why, str) and "its own -coverprofile" in why


def test_a_change_outside_the_commands_module_is_not_profiled(tmp_path: Path) -> None:
    (tmp_path / "go.mod").write_text("module example.com/m\n", encoding="utf-8")
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "go.mod").write_text("module example.com/tools\n", encoding="utf-8")
    assert instrument_go(go_plan("./..."), tmp_path, ["tools/t.go"], tmp_path, tmp_path) is None


async def run(store: Store, repo: Path, **check: object) -> Evaluation:
    criterion = {
        "criterion": "the tests pass",
        "verification_method": "test",
        "check": {"kind": "tests", "argv": ["go", "test", "./..."], **check},
    }
    return await evaluated(store, repo, contract_for(store, repo, criterion).id)


@needs_go
async def test_a_new_go_function_no_test_calls_fails_naming_its_lines(
    store: Store, tmp_path: Path
) -> None:
    repo = go_shop(tmp_path / "shop", tested=False)
    result = await run(store, repo, min_diff_coverage=80)
    criterion = result.criteria[0]
    assert (criterion.status, criterion.reason_code) == ("fail", "diff_coverage_low"), criterion
    assert "not executed: shop/price.go:13-17" in criterion.reason
    found = criterion.adequacy.diff_coverage if criterion.adequacy else None
    assert found and found.tool == "go test -coverprofile" and found.evidence_id
    assert (found.changed, found.covered, found.unmeasured) == (5, 0, [])
    assert not result.tree_changed.changed  # the profile is written outside the tree


@needs_go
async def test_a_test_in_another_package_covers_the_change(store: Store, tmp_path: Path) -> None:
    repo = go_shop(tmp_path / "shop", tested=True)
    result = await run(store, repo, min_diff_coverage=80)
    criterion = result.criteria[0]
    assert criterion.status == "pass", criterion.reason
    found = criterion.adequacy.diff_coverage if criterion.adequacy else None
    assert found and (found.percent, found.changed) == (100.0, 5)


@needs_go
async def test_a_command_writing_its_own_profile_keeps_it_and_is_unscored(
    store: Store, tmp_path: Path
) -> None:
    repo = go_shop(tmp_path / "shop", tested=True)
    own = tmp_path / "own.out"
    criterion = {
        "criterion": "the tests pass",
        "verification_method": "test",
        "check": {
            "kind": "tests",
            "argv": ["go", "test", f"-coverprofile={own}", "./..."],
            "min_diff_coverage": 80,
        },
    }
    result = await evaluated(store, repo, contract_for(store, repo, criterion).id)
    graded = result.criteria[0]
    assert (graded.status, graded.reason_code) == ("unscored", "diff_coverage_low"), graded
    assert "writes its own -coverprofile" in graded.reason


def test_each_test_binary_reports_every_covered_package_and_one_run_is_enough(
    tmp_path: Path,
) -> None:
    # As go 1.19 writes it for `-coverpkg=…/tool,…/lib,…/untested ./...`: each test binary has
    # counters for every listed package, a package without tests included (all 0).
    profile = tmp_path / "cover.out"
    profile.write_text(
        "mode: set\n"
        "example.com/m/lib/lib.go:3.16,5.2 1 0\n"
        "example.com/m/untested/u.go:3.19,5.2 1 0\n"
        "example.com/m/lib/lib.go:3.16,5.2 1 1\n"
        "example.com/m/untested/u.go:3.19,5.2 1 0\n",
        encoding="utf-8",
    )
    (tmp_path / "go.mod").write_text("module example.com/m\n", encoding="utf-8")
    changed: dict[str, set[int] | None] = {"lib/lib.go": {3, 4, 5}, "untested/u.go": {3, 4}}
    found = measure_go(profile, tmp_path, changed, ["lib/lib.go", "untested/u.go"])
    assert [(f.path, f.covered, f.uncovered) for f in found.files] == [
        ("lib/lib.go", 3, []),
        ("untested/u.go", 0, ["3-4"]),
    ]
    # A file no test binary was built with (a build constraint, another module): not covered,
    # not dropped either.
    found = measure_go(profile, tmp_path, {"gen/gen.go": {1}}, ["gen/gen.go"])
    assert (found.percent, found.unmeasured) == (None, ["gen/gen.go"])


def test_a_profile_of_many_small_blocks_is_read_whole(tmp_path: Path) -> None:
    # 200,000 one-line blocks (a test can write the file) against 2,000 changed lines: merged
    # before they are matched, so every line is looked up once.
    (tmp_path / "go.mod").write_text("module example.com/m\n", encoding="utf-8")
    blocks = "".join(
        f"example.com/m/a.go:{1 + i % 1000}.1,{1 + i % 1000}.9 1 0\n" for i in range(200_000)
    )
    profile = tmp_path / "cover.out"
    profile.write_text("mode: set\n" + blocks, encoding="utf-8")
    found = measure_go(profile, tmp_path, {"a.go": set(range(1, 2001))}, ["a.go"])
    assert [(f.changed, f.covered, f.uncovered) for f in found.files] == [(1000, 0, ["1-1000"])]
