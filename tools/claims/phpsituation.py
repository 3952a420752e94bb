"""PHP code that asks whether it runs under test, read from the tokens of tools/claims/php.py:
the rule of tools/claims/tssituation.py over statements instead of expressions.

What a PHP program reads of its situation: whether a class, function or constant exists
(`class_exists('PHPUnit\\Framework\\TestCase')`: only PHPUnit loads it), the environment and
`$_SERVER['argv']`, the backtrace, the files on disk. A statement is a finding where it reads one
and names a tell (concatenated strings folded, `PHPUnit\\…::class` words); a variable assigned
from either, or bound by `foreach (… as $frame)`, carries it to the statement that uses it.
Laravel's `runningUnitTests()` is the question itself.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from referee.tools.claims import messages as M
from referee.tools.claims.model import CODE_DETECTS_TESTS, Claim, Role, Scope
from referee.tools.claims.tells import Read, Tell, paired, situated, tell_of

__all__ = ["Token", "situations"]

Token = tuple[str, str, int]
"""(kind, text, offset): kind is string, word or punct."""

_PROCESS = frozenset(
    {"class_exists", "interface_exists", "trait_exists", "enum_exists", "function_exists"}
    | {"defined", "constant", "getenv", "debug_backtrace", "debug_print_backtrace"}
    | {"get_declared_classes", "get_included_files", "get_required_files"}
)
_FILES = frozenset(
    {"file_exists", "is_file", "is_readable", "file_get_contents", "fopen", "file", "glob"}
    | {"scandir"}
)
_GLOBALS = frozenset({"$_env", "$_server", "$globals", "$argv", "$http_env_vars"})
_ASKING = frozenset({"runningunittests"})
_ENDS = frozenset({";", "{", "}"})


@dataclass
class _Statement:
    tokens: list[Token]
    tells: list[Tell]
    reads: list[Read]
    variables: list[str]


def situations(
    path: str, source: str, tokens: list[Token], role: Role, scope: Scope
) -> Iterator[Claim]:
    """Every statement that asks whether PHPUnit runs it (in test code: reads an edited test)."""
    edited = scope.edited_tests if role == "test" else None
    statements = [_read(s, role, edited) for s in _statements(tokens)]
    tells: dict[str, list[Tell]] = {}
    reads: dict[str, list[Read]] = {}
    for statement in statements:
        for name in _bound(statement.tokens):
            if statement.tells:
                tells.setdefault(name, statement.tells)
            if statement.reads:
                reads.setdefault(name, statement.reads)
    for statement in statements:
        if not statement.tells and not statement.reads:
            continue
        told = statement.tells or [t for v in statement.variables for t in tells.get(v, [])]
        read = statement.reads or [r for v in statement.variables for r in reads.get(v, [])]
        found = paired(told, read)
        if found is not None:
            start = statement.tokens[0][2]
            line = source.count("\n", 0, start) + 1
            key = " ".join(t for _, t, _ in statement.tokens)
            message = f"{path}:{line} {M.detects(found[0].text, found[1].text)}"
            yield Claim(CODE_DETECTS_TESTS, line, message, f"{CODE_DETECTS_TESTS}|{key}")


def _statements(tokens: list[Token]) -> Iterator[list[Token]]:
    current: list[Token] = []
    for token in tokens:
        if [t for _, t, _ in current[-2:]] == ["<", "?"] and token[1].lower() == "php":
            current = []  # the opening tag is no part of the first statement
        elif token[1] in _ENDS:
            if current:
                yield current
            current = []
        else:
            current.append(token)
    if current:
        yield current


def _read(tokens: list[Token], role: Role, edited: tuple[str, ...] | None) -> _Statement:
    tells: list[Tell] = []
    reads: list[Read] = []
    for index, (kind, value, _) in enumerate(tokens):
        word = value.lower().lstrip("\\")
        following = tokens[index + 1][1] if index + 1 < len(tokens) else ""
        if kind != "word":
            continue
        if word in _ASKING and role == "source":
            tells.append(Tell("runner", f"{value}()"))
            reads.append(Read("process", f"{value}()"))
        elif following == "(" and (word in _PROCESS or word in _FILES):
            reads.append(Read("process" if word in _PROCESS else "file", f"{value}()"))
        elif word in _GLOBALS:
            reads.append(Read("process", value))
        elif "\\" in value and (tell := tell_of(value, edited)):
            tells.append(tell)
    tells += [t for v in _strings(tokens) if (t := tell_of(v, edited))]
    tells, reads = situated(tells, reads)
    return _Statement(tokens, tells, reads, _variables(tokens))


def _strings(tokens: list[Token]) -> Iterator[str]:
    """Every string of the statement, adjacent ones joined with `.` folded into one."""
    folded: str | None = None
    for index, (kind, value, _) in enumerate(tokens):
        if kind == "string":
            text = _unquote(value)
            joined = index >= 2 and tokens[index - 1][1] == "." and folded is not None
            folded = folded + text if joined and folded is not None else text
            yield folded
        elif value != ".":
            folded = None


def _unquote(literal: str) -> str:
    body = literal[1:-1]
    if literal.startswith("'"):
        return body.replace("\\\\", "\\").replace("\\'", "'")
    return body.replace("\\\\", "\\").replace('\\"', '"').replace("\\$", "$")


def _variables(tokens: list[Token]) -> list[str]:
    return [v for k, v, _ in tokens if k == "word" and v.startswith("$")]


def _bound(tokens: list[Token]) -> list[str]:
    """`$x = …` binds $x; `foreach (… as $k => $v)` binds $k and $v."""
    texts = [t for _, t, _ in tokens]
    if len(texts) > 2 and texts[0].startswith("$") and texts[1] == "=" and texts[2] != "=":
        return [texts[0]]
    if texts and texts[0].lower() == "foreach" and "as" in texts:
        return [t for t in texts[texts.index("as") + 1 :] if t.startswith("$")]
    return []
