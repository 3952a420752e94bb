"""A number however a judge writes it: digits, powers, products, fractions, words.

The hold-out guard (holdout_runs.py) withholds an issue that repeats a value only a hidden run
printed. A judge quoting `add(10**20, 1)` may write `1e20`, `10²⁰`, `10 ** 20`, `pow(10, 20)`,
`1×10^20`, `100,000,000,000,000,000,000` or "one hundred quintillion": the same value. So a text
is read twice, as written and with its spellings of numbers rewritten into arithmetic
(`spelled_out`), and every token that is arithmetic over literal numbers stands for its value
(`magnitudes`). What is recognised is the class, a value computed from literals by `*`, `/` and
powers, or said in English number words; not a list of the spellings seen.

`+` and `-` between numbers are left alone: `2026-12-07` is a date and `1-10` a range, not the
values 2007 and -9.
"""

from __future__ import annotations

import ast
import math
import re
import unicodedata
from decimal import Context
from typing import Any

__all__ = ["magnitudes", "spelled_out"]

_MIN_LENGTH = 3  # `42` says too little; `100` and `1e+20` say what was asked
_MAX_BITS = 4096  # a power past this is no test's value, and is not worked out
_EXACT_BELOW = 10**15  # integers below this keep every digit; larger ones, 15 significant
_FIFTEEN = Context(prec=15)

_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
# Operators by any sign: `∗` and `⋅` multiply, `∕` and `÷` divide, as `*` and `/` do.
_SIGNS = str.maketrans({"×": "*", "·": "*", "∗": "*", "⋅": "*", "∕": "/", "÷": "/"})
_TIMES_X = re.compile(r"(?<=\d)\s*x\s*(?=10\s*(?:\*\*|\^))")  # `1x10^20`
_FORTRAN = re.compile(r"(?<=[\d.])d(?=[+-]\d)")  # `1.0D+20`
_DECIMAL_COMMA = re.compile(r"(?<=\d),(?=\d+e[+-]?\d)")  # `1,0e20`
_APOSTROPHES = re.compile(r"(?<=\d)['’](?=\d{3}(?!\d))")  # `1'000'000`
_UNDERSCORES = re.compile(r"(?<=\d)_(?=\d)")  # `100_000_000`, as Python, Rust, JS and Java write it
_DOT_GROUPS = re.compile(r"(?<![\d.])\d{1,3}(?:\.\d{3}){2,}(?![\d.])")  # `1.000.000`
_LAKH_GROUPS = re.compile(r"(?<!\d)(?<!\d,)\d{1,2}(?:,\d{2})+,\d{3}(?!\d|,\d)")  # `10,00,000`
_MATHML = re.compile(r"<msup>\s*<mn>\s*([\d.]+)\s*</mn>\s*<mn>\s*([\d.+-]+)\s*</mn>\s*</msup>")
# A group of literal arithmetic in parentheses, not a call's arguments: `(10)^(20)`, `(10^5)^2`.
_GROUP = re.compile(r"(?<![\w)])\(\s*([0-9.e+\-*/^ ]+?)\s*\)")
_RAISED = re.compile(r"(?<=[\d)])([⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)")
# Digit groups: `1,000,000`, `1 000 000` (two groups or more when spaced: `tests 1 234` stays).
_COMMAS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_SPACED_GROUPS = re.compile(r"(?<![\d.])\d{1,3}(?: \d{3}){2,}(?![\d.])")
# An operator between numbers, spaces around it dropped: `10 ** 20`, `1 × 10 ^ 20`, `2e21 / 20`.
_OPERATOR = re.compile(r"(?<=[\d)])\s*(\*\*|\^|\*|×|·|/)\s*(?=[\d(+-])")
_NUMBER = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?"
_POW = re.compile(rf"(?<![\w.])(?:\w+\.)?pow\(\s*({_NUMBER})\s*,\s*({_NUMBER})\s*\)")
_TO_THE = re.compile(
    rf"({_NUMBER}) (?:raised )?to the (?:power of )?({_NUMBER})(?:st|nd|rd|th)?(?: power)?(?!\w)"
)
# An exponent set apart: `10^{20}` (TeX), `10<sup>20</sup>` (HTML), `10**(20)`.
_BRACED = re.compile(rf"(?:\^|\*\*)\s*[{{(]\s*({_NUMBER})\s*[}})]|<sup>\s*({_NUMBER})\s*</sup>")
_ARITHMETIC = re.compile(r"[0-9.e+\-*/]+")

