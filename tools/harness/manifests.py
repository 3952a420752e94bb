"""The part of a manifest that can steer a test run: all of it but what is trusted.

A manifest declares dependencies and describes the project, and configures everything else: test
scripts and runner keys, module maps (`imports`, `exports`, `autoload`), Babel and Jest keys,
features and profiles, plugins, entry points, `replace` directives. Rather than naming the keys
that steer (a list a new key slips past), each manifest names what is **trusted**, dependency
declarations and descriptive metadata, and every other key is compared with base. A version bump
or a new dependency is no harness change; anything else in the manifest is.

What trusting dependencies means: a sandboxed run installs nothing (no network), so a declared
dependency changes what runs only through what is already installed, which the environment check
watches (tools/environment).
"""

from __future__ import annotations

import configparser
import json
import re
import tomllib
from collections.abc import Callable
from typing import Any
from xml.etree.ElementTree import Element

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import ParseError, fromstring

__all__ = ["is_manifest", "steering_part"]

_DESCRIBES = frozenset(
    {
        "name",
        "version",
        "description",
        "readme",
        "authors",
        "author",
        "contributors",
        "maintainers",
        "license",
        "license-file",
        "license-files",
        "keywords",
        "classifiers",
        "categories",
        "urls",
        "homepage",
        "repository",
        "documentation",
        "bugs",
        "funding",
        "support",
    }
)
_NPM = _DESCRIBES | {
    "dependencies",
    "devDependencies",
    "peerDependencies",
    "peerDependenciesMeta",
    "optionalDependencies",
    "bundleDependencies",
    "bundledDependencies",
    "overrides",
    "resolutions",
    "engines",
    "private",
    "publishConfig",
    "files",
}
_PYPROJECT = _DESCRIBES | {"dependencies", "optional-dependencies", "requires-python"}
_POETRY = _DESCRIBES | {"dependencies", "dev-dependencies", "group"}
_CARGO_DEPS = frozenset({"dependencies", "dev-dependencies", "build-dependencies"})
_CARGO_FEATURE_KEYS = ("features", "default-features", "default_features", "optional")
_CARGO_PACKAGE = _DESCRIBES | {"rust-version", "publish", "exclude", "include"}
_COMPOSER = _DESCRIBES | {"require", "require-dev", "type"}
_POM = frozenset(
    {
        "dependencies",
        "dependencyManagement",
        "version",
        "name",
        "description",
        "url",
        "licenses",
        "developers",
        "contributors",
        "scm",
        "issueManagement",
        "ciManagement",
        "organization",
        "inceptionYear",
        "mailingLists",
        "distributionManagement",
    }
)
# A Maven property that holds a dependency's version (`<jackson.version>2.17.1</…>`).
_VERSION_VALUE = re.compile(r"^[0-9][\w.+-]*$")
# Gradle: statements that only declare a dependency or describe the project.
_GRADLE_DEPENDENCY = re.compile(
    r"""^[A-Za-z]\w*\s*\(?\s*(?:(?:platform|enforcedPlatform)\s*\(\s*)?
    (?:(['"])[^'"$\s]+:[^'"$\s]+\1|libs(?:\.\w+)+)\s*\)*$""",
    re.VERBOSE,
)
# A `//` comment after a space or at a line's start (a URL's `https://` is no comment).
_GRADLE_LINE_COMMENT = re.compile(r"(^|\s)//.*$", re.M)
_GRADLE_DESCRIBES = re.compile(r"""^(version|group|description)\s*=\s*(['"])[^'"$]*\2$""")


def is_manifest(name: str) -> bool:
    return name in _READERS or name.endswith((".gradle", ".gradle.kts"))


def steering_part(name: str, text: str) -> Any:
    """What of a manifest is compared with base (the text itself when it does not parse)."""
    reader = _READERS.get(name) or (_gradle if is_manifest(name) else None)
    if reader is None:
        return text
    try:
        return reader(text)
    except (
        tomllib.TOMLDecodeError,
        json.JSONDecodeError,
        configparser.Error,
        AttributeError,
        TypeError,
        ParseError,
        DefusedXmlException,
    ):
        return text


def _without(data: Any, trusted: frozenset[str]) -> Any:
    if not isinstance(data, dict):
        return data
    return {k: v for k, v in data.items() if k not in trusted}


def _package_json(text: str) -> Any:
    return _without(json.loads(text), _NPM)


def _composer(text: str) -> Any:
    return _without(json.loads(text), _COMPOSER)


# Tools that read their `[tool.x]` table to lint, format, type-check or release the code: none of
# them runs in a test session of its own accord.
_STATIC_TOOLS = frozenset(
    {"ruff", "black", "isort", "mypy", "pyright", "pylint", "flake8", "codespell", "bandit"}
    | {"pydocstyle", "docformatter", "autopep8", "yapf", "towncrier", "commitizen", "bumpversion"}
    | {"pyupgrade", "vulture", "interrogate", "refurb", "basedpyright", "pyrefly", "ty"}
)


def _pyproject(text: str) -> Any:
    data = tomllib.loads(text)
    data.pop("dependency-groups", None)
    data["project"] = _without(data.get("project"), _PYPROJECT)
    system = data.get("build-system")
    data["build-system"] = _without(system, frozenset({"requires"}))
    tool = data.get("tool")
    if isinstance(tool, dict):
        tool["poetry"] = _without(tool.get("poetry"), _POETRY)
        # A linter's, formatter's or type checker's settings steer no test run, unless the
        # pytest options of this file run that tool as tests (`--mypy`, `--ruff`, `-p pylint`).
        options = str(_nested(tool, "pytest", "ini_options", "addopts") or "")
        for name in _STATIC_TOOLS:
            if name in tool and name not in options:
                del tool[name]
        data["tool"] = {k: v for k, v in tool.items() if v not in (None, {})}
        if not data["tool"]:
            del data["tool"]
    return data


