"""A shell command line (a package.json script, a `shell: true` check) planned segment by segment.

Only `A && B && …` is rewritten: the first segment whose runner referee knows is asked for a
report, the others run as written. Any other shell syntax (pipes, `||`, `;`, substitutions) makes
the outcome of the line something referee cannot attribute, so it gets advice instead.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable

from referee.tools.runners.base import Advice, Call, Plan, join_words
from referee.tools.runners.wrappers import split_wrappers

__all__ = ["Dispatch", "plan_line"]

Dispatch = Callable[[Call], Plan | Advice]
_OTHER_SYNTAX = {"||", ";", "|", "&", ">", "<", ">>", "<<", "(", ")", ";;", "|&", ">&", "<&"}


def plan_line(line: str, call: Call, dispatch: Dispatch) -> Plan | Advice:
    """Plan `line` (run by /bin/sh) whose test runner is one of its `&&` segments."""
    segments = _segments(line)
    if isinstance(segments, Advice):
        return segments
    planned: Plan | None = None
    advice: Advice | None = None
    texts: list[str] = []
    before: list[str] = []
    for tokens in segments:
        start = split_wrappers(tokens)
        result = None if planned else dispatch(call.with_command(tokens[start:], tokens[:start]))
        if isinstance(result, Plan):
            planned, at = result, len(texts)
            texts.append(result.argv[0] if result.shell else join_words(result.argv))
            continue
        advice = advice or (result if isinstance(result, Advice) and result.runner else None)
        if planned is None:
            before.append(join_words(tokens))
            texts.append(_marked(join_words(tokens), len(before)))
        else:
            texts.append(join_words(tokens))
    if planned is None:
        return advice or Advice(None, _unknown(line))
    return Plan(
        runner=planned.runner,
        argv=(" && ".join(texts),),
        report=planned.report,
        env=planned.env,
        shell=True,
        notes=planned.notes,
        segments=tuple(before),
        line=tuple(texts),
        runner_at=at,
        inner=planned,
    )


# Printed on stderr when a segment before the runner fails, so that a report never written can
# say which one stopped the line. (A test could print it too; it only words an unscored verdict.)
SEGMENT_FAILED = "referee: segment {index} failed with exit code"


def _marked(text: str, index: int) -> str:
    """`seg`, which reports its own failure and stops the line with the same exit code."""
    marker = SEGMENT_FAILED.format(index=index)
    return f'{text} || {{ s=$?; echo "{marker} $s" >&2; exit $s; }}'


def _segments(line: str) -> list[list[str]] | Advice:
    # Not POSIX mode: each word keeps its quotes, so words referee does not touch reach the shell
    # exactly as written (a quoted glob stays quoted, an unquoted one is still expanded).
    lexer = shlex.shlex(line, posix=False, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError as exc:
        return Advice(None, f"the command line cannot be read ({exc})")
    odd = [t for t in tokens if t in _OTHER_SYNTAX or "$(" in t or "`" in t]
    if odd:
        return Advice(None, f"`{line}` uses shell syntax ({odd[0]}) " + _REWRITE_HINT)
    segments: list[list[str]] = [[]]
    for token in tokens:
        if token == "&&":
            segments.append([])
        else:
            segments[-1].append(token)
    return [s for s in segments if s]


_REWRITE_HINT = (
    "that referee does not rewrite; call the test runner directly in the check (or in a script of"
    " its own), or make it write a JUnit XML report and name that file in the check's `junit`"
    " field"
)


def _unknown(line: str) -> str:
    return (
        f"no part of `{line}` is a test runner referee knows; make the runner write a JUnit XML"
        " report and name that file in the check's `junit` field"
    )
