"""PHP code read with a small tokenizer (no PHP grammar is installed): in test code, `exit` and
`die` end PHPUnit's run, and PHPUnit's own closing lines printed forge its report; in any code, a
statement that asks whether PHPUnit runs it (tools/claims/phpsituation.py).

The tokenizer drops comments and keeps string literals whole, so `exit` in a comment or inside a
string is no call, and a method or constant of that name (`->exit(`, `::exit`, `$exit`) is not
the language construct.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from referee.tools.claims import messages as M
from referee.tools.claims.model import HARNESS_MODIFIED, Claim, Role, Scope
from referee.tools.claims.patterns import protocol_line
from referee.tools.claims.phpsituation import Token, situations

__all__ = ["php_claims"]

_TOKEN = re.compile(
    r"(?P<comment>//[^\n]*|#(?!\[)[^\n]*|/\*.*?\*/)"
    r"|(?P<string>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")"
    r"|(?P<word>[$]?[A-Za-z_\\][A-Za-z0-9_\\]*)"
    r"|(?P<punct>->|::|\?->|[^\sA-Za-z0-9_])",
    re.DOTALL,
)
_EXITS = frozenset({"exit", "die"})
_ECHO = frozenset({"echo", "print", "printf", "fwrite", "fputs", "file_put_contents"})


def php_claims(path: str, source: str, scope: Scope, role: Role) -> list[Claim] | None:
    tokens = [
        (m.lastgroup or "", m.group(0), m.start())
        for m in _TOKEN.finditer(source)
        if m.lastgroup != "comment"
    ]
    found = list(situations(path, source, tokens, role, scope))
    if role == "test":  # a PHP script ends with exit as a matter of course
        found += _claims(path, source, tokens)
    return found


def _claims(path: str, source: str, tokens: list[Token]) -> Iterator[Claim]:
    for index, (kind, value, start) in enumerate(tokens):
        previous = tokens[index - 1][1] if index else ""
        line = source.count("\n", 0, start) + 1
        word = value.lower().lstrip("\\")
        if (
            kind == "word"
            and word in _EXITS
            and previous not in ("->", "::", "?->", "function", "const")
        ):
            yield _claim(path, line, M.ended(word), tokens, index)
        elif kind == "word" and word in _ECHO:
            literal = next((v for k, v, _ in tokens[index + 1 : index + 8] if k == "string"), None)
            printed = protocol_line(literal[1:-1].replace("\\n", "\n")) if literal else None
            if printed is not None:
                message = M.printed(printed)
                yield _claim(path, line, message, tokens, index)


def _claim(path: str, line: int, message: str, tokens: list[Token], index: int) -> Claim:
    statement = []
    for _, value, _ in tokens[index:]:
        statement.append(value)
        if value == ";" or len(statement) > 40:
            break
    return Claim(
        HARNESS_MODIFIED,
        line,
        f"{path}:{line} {message}",
        f"{HARNESS_MODIFIED}|{' '.join(statement)}",
    )
