"""Secrets out of evidence: every form of every secret referee knows, before anything is stored.

The secrets referee knows:
- values the caller knows to be secret, usually the command's secret-looking environment values
  and the signing key (``[REDACTED:env]``);
- whatever betterleaks and the credential shapes find in the text (``[REDACTED:<rule_id>]``),
  including the paired parts of multi-part rules such as an AWS key id with its secret key, and in
  the evaluated tree's files (`Redactor.learn_from`). A value found once is known from then on:
  it is redacted in every later text, and `generation` tells the recorder which earlier items to
  redact again.

Each is redacted in every cheap form a hostile test can print it in (forms.py: reversed, rot13,
any case, characters apart, hex, UTF-16 hex, base64, base32, base85, escaped, inside a compressed
blob), and so is any fragment of 8 characters or more (a secret printed in halves). The search
runs in time linear in the text (RE2 automata over a few views of it, detect.py). When
betterleaks fails, known values are still replaced and ``Redactor.degraded`` says what was lost.
"""

from __future__ import annotations

import functools
import logging
import re
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence

import betterleaks

from referee.tools.evidence.detect import find_secrets
from referee.tools.evidence.matcher import Hit, Matcher
from referee.tools.evidence.shapes import find_shapes
from referee.tools.evidence.views import compatible

__all__ = ["MIN_SECRET_LENGTH", "Disguises", "Redactor", "secret_env_values"]

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
    """Replaces secrets in text with ``[REDACTED:<rule_id>]`` or ``[REDACTED:env]``.

    Safe to share between threads: evidence is recorded from several at once.
    """

    def __init__(self, extra_values: Iterable[str] = ()) -> None:
        """Build a redactor.

        Args:
            extra_values: Known secret values; those shorter than 6 characters are ignored.
        """
        self._known = {value: "env" for value in extra_values if len(value) >= MIN_SECRET_LENGTH}
        self._lock = threading.Lock()
        self._matcher: Matcher | None = None
        self.generation = 0  # grows by one whenever a secret is learned
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
        key id on stdout and its secret key on stderr are found as the pair they are, and a secret
        printed half on each is redacted in both.

        Args:
            texts: The texts, e.g. stdout, stderr and the command line.

        Returns:
            The redacted texts, in the same order.
        """
        return _replaced(texts, self._learn(self._scan("\n".join(texts))))

    def reapply(self, texts: Sequence[str]) -> list[str]:
        """Redact texts with the secrets known now, without scanning them for new ones.

        For text redacted before a secret was learned (an earlier evidence item), and for text
        already scanned.
        """
        return _replaced(texts, self._learn({}))

    def learn_from(self, text: str) -> None:
        """Know from now on every secret the scan finds in `text` (a file of the evaluated tree:
        a test may print the key hard-coded next to it)."""
        self._learn(self._scan(text))

    def _learn(self, found: Mapping[str, str]) -> Matcher:
        with self._lock:
            # A known value keeps its label (env), whatever rule saw it.
            new = {
                value: label
                for value, label in found.items()
                if value not in self._known and len(value) >= MIN_SECRET_LENGTH
            }
            if new:
                self._known.update(new)
                self._matcher = None
                self.generation += 1
            if self._matcher is None:
                self._matcher = _matcher(frozenset(self._known.items()))
            return self._matcher

    def _scan(self, text: str) -> dict[str, str]:
        if not text.strip():
            return {}
        found = {shape.value: shape.rule for shape in find_shapes(text)}
        try:
            findings = betterleaks.scan_string(_scannable(text))
        except (betterleaks.BetterleaksError, OSError) as exc:
            self.degraded = (
                f"betterleaks failed ({exc}); only known values and credential shapes were redacted"
            )
            logger.warning("redaction degraded: %s", self.degraded)
            return found
        self.degraded = None
        return {**found, **dict(_found_values(findings))}


class Disguises:
    """Finds some values' disguises in a text, not the values as they are: the same forms and
    classes a secret is redacted in (encoded, escaped, compressed, shifted, reordered), for
    stretches of `fragment` characters. The guard of a hold-out's text uses it (its plain text it
    matches itself, against what the generator may see)."""

    def __init__(self, values: Iterable[str], fragment: int) -> None:
        wanted = {value: "disguised" for value in values if len(value) >= MIN_SECRET_LENGTH}
        self._matcher = Matcher(wanted, fragment, plain=False)

    def found(self, text: str) -> bool:
        """Whether `text` shows a disguise of any of the values."""
        if not self._matcher or not text:
            return False
        return bool(find_secrets(compatible(text).encode("ascii", "replace"), self._matcher))


@functools.lru_cache(maxsize=8)
def _matcher(known: frozenset[tuple[str, str]]) -> Matcher:
    """The matcher of some secrets and their labels, shared by the redactors that know the same
    ones (every run of a process starts from the same environment's secrets): building the
    automata costs more than most of the scans it serves. A matcher is never changed once built."""
    return Matcher(dict(sorted(known)))


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


def _replaced(texts: Sequence[str], matcher: Matcher) -> list[str]:
    """The texts with every hit replaced, searched as one (a secret may straddle two)."""
    joined = "\n".join(texts)
    # One byte per character, compatibility characters (fullwidth …) read as their ASCII.
    hits = find_secrets(compatible(joined).encode("ascii", "replace"), matcher)
    if not hits:
        return list(texts)
    spans, out, at = iter(_merged(hits)), [], 0
    span = next(spans, None)
    for text in texts:
        end, pieces, cursor = at + len(text), [], at
        while span is not None and span.start < end:
            if span.end > cursor:
                pieces += [joined[cursor : max(span.start, cursor)], f"[REDACTED:{span.label}]"]
                cursor = min(span.end, end)
            if span.end > end:
                break  # it goes on in the next text
            span = next(spans, None)
        out.append("".join(pieces) + joined[cursor:end])
        at = end + 1
    return out


def _merged(hits: Iterable[Hit]) -> Iterator[Hit]:
    """Overlapping hits as one (labelled by the first), in order."""
    current: Hit | None = None
    for hit in sorted(hits):
        if current is not None and hit.start < current.end:
            current = current._replace(end=max(current.end, hit.end))
            continue
        if current is not None:
            yield current
        current = hit
    if current is not None:
        yield current
