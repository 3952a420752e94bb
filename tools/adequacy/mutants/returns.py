"""What a returned value becomes, from the type the function declares: the value a forgotten
computation gives (Python's `None`, Go's zero value, Rust's `Default`), so that the mutant still
compiles. A type with no such value that referee can spell returns None: no mutant."""

from __future__ import annotations

import re

__all__ = ["go_zero", "java_zero", "php_zero", "rust_default", "script_zero"]

_GO_NUMBERS = re.compile(r"u?int(8|16|32|64)?|float(32|64)|complex(64|128)|byte|rune|uintptr")
_GO_NIL = re.compile(r"error|any|\*.*|\[\].*|map\[.*|chan\b.*|<-chan\b.*|func\b.*|interface\b.*")


def go_zero(declared: str) -> str | None:
    """`int` → `0`, `string` → `""`, `bool` → `false`, `error` and pointers … → `nil`."""
    declared = declared.strip()
    if _GO_NUMBERS.fullmatch(declared):
        return "0"
    if _GO_NIL.fullmatch(declared):
        return "nil"
    return {"string": '""', "bool": "false"}.get(declared)


_RUST_INTEGERS = re.compile(r"[iu](8|16|32|64|128|size)")


def rust_default(declared: str) -> str | None:
    """The declared type's default, spelled so it compiles where the type allows it."""
    declared = re.sub(r"\s+", "", declared)
    if not declared or declared in ("()", "!") or declared.startswith(("impl", "&mut", "Self")):
        return None
    if _RUST_INTEGERS.fullmatch(declared):
        return "0"
    spelled = {"bool": "false", "f32": "0.0", "f64": "0.0", "String": "String::new()"}
    if declared in spelled:
        return spelled[declared]
    if declared.startswith("&") and declared.endswith("str"):
        return '""'
    if declared.startswith("Option<"):
        return "None"
    if declared.startswith("Vec<"):
        return "Vec::new()"
    if declared.startswith("Result<"):
        return "Ok(Default::default())"
    return "Default::default()"


_JAVA_NUMBERS = frozenset({"int", "long", "short", "byte", "double", "float"})


def java_zero(declared: str) -> str | None:
    """Primitives their zero (`char` has none worth spelling), every reference type `null`."""
    declared = declared.strip()
    if declared in _JAVA_NUMBERS:
        return "0"
    if declared == "boolean":
        return "false"
    return None if declared in ("void", "char", "") else "null"


_PHP = {"int": "0", "float": "0.0", "string": "''", "bool": "false", "array": "[]"}


def php_zero(declared: str) -> str | None:
    """A scalar its zero; a nullable type, `mixed` or none at all `null`; a class type none (a
    `null` there is a TypeError, not a bug the tests should have caught)."""
    declared = declared.strip().lstrip(":").strip()
    if not declared or declared == "mixed" or declared.startswith("?") or "null" in declared:
        return "null"
    return _PHP.get(declared.lower())


_TS = {"number": "0", "string": "''", "boolean": "false"}


def script_zero(declared: str) -> str | None:
    """TypeScript's declared scalars their zero (a type-checking runner accepts it); anything
    else, and JavaScript, `undefined`."""
    declared = declared.strip().lstrip(":").strip()
    if declared in ("void", "never"):
        return None
    return _TS.get(declared, "undefined")