_UNITS = {
    w: n
    for n, w in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
        ]
    )
}
_TENS = {
    w: 10 * n
    for n, w in enumerate(
        ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"], 2
    )
}
_SCALES = {
    w: 10 ** (3 * n)
    for n, w in enumerate(
        [
            "thousand",
            "million",
            "billion",
            "trillion",
            "quadrillion",
            "quintillion",
            "sextillion",
            "septillion",
            "octillion",
            "nonillion",
            "decillion",
        ],
        1,
    )
}
# The SI prefixes said as words ("100 exa"), and the Indian scales.
_SCALES |= {"kilo": 10**3, "mega": 10**6, "giga": 10**9, "tera": 10**12, "peta": 10**15}
_SCALES |= {"exa": 10**18, "zetta": 10**21, "yotta": 10**24, "lakh": 10**5, "crore": 10**7}
# Ordinal number words as the cardinal ones ("to the twentieth power"): the irregular ones, and
# the rule (`-ieth` is `-y`, else `-th` is dropped).
_ORDINALS = {"first": "one", "second": "two", "third": "three", "fifth": "five"}
_ORDINALS |= {"eighth": "eight", "ninth": "nine", "twelfth": "twelve"}
_ORDINALS |= {f"{t[:-1]}ieth": t for t in _TENS}
_ORDINALS |= {f"{w}th": w for w in (*_UNITS, *_SCALES, "hundred") if f"{w}th" not in _ORDINALS}
_ORDINAL = re.compile(rf"(?<![\w-])({'|'.join(sorted(_ORDINALS, key=len, reverse=True))})(?![\w-])")
_WORD = "|".join(sorted([*_UNITS, *_TENS, *_SCALES, "hundred"], key=len, reverse=True))
# A run of number words, led by digits or not: "one hundred quintillion", "twenty-one thousand",
# "100 quintillion", "2.5 million".
_SAID = re.compile(
    rf"(?<![\w.])(?:(?:{_NUMBER})[ -]+)?(?:(?:{_WORD})(?:[ -]+(?:and[ -]+)?|(?![\w-])))+",
)


def spelled_out(folded: str) -> str:
    """The text (casefolded) with each spelling of a number rewritten as arithmetic on digits."""
    text = _ascii_digits(folded).translate(_SIGNS)
    # Each rewriting runs where its mark is in the text at all (most runner output has none).
    for mark, pattern, replacement in _REWRITES:
        if mark is None or mark in text:
            text = pattern.sub(replacement, text)
    for _ in range(_DEPTH):
        grouped = _GROUP.sub(_worked_out, text)
        if grouped == text:
            break
        text = _OPERATOR.sub(r"\1", grouped)
    return text


_DEPTH = 4  # parentheses inside parentheses, worked out from the inside this many levels


def _ascii_digits(text: str) -> str:
    """Digits of any script as ASCII (`１２`, `١٢`, `१२` are 12): `int()` reads them alike."""
    if text.isascii():
        return text
    return re.sub(r"\d", lambda m: str(unicodedata.decimal(m.group(0), 0)), text)


def _worked_out(match: re.Match[str]) -> str:
    """A parenthesised group of literal arithmetic as its value, or as it was."""
    inner = match.group(1).replace(" ", "").replace("^", "**")
    try:
        value = _evaluate(ast.parse(inner, mode="eval").body)
    except (SyntaxError, ValueError, OverflowError, ZeroDivisionError, RecursionError):
        return match.group(0)
    if isinstance(value, float) and not math.isfinite(value):
        return match.group(0)
    return str(value) if isinstance(value, int) else repr(value)


def magnitudes(token: str) -> tuple[str, ...]:
    """The absolute value a token of literal arithmetic spells (`10**20`, `1e20`, `1*10**20`,
    `2e21/20`, `0x56bc75e2d63100000`), in its canonical forms; none for any other token, and for
    a value too short to say anything."""
    spelled = token.replace("_", "").replace("^", "**").translate(_SIGNS)
    try:
        if re.fullmatch(r"[+-]?0[xob][0-9a-f]+", spelled):
            value: int | float = int(spelled, 0)
        elif re.fullmatch(r"[+-]?0x[0-9a-f]*\.?[0-9a-f]*p[+-]?\d+", spelled):
            value = float.fromhex(spelled)
        elif _ARITHMETIC.fullmatch(spelled) and any(c.isdigit() for c in spelled):
            value = _evaluate(ast.parse(spelled, mode="eval").body)
        else:
            return ()
    except (SyntaxError, ValueError, OverflowError, ZeroDivisionError, RecursionError):
        return ()
    if isinstance(value, float) and not math.isfinite(value):
        return ()
    return tuple("#" + c for c in _canonical(abs(value)) if len(c) >= _MIN_LENGTH)


