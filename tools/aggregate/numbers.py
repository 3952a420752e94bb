"""A number however a judge writes it: digits, powers, products, fractions, words.

The hold-out guard (holdout_runs.py) withholds an issue that repeats a value only a hidden run
printed. A judge quoting `add(10**20, 1)` may write `1e20`, `10²⁰`, `10 ** 20`, `pow(10, 20)`,
`1×10^20`, `100,000,000,000,000,000,000` or "one hundred quintillion": the same value. So a text
is read twice, as written and with its spellings of numbers rewritten into arithmetic
(`spelled_out`), and every token that is arithmetic over literal numbers stands for its value
(`magnitude`). What is recognised is the class, a value computed from literals by `*`, `/` and
powers, or said in English number words; not a list of the spellings seen.

`+` and `-` between numbers are left alone: `2026-12-07` is a date and `1-10` a range, not the
values 2007 and -9.
"""

from __future__ import annotations

import ast
import math
import re
from decimal import Context

__all__ = ["magnitude", "spelled_out"]

_MIN_LENGTH = 3  # `#42` says too little; `#100` and `#1e+20` say what was asked
_MAX_BITS = 4096  # a power past this is no test's value, and is not worked out
_EXACT_BELOW = 10**15  # integers below this keep every digit; larger ones, 15 significant
_FIFTEEN = Context(prec=15)

_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
_RAISED = re.compile(r"(?<=[\d)])([⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)")
# Digit groups: `1,000,000`, `1 000 000` (two groups or more when spaced: `tests 1 234` stays).
_COMMAS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_SPACED_GROUPS = re.compile(r"(?<![\d.])\d{1,3}(?: \d{3}){2,}(?![\d.])")
# An operator between numbers, spaces around it dropped: `10 ** 20`, `1 × 10 ^ 20`, `2e21 / 20`.
_OPERATOR = re.compile(r"(?<=[\d)])\s*(\*\*|\^|\*|×|·|/)\s*(?=[\d(+-])")
_NUMBER = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?"
_POW = re.compile(rf"(?<![\w.])(?:\w+\.)?pow\(\s*({_NUMBER})\s*,\s*({_NUMBER})\s*\)")
_TO_THE = re.compile(
    rf"({_NUMBER}) to the (?:power of )?({_NUMBER})(?:st|nd|rd|th)?(?: power)?(?!\w)"
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
_WORD = "|".join(sorted([*_UNITS, *_TENS, *_SCALES, "hundred"], key=len, reverse=True))
# A run of number words, led by digits or not: "one hundred quintillion", "twenty-one thousand",
# "100 quintillion", "2.5 million".
_SAID = re.compile(
    rf"(?<![\w.])(?:(?:{_NUMBER})[ -]+)?(?:(?:{_WORD})(?:[ -]+(?:and[ -]+)?|(?![\w-])))+",
)


def spelled_out(folded: str) -> str:
    """The text (casefolded) with each spelling of a number rewritten as arithmetic on digits."""
    text = _RAISED.sub(lambda m: "**" + m.group(1).translate(_SUPERSCRIPT), folded)
    text = _BRACED.sub(lambda m: "**" + (m.group(1) or m.group(2)), text)
    text = _COMMAS.sub("", text)
    text = _SPACED_GROUPS.sub(lambda m: m.group(0).replace(" ", ""), text)
    text = _SAID.sub(_said, text)
    text = _POW.sub(r"\1**\2", text)
    text = _TO_THE.sub(r"\1**\2", text)
    return _OPERATOR.sub(r"\1", text)


def magnitude(token: str) -> str | None:
    """The absolute value a token of literal arithmetic spells (`10**20`, `1e20`, `1*10**20`,
    `2e21/20`, `0x56bc75e2d63100000`), in one canonical form; None for any other token, and for a
    value too short to say anything."""
    spelled = token.replace("_", "").replace("^", "**").replace("×", "*").replace("·", "*")
    try:
        if re.fullmatch(r"[+-]?0[xob][0-9a-f]+", spelled):
            value: int | float = int(spelled, 0)
        elif _ARITHMETIC.fullmatch(spelled) and any(c.isdigit() for c in spelled):
            value = _evaluate(ast.parse(spelled, mode="eval").body)
        else:
            return None
    except (SyntaxError, ValueError, OverflowError, ZeroDivisionError, RecursionError):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    canonical = "#" + _canonical(abs(value))
    return canonical if len(canonical) > _MIN_LENGTH else None


def _canonical(value: int | float) -> str:
    """Integers exactly while a float holds them; past that (and for fractions) 15 significant
    digits, so that `10**23` and `1e23` are one value."""
    if isinstance(value, float) and value.is_integer() and value < _EXACT_BELOW:
        value = int(value)
    if isinstance(value, int) and value < _EXACT_BELOW:
        return str(value)
    return f"{_FIFTEEN.create_decimal(value).normalize(_FIFTEEN):e}"


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
    seen = False
    for word in words:
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
