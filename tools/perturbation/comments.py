"""Comment and blank-line removal for languages other than Python.

With a tree-sitter grammar (JS/TS, Go, Java, Rust, C/C++) comments are found exactly; comments that
change what the build does are kept (Go `//go:` and `// +build` directives, a cgo preamble,
TypeScript `@ts-` pragmas and `///` directives). Without a grammar, only whole-line comments go, and
only in files with no multi-line strings that could hold comment-like lines. Lines inside multi-line
strings are never touched; runs of blank lines shrink to one (Go needs the blank line after a
build constraint).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import tree_sitter as ts

from referee.tools.static.langs import parser

COMMENTS = "comments removed"
BLANKS = "blank lines collapsed"

_COMMENT_NODES = {"comment", "line_comment", "block_comment"}
_STRINGY = ("string", "template", "text_block", "heredoc")
_KEEP = {
    "go": ("//go:", "// +build", "//export", "//line"),
    "typescript": ("///", "@ts-"),
    "tsx": ("///", "@ts-", "@jsx"),
    "javascript": ("@ts-", "@jsx", "@flow"),
}
_LINE_PREFIX = {
    "ruby": "#",
    "shell": "#",
    "perl": "#",
    "r": "#",
    "elixir": "#",
    "kotlin": "//",
    "swift": "//",
    "csharp": "//",
    "scala": "//",
    "dart": "//",
    "php": "//",
    "lua": "--",
    "sql": "--",
}
_MULTILINE_STRINGS = re.compile(r'"""|\'\'\'|<<|`|^=begin|^=pod|\[\[|@"', re.MULTILINE)


class Unparsable(ValueError):
    """The file is better left as it is (a syntax error, or no safe way to perturb it)."""


def strip_parsed(text: str, language: str) -> tuple[str, list[str]]:
    """Remove comments found by the language's grammar and collapse blank lines.

    Args:
        text: The source.
        language: A tree-sitter language name (`referee.tools.static.langs`).

    Returns:
        The new text and the transforms that changed something.

    Raises:
        Unparsable: The grammar found a syntax error.
    """
    data = text.encode("utf-8")
    root = parser(language).parse(data).root_node
    if root.has_error:
        raise Unparsable(f"the {language} grammar reports a syntax error")
    nodes = list(_walk(root))
    comments = [n for n in nodes if n.type in _COMMENT_NODES and not _kept(n, language)]
    if language == "go" and re.search(rb'^import\s+"C"', data, re.MULTILINE):
        comments = []  # the comment above `import "C"` is C code for cgo
    verbatim = _string_rows(nodes)
    cut, emptied = _cut(data, comments)
    out = _collapse(cut.decode("utf-8"), verbatim, emptied)
    return out, _labels(text, bool(comments))


def strip_plain(text: str, language: str | None) -> tuple[str, list[str]]:
    """Remove whole-line comments (when the language is known and safe) and collapse blank lines.

    Args:
        text: The source.
        language: A language name from `referee.tools.static.paths.language_of`, or None.

    Returns:
        The new text and the transforms that changed something.

    Raises:
        Unparsable: No safe way to perturb this language, or the file has multi-line strings.
    """
    prefix = _LINE_PREFIX.get(language or "")
    if prefix is None:
        raise Unparsable(f"no safe perturbation is known for {language or 'this kind of file'}")
    if _MULTILINE_STRINGS.search(text):
        raise Unparsable(
            "multi-line strings could hold comment-like lines and significant blank lines"
        )
    lines = text.split("\n")
    emptied = {
        row
        for row, line in enumerate(lines)
        if line.lstrip().startswith(prefix) and not (row == 0 and line.startswith("#!"))
    }
    kept = ["" if row in emptied else line for row, line in enumerate(lines)]
    return _collapse("\n".join(kept), set(), emptied), _labels(text, bool(emptied))


def _walk(node: ts.Node) -> Iterator[ts.Node]:
    yield node
    for child in node.children:
        yield from _walk(child)


def _kept(node: ts.Node, language: str) -> bool:
    text = (node.text or b"").decode("utf-8", "replace")
    return any(
        marker in text[:40] if marker.startswith("@") else text.startswith(marker)
        for marker in _KEEP.get(language, ())
    )


def _string_rows(nodes: list[ts.Node]) -> set[int]:
    """Rows inside multi-line string literals, whose lines are content and must stay as they are."""
    rows: set[int] = set()
    for node in nodes:
        if (
            any(word in node.type for word in _STRINGY)
            and node.end_point.row > node.start_point.row
        ):
            rows.update(range(node.start_point.row + 1, node.end_point.row + 1))
    return rows


def _cut(data: bytes, comments: list[ts.Node]) -> tuple[bytes, set[int]]:
    """Replace each comment by a space (tokens around it stay apart), keeping its line breaks."""
    out, last, rows = bytearray(), 0, set[int]()
    for node in sorted(comments, key=lambda n: n.start_byte):
        if node.start_byte < last:
            continue
        out += (
            data[last : node.start_byte]
            + b" "
            + b"\n" * data.count(b"\n", node.start_byte, node.end_byte)
        )
        rows.update(range(node.start_point.row, node.end_point.row + 1))
        last = node.end_byte
    return bytes(out + data[last:]), rows


def _collapse(text: str, verbatim: set[int], emptied: set[int]) -> str:
    """Drop lines a removed comment emptied, strip trailing spaces, shrink blank runs to one
    line."""
    kept: list[str] = []
    for row, line in enumerate(text.split("\n")):
        if row in verbatim:
            kept.append(line)
            continue
        line = line.rstrip()
        if not line and (row in emptied or (kept and not kept[-1])):
            continue
        kept.append(line)
    return "\n".join(kept).strip("\n") + "\n"


def _labels(original: str, comments: bool) -> list[str]:
    blanks = re.search(r"\n[ \t]*\n[ \t]*\n", original) is not None
    return [label for label, done in ((COMMENTS, comments), (BLANKS, blanks)) if done]