def _nested(data: Any, *keys: str) -> Any:
    for key in keys:
        data = data.get(key) if isinstance(data, dict) else None
    return data


def _cargo(text: str) -> Any:
    parsed = tomllib.loads(text)
    own = _cargo_name(parsed)
    data = {**_without(parsed, _CARGO_DEPS), **_self_dependencies(parsed, own)}
    data["package"] = _without(data.get("package"), _CARGO_PACKAGE)
    targets = parsed.get("target")
    if isinstance(targets, dict):
        # A target table that only declares dependencies (`[target.'cfg(unix)'.dependencies]`)
        # is a dependency declaration: nothing of it is left to compare.
        kept = {
            k: {**_without(v, _CARGO_DEPS), **_self_dependencies(v, own)}
            for k, v in targets.items()
        }
        data["target"] = {k: v for k, v in kept.items() if v}
        if not data["target"]:
            del data["target"]
    workspace = data.get("workspace")
    if isinstance(workspace, dict):
        data["workspace"] = {
            k: v for k, v in workspace.items() if k not in ("dependencies", "package")
        }
    return data


def _cargo_name(data: dict[str, Any]) -> str:
    package = data.get("package")
    name = package.get("name") if isinstance(package, dict) else None
    return name if isinstance(name, str) else ""


def _self_dependencies(table: Any, own: str) -> dict[str, Any]:
    """The crate's dependencies on itself (`calc = { path = ".", features = ["x"] }` among its
    dev-dependencies), and the features asked of the tree's own crates (a `path` dependency):
    no dependency at all, but a way to switch on code of the tree (for the test build alone,
    from a dev-dependency). Compared with base like any setting."""
    if not isinstance(table, dict):
        return {}
    found: dict[str, Any] = {}  # keyed `dev-dependencies.calc`: no key of a manifest's own
    for kind in sorted(_CARGO_DEPS):
        deps = table.get(kind)
        if not isinstance(deps, dict):
            continue
        for name, spec in deps.items():
            fields = spec if isinstance(spec, dict) else {}
            named = bool(own) and own in (name, fields.get("package"))
            here = "path" in fields and str(fields["path"]).rstrip("/") in ("", ".")
            if named or here:
                found[f"{kind}.{name}"] = spec
            elif "path" in fields:
                chosen = {k: fields[k] for k in _CARGO_FEATURE_KEYS if k in fields}
                if chosen:
                    found[f"{kind}.{name}"] = chosen
    return found


def _setup_cfg(text: str) -> Any:
    parser = configparser.ConfigParser(interpolation=None)
    parser.read_string(text)
    found: dict[str, dict[str, str]] = {}
    for section in parser.sections():
        if section in ("metadata", "options.extras_require"):
            continue
        values = dict(parser[section])
        if section == "options":
            for key in ("install_requires", "python_requires", "setup_requires"):
                values.pop(key, None)
        found[section] = values
    return found


def _go_mod(text: str) -> Any:
    """Every directive but `require` (replace, exclude, go, toolchain, godebug … steer)."""
    kept, block = [], False
    for raw in text.splitlines():
        line = raw.split("//", 1)[0].strip()
        if block:
            block = line != ")"
            continue
        if line == "require (":
            block = True
        elif line and not line.startswith("require "):
            kept.append(" ".join(line.split()))
    return kept


def _gradle(text: str) -> Any:
    """A DSL, not data: its statements, less those that declare a dependency or describe."""
    code = _GRADLE_LINE_COMMENT.sub("", re.sub(r"/\*.*?\*/", " ", text, flags=re.S))
    statements = (s.strip() for s in re.split(r"[{};\n]", code))
    return [
        " ".join(s.split())
        for s in statements
        if s and not _GRADLE_DEPENDENCY.match(s) and not _GRADLE_DESCRIBES.match(s)
    ]


def _pom(text: str) -> Any:
    root = fromstring(text.encode("utf-8"))
    return [_shape(c) for c in root if isinstance(c.tag, str) and _local(c.tag) not in _POM]


def _shape(element: Element) -> Any:
    """An element as comparable data: whitespace, comments and namespaces do not count."""
    tag = _local(element.tag)
    children = list(element)
    if tag == "properties":
        children = [c for c in children if not _version_property(c)]
    return (
        tag,
        sorted(element.attrib.items()),
        (element.text or "").strip(),
        [_shape(c) for c in children if isinstance(c.tag, str)],
    )


def _version_property(element: Element) -> bool:
    name = _local(element.tag)
    value = (element.text or "").strip()
    return name.lower().endswith("version") and bool(_VERSION_VALUE.match(value))


def _local(tag: Any) -> str:
    return str(tag).rsplit("}", 1)[-1]


_READERS: dict[str, Callable[[str], Any]] = {
    "package.json": _package_json,
    "composer.json": _composer,
    "pyproject.toml": _pyproject,
    "Cargo.toml": _cargo,
    "setup.cfg": _setup_cfg,
    "go.mod": _go_mod,
    "pom.xml": _pom,
}
