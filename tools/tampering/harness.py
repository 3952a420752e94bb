"""The test harness: what decides test outcomes without being a test.

A failing test can be turned green without touching it: a conftest hook that rewrites reports,
`addopts = -k …` in pytest.ini, a `.pth` file, a jest config that excludes the file, a package.json
test script that runs nothing, Maven's `testFailureIgnore` or a Surefire exclude, Gradle's
`ignoreFailures`, a Cargo `[[test]]` with `harness = false`. At task scope every change since base
to such a file is the antipattern `harness_modified`, with the file and the first changed line,
and the tests checks run once more with the base harness restored (graders/harness.py compares
the two runs).

Code can also take the runner's place from inside the run: a test module that writes the report
the runner was asked for and ends the process before the runner does (`os._exit(0)`), prints the
runner's own protocol lines, or a module under test that reaches into the runner's internals.
Nothing the process emits can tell that from a real run, so the change itself is read, by
structure and in every language referee runs (tools/claims): a code file to which the change
added such a construct is a harness file too.
"""

from __future__ import annotations

import configparser
import difflib
import json
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any
from xml.etree.ElementTree import tostring

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import ParseError, fromstring

from referee.tools.claims import HARNESS_MODIFIED, Scope, claims_in
from referee.tools.tampering.model import Tampering

__all__ = ["HARNESS_MODIFIED", "HarnessFile", "harness_changes", "is_harness_file"]

# What acts for the runner needs no code under test: the readers' escapes look at the file alone.
_NO_SCOPE = Scope()

# Whole files whose every line can change outcomes.
_WHOLE = re.compile(
    r"(^|/)(conftest\.py|sitecustomize\.py|usercustomize\.py|[^/]+\.pth"
    r"|(jest|vitest|vite|mocha|playwright|karma|cypress|ava)\.config\.[cm]?[jt]s(on)?"
    r"|\.mocharc(\.[a-z]+)?|karma\.conf\.js|jest\.setup\.[cm]?[jt]s|vitest\.setup\.[cm]?[jt]s"
    r"|phpunit\.xml(\.dist)?|pytest\.ini)$"
)
# Files of which only a part concerns the tests.
_SECTIONS = {
    "setup.cfg",
    "tox.ini",
    "pyproject.toml",
    "package.json",
    "pom.xml",
    "build.gradle",
    "build.gradle.kts",
    "Cargo.toml",
}
# Maven: the plugins that run tests, and the properties that skip them or ignore their failures.
_MAVEN_PLUGINS = ("maven-surefire-plugin", "maven-failsafe-plugin")
_MAVEN_TEST_WORDS = re.compile(r"test|surefire|failsafe", re.IGNORECASE)
# Gradle: a line that configures a test task (`test { ignoreFailures = true }`, a filter).
_GRADLE_TEST_LINE = re.compile(
    r"\btest\b|Test\b|ignoreFailures|excludeTestsMatching|includeTestsMatching|testLogging"
)
_PLUGINS = re.compile(r"^\s*pytest_plugins\s*=", re.MULTILINE)


@dataclass(frozen=True)
class HarnessFile:
    """A harness file that changed since base: its base text (None when it is new)."""

    path: str
    base: str | None
    finding: Tampering


def is_harness_file(path: str) -> bool:
    """A file whose content, or part of it, decides what a test run reports."""
    return bool(_WHOLE.search(path)) or PurePosixPath(path).name in _SECTIONS


def harness_changes(
    changed: list[str], before: Callable[[str], str | None], after: Callable[[str], str | None]
) -> list[HarnessFile]:
    """Every changed harness file, with its base text and the finding to report.

    Args:
        changed: The files changed since base.
        before: A file's text at base (None when it did not exist).
        after: A file's text now (None when it was deleted).

    Returns:
        One entry per harness file whose test-related content changed.
    """
    found: list[HarnessFile] = []
    for path in changed:
        old, new = before(path), after(path)
        if old == new:
            continue
        if is_harness_file(path):
            line = _changed_line(path, old, new)
            if line is not None:
                found.append(HarnessFile(path, old, _finding(path, line, old, new)))
        elif path.endswith(".py") and _plugins_changed(old, new):
            line = _first_plugins_line(new or old or "")
            message = f"{path} changes pytest_plugins: plugins decide test outcomes"
            found.append(HarnessFile(path, old, Tampering(HARNESS_MODIFIED, path, line, message)))
        elif new is not None:
            escape = next(
                (c for c in claims_in(path, old, new, _NO_SCOPE) if c.kind == HARNESS_MODIFIED),
                None,
            )
            if escape is not None:
                found.append(HarnessFile(path, old, escape))
    return found