def _canonical(value: int | float) -> tuple[str, ...]:
    """An integer exactly, every digit (so that 2**64 - 1 is not 2**64); a float, and an integer
    a float's 15 significant digits hold exactly (`10**20`), also by those digits, so that
    `10**23` and `1e23` are one value."""
    if isinstance(value, float) and value.is_integer() and value < _EXACT_BELOW:
        value = int(value)
    if isinstance(value, int):
        short = _FIFTEEN.create_decimal(value).normalize(_FIFTEEN)
        round_ = value >= _EXACT_BELOW and int(short) == value
        return (str(value), f"{short:e}") if round_ else (str(value),)
    return (f"{_FIFTEEN.create_decimal(value).normalize(_FIFTEEN):e}",)


def _evaluate(node: ast.expr) -> int | float:
    """Literal arithmetic only: numbers, unary signs, `*`, `/` and `**` within _MAX_BITS."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        operand = _evaluate(node.operand)
        return -operand if isinstance(node.op, ast.USub) else operand
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult | ast.Div | ast.Pow):
        left, right = _evaluate(node.left), _evaluate(node.right)
        if isinstance(node.op, ast.Pow):
            return _power(left, right)
        if isinstance(node.op, ast.Div):
            return left / right
        if _bits(left) + _bits(right) > _MAX_BITS:
            raise OverflowError("product too large")
        return left * right
    raise ValueError("not literal arithmetic")


def _power(base: int | float, exponent: int | float) -> int | float:
    if abs(exponent) * max(_bits(base), 1) > _MAX_BITS:
        raise OverflowError("power too large")
    if isinstance(exponent, int) and exponent < 0:
        return float(base) ** exponent
    return base**exponent


def _bits(value: int | float) -> int:
    return math.ceil(math.log2(abs(value) + 1))


def _said(match: re.Match[str]) -> str:
    """A run of number words as digits, the separator after it kept; the run as it was when it
    says no number ("and" alone, a stray scale word)."""
    run = match.group(0)
    words = [w for w in re.split(r"[ -]+", run.strip(" -")) if w and w != "and"]
    total: int | float = 0
    current: int | float = 0
    seen = scaled = False
    for word in words:
        if word in _SCALES and scaled and not current:
            total *= _SCALES[word]  # "a billion billion": a scale of the scale before it
            continue
        scaled = word in _SCALES
        if word in _UNITS or word in _TENS:
            current += _UNITS.get(word, _TENS.get(word, 0))
        elif word == "hundred":
            current = (current or 1) * 100
        elif word in _SCALES:
            total += (current or 1) * _SCALES[word]
            current = 0
        else:
            try:
                current = int(word) if word.isdigit() else float(word)
            except ValueError:
                return run
            continue
        seen = True
    if not seen:
        return run
    value = total + current
    digits = str(int(value)) if float(value).is_integer() else repr(value)
    return digits + run[len(run.rstrip(" -")) :]


# (a substring the pattern needs, or None; the pattern; its replacement), in order.
_REWRITES: tuple[tuple[str | None, re.Pattern[str], Any], ...] = (
    (None, _RAISED, lambda m: "**" + m.group(1).translate(_SUPERSCRIPT)),
    ("<msup", _MATHML, r"\1**\2"),
    (None, _BRACED, lambda m: "**" + (m.group(1) or m.group(2))),
    ("d", _FORTRAN, "e"),
    ("x", _TIMES_X, "*"),
    (",", _DECIMAL_COMMA, "."),
    (None, _APOSTROPHES, ""),
    ("_", _UNDERSCORES, ""),
    (".", _DOT_GROUPS, lambda m: m.group(0).replace(".", "")),
    (",", _LAKH_GROUPS, lambda m: m.group(0).replace(",", "")),
    (",", _COMMAS, ""),
    (" ", _SPACED_GROUPS, lambda m: m.group(0).replace(" ", "")),
    ("th", _ORDINAL, lambda m: _ORDINALS[m.group(1)]),
    (None, _SAID, _said),
    ("pow(", _POW, r"\1**\2"),
    (" to the ", _TO_THE, r"\1**\2"),
    (None, _OPERATOR, r"\1"),
)
