"""Which files of a tree steer the toolchain or the runner rather than being the code under test
or its tests: the harness, decided by a rule over the path, never by a list of tool names.

A file is harness when

- **the interpreter or the runner loads it by its name or place**: `conftest.py`,
  `sitecustomize.py`, `usercustomize.py`, a `.pth` file; a Python module whose top-level name is
  one the runner imports (`pytest.py`, `_pytest/`, `unittest.py`, `referee_guard.py`) or, outside
  the tests, one of the standard library (`typing.py`, `site.py`), unless the base had that
  top-level module already (then it is the project's own) (shadow.py);
- **it is a new `__init__.py` above tests the base had, or beside its modules** (not in a folder
  of tests, where it is a test file of the change): it makes the folder a package, and pytest
  imports each package above a test or doctest module before the module (the project's root is
  no package a program imports);
- **it is new and the same module as a file the base had and the tree still holds**
  (`calc.mjs` beside `calc.js`, `calc.js` beside `calc.ts`, `calc/__init__.py` beside `calc.py`):
  the resolver loads one of the two by an order of its own;
- **it is hidden**: a dotfile or anything under a dot-folder (`.npmrc`, `.babelrc`, `.env`,
  `.pytest.ini`, `.mvn/`, `.cargo/`, `.config/`, `.yarn/`), save git's own (`.git*`: ignore
  rules, attributes, a host's CI), which no run of the tests reads;
- **it is a build script**: `build.rs` and `setup.py` at a project root, `*.gradle(.kts)`,
  anything under `buildSrc/` or `gradle/`;
- **it is named as tool configuration** (JS/TS): a name with a `config`, `conf`, `rc`,
  `setup`, `teardown`, `workspace` or `preset` part after the first (`jest.config.mjs`,
  `vitest.workspace.js`, `jest.setup.ts`), or, at a configuration place, a first part that names a
  test set-up (`setupTests.js`);
- **it is configuration at a configuration place**: a configuration format (ini, cfg, conf,
  config, toml, properties, env, mod, work, mk, or a file without extension whose name is not
  upper-case prose such as `README`, `LICENSE`) at the root, at a project root (a folder holding a
  manifest), in a folder holding tests or at a test resource root (`src/test/resources`, with its
  `META-INF/`); a data format that configures as well (json, jsonc, json5, yaml, yml, xml) at the
  root or a project root.

Not harness: test files (their own check: the base's tests in their base form), source files
that are none of the above, data below those places (`src/locales/en.json`,
`tests/fixtures/case.yaml`: the code's or the tests' data), prose and assets, and dependency pins:
lock files (`*.lock`, `*-lock.*`, `*.lockfile`, `go.sum`, `npm-shrinkwrap.json`) and Gradle
version catalogs (`*.versions.toml`). In a manifest the dependency declarations and descriptive
metadata are trusted and the rest is compared (manifests.py).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable

from referee.tools.harness.shadow import shadowed_module
from referee.tools.static.paths import is_test_path, language_of, same_module_paths

__all__ = ["MANIFESTS", "Layout", "harness_reason", "is_harness_file", "is_pin_file"]

# A folder holding one of these is a project root: its toolchain reads configuration there.
MANIFESTS = (
    "package.json",
    "deno.json",
    "deno.jsonc",
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "Cargo.toml",
    "go.mod",
    "pom.xml",
    "build.gradle",
    "build.gradle.kts",
    "settings.gradle",
    "settings.gradle.kts",
    "composer.json",
)
_LOADED_BY_NAME = frozenset({"conftest.py", "sitecustomize.py", "usercustomize.py"})
_CONFIG_FORMATS = frozenset(
    {".ini", ".cfg", ".conf", ".config", ".toml", ".properties", ".env", ".mod", ".work", ".mk"}
)
_DATA_FORMATS = frozenset({".json", ".jsonc", ".json5", ".yaml", ".yml", ".xml"})
_SCRIPTS = frozenset({".js", ".cjs", ".mjs", ".ts", ".cts", ".mts", ".jsx", ".tsx"})
_BUILD_FOLDERS = frozenset({"buildSrc", "gradle"})
_TOOL_PART = re.compile(r"^(config|conf|rc|setup|teardown|workspace|workspaces|preset)$", re.I)
_SETUP_NAME = re.compile(r"^(global[-_]?)?(setup|teardown)([-_]?(tests?|files?|env))?$", re.I)
_PROSE = re.compile(r"^[A-Z0-9_-]+$")
# A report a test or coverage tool writes as it runs (`coverage.xml`, `junit.xml`, `lcov.info`).
_REPORT = re.compile(
    r"(?i)^(?!\.)[^/]*(?:junit|coverage|cobertura|lcov)[^/]*\.(?:xml|json|info|html)$"
)
_PINS = re.compile(
    r"((^|[-.])lock(file|b)?(\.[A-Za-z0-9]+)?|^go\.sum|^npm-shrinkwrap\.json|\.versions\.toml)$"
)
_TEST_RESOURCES = re.compile(r"(^|/)src/[^/]*test[^/]*/resources$", re.I)
# A test resource root's META-INF registers what the test classpath loads (JUnit's listeners and
# extensions, service providers), whatever the file's name.
_TEST_META_INF = re.compile(r"(^|/)src/[^/]*test[^/]*/resources/META-INF/", re.I)
# Folders named for tests hold the runner's configuration even before they hold a test.
_TEST_FOLDERS = frozenset({"test", "tests", "spec", "specs", "__tests__", "testing", "e2e"})


class Layout:
    """What else the tree holds, as far as the rule asks: which files exist (at base or now)."""

    def __init__(
        self,
        paths: Iterable[str] = (),
        exists: Callable[[str], bool] | None = None,
        at_base: Callable[[str], bool] | None = None,
        now: Callable[[str], bool] | None = None,
    ):
        """
        Args:
            paths: Files the tree holds (the base's and the current ones): enough for most files.
            exists: Asked for a file `paths` does not name (None: it does not exist).
            at_base: Whether the base held a file (None: nothing the rule asks about).
            now: Whether the evaluated tree holds a file (None: as `exists` says).
        """
        self._paths = frozenset(paths)
        self._exists = exists
        self._at_base = at_base
        self._now = now
        self._roots: dict[tuple[str, str], bool] = {}

    def has(self, path: str) -> bool:
        if path in self._paths:
            return True
        return self._exists(path) if self._exists is not None else False

    @functools.cached_property
    def _test_folders(self) -> frozenset[str]:
        return frozenset(_folder(p) for p in self._paths if _holds_a_test(p))

    def base_tests_below(self, folder: str) -> bool:
        """Whether the base held a test in a folder below `folder` ('' for the root), not in
        `folder` itself."""
        prefix = f"{folder}/" if folder else ""
        return any(
            p.startswith(prefix)
            and "/" in p[len(prefix) :]
            and _holds_a_test(p)
            and self.at_base(p)
            for p in self._paths
        )

    def now(self, path: str) -> bool:
        """Whether the evaluated tree holds a file (not one the change deleted)."""
        return self._now(path) if self._now is not None else self.has(path)

    def base_modules_in(self, folder: str) -> bool:
        """Whether the base held a Python module directly in `folder` (a module, not a test)."""
        prefix = f"{folder}/" if folder else ""
        return any(
            p.startswith(prefix)
            and "/" not in p[len(prefix) :]
            and p.endswith(".py")
            and not is_test_path(p)
            and self.at_base(p)
            for p in self._paths
        )

    def at_base(self, path: str) -> bool:
        return self._at_base(path) if self._at_base is not None else False

    def holds_tests(self, folder: str) -> bool:
        return folder in self._test_folders

    def project_root(self, folder: str, besides: str = "") -> bool:
        """The root, or a folder holding a manifest (other than `besides`)."""
        key = (folder, besides)
        if key not in self._roots:
            prefix = f"{folder}/" if folder else ""
            found = any(self.has(prefix + m) for m in MANIFESTS if m != besides)
            self._roots[key] = not folder or found
        return self._roots[key]


def is_pin_file(path: str) -> bool:
    """A dependency pin (lock file, `go.sum`, a version catalog): what an installer reads."""
    return bool(_PINS.search(path.rsplit("/", 1)[-1])) and language_of(path) is None


def is_harness_file(path: str, layout: Layout | None = None, ignored: bool = False) -> bool:
    """A file whose content can steer the toolchain or the runner (see the module docstring)."""
    return bool(harness_reason(path, layout or Layout([path]), ignored))


def harness_reason(path: str, layout: Layout, ignored: bool = False) -> str:
    """Why a file is harness, in a few words ("" when it is not).

    Args:
        path: The file, relative to the tree's root.
        layout: What else the tree holds, and held at base.
        ignored: The file is one git ignores, found on disk. A hidden one then counts only in a
            configuration or data format (`.pytest.ini`, `.cargo/config.toml`): an ignored
            dotfile without one (`.env`, `.npmrc`, `.netrc`) is where a machine keeps its
            secrets, which the tree hash would pin into the repository, and a mark of no tool
            (`.DS_Store`, `.coverage`).
    """
    folder, name = _folder(path), path.rsplit("/", 1)[-1]
    suffix = _suffix(name)
    if is_pin_file(path):
        return ""
    if ignored and _REPORT.search(name):
        return ""  # a report a tool wrote (`coverage xml`, `--junitxml`): no tool reads it back
    if name in _LOADED_BY_NAME or suffix == ".pth":
        return "the interpreter or the runner loads it by name"
    if suffix == ".py" and (module := _shadowed(path, layout)):
        return f"imported in place of the module `{module}`"
    if name == "__init__.py" and not layout.at_base(path) and _packs_base_code(folder, layout):
        return "makes a folder of the base's tests or modules a package, imported before them"
    if twin := _twin(path, layout):
        return (
            f"the same module as `{twin}`, which the base had: one is loaded in place of the other"
        )
    if any(_hidden(part) for part in path.split("/")) and (
        not ignored or suffix in _CONFIG_FORMATS | _DATA_FORMATS
    ):
        return "a hidden file the toolchain reads"
    if _build_script(path, folder, name, layout):
        return "a build script"
    if _TEST_META_INF.search(path):
        return "registers what the test classpath loads"
    if suffix in _SCRIPTS and _tool_named(name, folder, layout):
        return "named as tool configuration"
    return _configuration(folder, name, suffix, layout)


def _shadowed(path: str, layout: Layout) -> str:
    return shadowed_module(path, layout.has, layout.at_base, is_test_path(path))


def _packs_base_code(folder: str, layout: Layout) -> bool:
    """A new `__init__.py` makes `folder` a package the runner imports before any module in it:
    above the base's tests, or beside the base's modules (a doctest module), unless the folder
    holds tests itself (a new `tests/__init__.py` is a test file of the change)."""
    if layout.base_tests_below(folder):
        return True
    return layout.base_modules_in(folder) and not layout.holds_tests(folder)


def _twin(path: str, layout: Layout) -> str:
    """A file of the base that a new file is the same module as (`calc.mjs` beside `calc.js`,
    `calc/__init__.py` beside `calc.py`): the resolver then loads one of the two, by an order of
    its own (Python's packages first, vite's `.mjs` before `.js` before `.ts`), and the tests
    may run the new file while the diff shows the old one edited. A module moved (its old file
    gone) has no twin."""
    if layout.at_base(path):
        return ""
    for other in same_module_paths(path):
        if layout.at_base(other) and layout.now(other):
            return other
    return ""


def _hidden(part: str) -> bool:
    return part.startswith(".") and part not in (".", "..") and not part.startswith(".git")


def _build_script(path: str, folder: str, name: str, layout: Layout) -> bool:
    if name.endswith((".gradle", ".gradle.kts")):
        return True
    # Cargo and setuptools run these beside their manifest; elsewhere the name is a module's.
    if name in ("build.rs", "setup.py") and layout.project_root(folder, besides=name):
        return True
    return any(part in _BUILD_FOLDERS for part in path.split("/")[:-1])


def _tool_named(name: str, folder: str, layout: Layout) -> bool:
    parts = name.split(".")[:-1]
    if len(parts) > 1 and parts[-1].lower() in ("test", "tests", "spec"):
        # A test file (`options.preset.test.js`): no tool loads it by that name as its
        # configuration; what it does as it loads is the claims readers' to judge.
        return False
    if any(_TOOL_PART.match(p) for p in parts[1:]):
        return True
    return bool(parts and _SETUP_NAME.match(parts[0])) and _config_place(folder, layout)


def _configuration(folder: str, name: str, suffix: str, layout: Layout) -> str:
    extensionless = "." not in name and not _PROSE.match(name)
    if (suffix in _CONFIG_FORMATS or extensionless) and _config_place(folder, layout):
        return "configuration the toolchain reads"
    if suffix in _DATA_FORMATS and layout.project_root(folder):
        return "configuration at a project's root"
    return ""


def _config_place(folder: str, layout: Layout) -> bool:
    """Where toolchains look for configuration: the root, a project root, a folder of tests (the
    runner searches from what it collects), a test resource root (the test classpath's top)."""
    return (
        layout.project_root(folder)
        or layout.holds_tests(folder)
        or folder.rsplit("/", 1)[-1] in _TEST_FOLDERS
        or bool(_TEST_RESOURCES.search(folder))
    )


def _holds_a_test(path: str) -> bool:
    return is_test_path(path) and language_of(path) is not None


def _folder(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


def _suffix(name: str) -> str:
    """The extension that says the format (`phpunit.xml.dist`, read as it is, is XML)."""
    if name.endswith(".dist"):
        name = name[: -len(".dist")]
    dot = name.rfind(".")
    return name[dot:].lower() if dot > 0 else ""