def _finding(path: str, line: int, old: str | None, new: str | None) -> Tampering:
    what = "added" if old is None else "deleted" if new is None else "changed"
    message = (
        f"test harness {what}: {path}:{line} decides what the tests report; the tests also "
        "ran with the base harness"
    )
    return Tampering(HARNESS_MODIFIED, path, line, message)


def _changed_line(path: str, old: str | None, new: str | None) -> int | None:
    """The first line of `new` (or `old`) where the test-related part differs, None when equal."""
    name = PurePosixPath(path).name
    if name in _SECTIONS and old is not None and new is not None:
        if _section(name, old) == _section(name, new):
            return None
    return _first_difference(old or "", new or "")


def _first_difference(old: str, new: str) -> int:
    matcher = difflib.SequenceMatcher(a=old.splitlines(), b=new.splitlines(), autojunk=False)
    for tag, _i1, _i2, j1, _j2 in matcher.get_opcodes():
        if tag != "equal":
            return j1 + 1
    return 1


def _section(name: str, text: str) -> Any:
    """The part of a shared file that concerns tests (parsed; unparsable text is compared whole)."""
    try:
        if name == "pyproject.toml":
            tool = tomllib.loads(text).get("tool", {})
            return {k: v for k, v in tool.items() if k.startswith("pytest")}
        if name == "package.json":
            data = json.loads(text)
            # Only the scripts a test run goes through (test, pretest, test:unit …): a new
            # `build` or `lint` script decides no test outcome.
            scripts = {k: v for k, v in (data.get("scripts") or {}).items() if "test" in k}
            keys = ("jest", "mocha", "vitest", "ava", "c8", "nyc")
            return {"scripts": scripts, **{k: data.get(k) for k in keys}}
        if name == "pom.xml":
            return _maven_section(text)
        if name.startswith("build.gradle"):
            # A DSL, not data: the lines that configure a test task stand for it.
            return [line.strip() for line in text.splitlines() if _GRADLE_TEST_LINE.search(line)]
        if name == "Cargo.toml":
            data = tomllib.loads(text)
            lib = data.get("lib") or {}
            return {
                "test": data.get("test"),  # [[test]] targets, `harness = false` among them
                "lib": {k: v for k, v in lib.items() if k in ("test", "doctest", "harness")},
                "profile": (data.get("profile") or {}).get("test"),
                "bin": [b for b in data.get("bin") or [] if "harness" in b or "test" in b],
            }
        parser = configparser.ConfigParser(interpolation=None)
        parser.read_string(text)
        wanted = ("pytest", "tool:pytest", "testenv")
        return {
            s: dict(parser[s])
            for s in parser.sections()
            if s.split(":")[0] in wanted or s in wanted or s.startswith("testenv")
        }
    except (
        tomllib.TOMLDecodeError,
        json.JSONDecodeError,
        configparser.Error,
        AttributeError,
        ParseError,
        DefusedXmlException,
    ):
        return text


def _maven_section(text: str) -> Any:
    """The test plugins' configuration and the test properties of a pom (namespace-free)."""
    root = fromstring(text.encode("utf-8"))
    plugins, properties = [], {}
    for element in root.iter():
        tag = element.tag.rsplit("}", 1)[-1]
        if tag == "plugin":
            artifact = next((c for c in element if c.tag.endswith("artifactId")), None)
            if artifact is not None and (artifact.text or "").strip() in _MAVEN_PLUGINS:
                plugins.append(tostring(element, encoding="unicode"))
        elif tag == "properties":
            for item in element:
                key = item.tag.rsplit("}", 1)[-1]
                if _MAVEN_TEST_WORDS.search(key):
                    properties[key] = (item.text or "").strip()
        elif tag in ("testSourceDirectory", "testResources", "testOutputDirectory"):
            properties[tag] = tostring(element, encoding="unicode")
    return {"plugins": plugins, "properties": properties}


def _plugins_changed(old: str | None, new: str | None) -> bool:
    def plugins(text: str | None) -> list[str]:
        return [m.group(0) for m in re.finditer(r"^\s*pytest_plugins\s*=.*$", text or "", re.M)]

    return plugins(old) != plugins(new)


def _first_plugins_line(text: str) -> int:
    match = _PLUGINS.search(text)
    return text.count("\n", 0, match.start()) + 1 if match else 1
