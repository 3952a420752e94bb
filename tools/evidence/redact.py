"""Secrets out of evidence: the same engine as the static secret check.

Two sources of secrets are replaced before anything is stored or returned:
- whatever betterleaks finds in the text (``[REDACTED:<rule_id>]``), including the paired parts of
  multi-part rules such as an AWS key id with its secret key;
- values the caller knows to be secret, usually taken from the command's environment
  (``[REDACTED:env]``).

Every occurrence of a found value is replaced, not only the one at the reported position: a token
printed twice must not survive once. When betterleaks fails, known values are still replaced and
``Redactor.degraded`` says what was lost.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence

import betterleaks

from referee.tools.evidence.forms import encoded_forms, split_pattern
from referee.tools.evidence.shapes import find_shapes

__all__ = ["MIN_SECRET_LENGTH", "Redactor", "secret_env_values"]

logger = logging.getLogger(__name__)

MIN_SECRET_LENGTH = 6  # shorter known values ("1", "true", "dev") would shred ordinary output
_SECRET_NAME = re.compile(
    r"TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|API_?KEY|PRIVATE_?KEY|CREDENTIAL|ACCESS_?KEY"
    r"|AUTH(?!OR)|(?:^|_)KEY$|(?:^|_)DSN$",
    re.IGNORECASE,
)
# Names that match above but hold locations, not secrets (SSH_AUTH_SOCK, GIT_ASKPASS_PATH …).
_LOCATION_NAME = re.compile(r"_(SOCK|DIR|PATH|FILE)$", re.IGNORECASE)


def secret_env_values(env: Mapping[str, str]) -> list[str]:
    """Values of variables whose names look secret, long enough to be worth redacting.

    Args:
        env: Variable names and values (a check's env, or the environment a child inherits).

    Returns:
        The distinct values, longest first, of names such as ``MY_API_TOKEN``, ``DB_PASSWORD``,
        ``AWS_SECRET_ACCESS_KEY``, ``STRIPE_KEY`` whose value has at least 6 characters.
    """
    values = {
        value
        for name, value in env.items()
        if _SECRET_NAME.search(name)
        and not _LOCATION_NAME.search(name)
        and len(value) >= MIN_SECRET_LENGTH
    }
    return sorted(values, key=lambda value: (-len(value), value))


class Redactor:
    """Replaces secrets in text with ``[REDACTED:<rule_id>]`` or ``[REDACTED:env]``."""

    def __init__(self, extra_values: Iterable[str] = ()) -> None:
        """Build a redactor.

        Args:
            extra_values: Known secret values; those shorter than 6 characters are ignored.
        """
        self._known = {value: "env" for value in extra_values if len(value) >= MIN_SECRET_LENGTH}
        self._known_plan = _Plan.of(self._known)
        self.degraded: str | None = None  # why the last scan fell back to known values only

    def redact(self, text: str) -> str:
        """Return the text with every secret replaced.

        Args:
            text: Any text (a log, a command line, a message).

        Returns:
            The redacted text.
        """
        return self.redact_all([text])[0]

    def redact_all(self, texts: Sequence[str]) -> list[str]:
        """Redact several texts with one scan over all of them.

        A secret found in one text is replaced in all, and context spread over them counts: an AWS
        key id on stdout and its secret key on stderr are found as the pair they are.

        Args:
            texts: The texts, e.g. stdout, stderr and the command line.

        Returns:
            The redacted texts, in the same order.
        """
        found = self._scan("\n".join(texts))
        # A known value is labelled env, whatever rule saw it.
        plan = _Plan.of({**found, **self._known}) if found else self._known_plan
        return [plan.apply(text) for text in texts]

    def _scan(self, text: str) -> dict[str, str]:
        if not text.strip():
            return {}
        try:
            findings = betterleaks.scan_string(_scannable(text))
        except (betterleaks.BetterleaksError, OSError) as exc:
            self.degraded = (
                f"betterleaks failed ({exc}); only known values and credential shapes were redacted"
            )
            logger.warning("redaction degraded: %s", self.degraded)
            return {shape.value: shape.rule for shape in find_shapes(text)}
        self.degraded = None
        found = {shape.value: shape.rule for shape in find_shapes(text)}
        return {**found, **dict(_found_values(findings))}


def _scannable(text: str) -> str:
    # The binding hands the text to C as a NUL-terminated UTF-8 string: a NUL would end the scan
    # early and a lone surrogate would not encode. Replacements keep every other character as is.
    cleaned = text.replace("\0", "\n")
    try:
        cleaned.encode("utf-8")
    except UnicodeEncodeError:
        cleaned = cleaned.encode("utf-8", "replace").decode("utf-8")
    return cleaned


def _found_values(findings: Iterable[betterleaks.Finding]) -> Iterator[tuple[str, str]]:
    for finding in findings:
        if value := finding.match.value or finding.match.full:
            yield value, finding.rule_id
        yield from _component_values(finding)


def _component_values(finding: betterleaks.Finding) -> Iterator[tuple[str, str]]:
    # Multi-part rules (an AWS key id with its secret key) report the other parts here.
    for component_set in finding.raw.get("component_sets") or []:
        for component in component_set.get("components") or []:
            if part := (component.get("match") or {}).get("value"):
                yield part, component.get("rule_id") or finding.rule_id


class _Plan:
    """How to replace a set of secrets: their plain and encoded forms in one pass, then the split
    forms of those whose start or end shows up at all (the split search is the slow one)."""

    def __init__(self, forms: dict[str, str], split: dict[str, str]) -> None:
        ordered = sorted(forms, key=len, reverse=True)  # a secret containing another goes whole
        self._forms = forms
        self._literal = re.compile("|".join(map(re.escape, ordered))) if ordered else None
        self._split = split

    @classmethod
    def of(cls, labels: Mapping[str, str]) -> _Plan:
        forms = dict(labels)
        for value, label in labels.items():
            for form in encoded_forms(value):
                forms.setdefault(form, label)
        return cls(forms, dict(labels))

    def apply(self, text: str) -> str:
        if self._literal is not None:
            text = self._literal.sub(lambda m: f"[REDACTED:{self._forms[m.group(0)]}]", text)
        compact = "".join(text.split()) if self._split else ""
        for value, label in self._split.items():
            if value[:4] in compact or value[-4:] in compact:
                pattern = split_pattern([value])
                assert pattern is not None
                text = pattern.sub(f"[REDACTED:{label}]", text)
        return text
