"""Turning what referee ran into evidence items.

Rules every item follows, whatever produced it:
- Every text (stdout, stderr, command, argv, cwd, summary, test names and messages, string values
  in ``details``, text artifacts) is redacted in **one** scan, so context spread across them counts
  (an AWS key id on stdout pairs with its secret key on stderr) and a secret found in one is
  replaced in all.
- The full redacted streams go to ``<artifacts_dir>/<id>.stdout.log`` / ``.stderr.log`` (written
only
  when non-empty); inline copies are capped at ``inline_limit`` bytes each, head and tail.
- ``sha256`` covers the full redacted stdout bytes, a NUL, then the full redacted stderr bytes:
  exactly the bytes of the two log files.
- Artifact paths are stored absolute.

Raw output files belong to the caller, who usually keeps them in a temporary directory. The one
exception is a raw file inside ``artifacts_dir``: it is deleted after reading (or overwritten by the
redacted log), because unredacted output must never stay in the store.
"""

from __future__ import annotations

import codecs
import hashlib
import os
import re
import threading
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from referee.tools.evidence.redact import Redactor
from referee.tools.evidence.trees import rebuilt, strings_of
from referee.tools.models.evidence import EvidenceItem, EvidenceSource, TestOutcome
from referee.tools.process import ProcessResult, command_line
from referee.tools.text import encodable, strip_ansi

__all__ = ["EvidenceRecorder", "cap_text", "read_log"]

INLINE_LIMIT = 64 * 1024
# Test messages are trimmed here, after redaction: a secret cut in half before it would escape.
MESSAGE_LIMIT = 500
LOG_LIMIT = 16 * 1024 * 1024  # a runaway printer must not exhaust the server's memory
_MARKER_ROOM = 64  # bytes kept free for the marker line


def cap_text(text: str, limit: int) -> tuple[str, bool]:
    """Keep the head and tail of a text within ``limit`` UTF-8 bytes.

    Args:
        text: The text to cap.
        limit: Maximum size in UTF-8 bytes of the result (at least 64 to leave room for the marker).

    Returns:
        The text, or its head and tail around a line saying how many bytes were cut; and whether
        anything was cut.
    """
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text, False
    keep = max(limit - _MARKER_ROOM, 0)
    head_size, tail_size = keep // 2, keep - keep // 2
    head = data[:head_size].decode("utf-8", "ignore")  # "ignore" drops a character split by the cut
    tail = data[len(data) - tail_size :].decode("utf-8", "ignore") if tail_size else ""
    return f"{head}\n[... {len(data) - keep} bytes cut by referee ...]\n{tail}", True


def read_log(path: Path, limit: int = LOG_LIMIT) -> tuple[str, bool]:
    """Read a raw output file as text, keeping head and tail when it is larger than ``limit``,
    without terminal escape codes (tools/text.py).

    The cut falls on line ends, so a one-line secret is never split in two (a split secret would
    escape the scanner). Undecodable bytes become U+FFFD.

    Args:
        path: The file; a missing file reads as empty.
        limit: Maximum bytes to read.

    Returns:
        The text and whether it was cut.
    """
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return "", False
    with path.open("rb") as handle:
        if size <= limit:
            return strip_ansi(handle.read().decode("utf-8", "replace")), False
        head = handle.read(limit // 2)
        handle.seek(size - limit // 2)
        tail = handle.read()
    head, tail = head[: head.rfind(b"\n") + 1] or head, tail[tail.find(b"\n") + 1 :] or tail
    marker = f"[... {size - len(head) - len(tail)} bytes cut by referee ...]\n".encode()
    return strip_ansi((head + marker + tail).decode("utf-8", "replace")), True


class EvidenceRecorder:
    """Records the evidence of one evaluation run, with ids E1, E2, … in order."""

    def __init__(
        self,
        run_id: str,
        artifacts_dir: Path,
        redactor: Redactor,
        clock: Callable[[], datetime],
        inline_limit: int = INLINE_LIMIT,
        log_limit: int = LOG_LIMIT,
        sealed: tuple[Path, Collection[str]] | None = None,
    ) -> None:
        """Create a recorder.

        Args:
            run_id: The evaluation run the items belong to.
            artifacts_dir: Where logs and artifacts go (created on first use).
            redactor: Replaces secrets in everything recorded.
            clock: Gives the timestamp of each item (timezone-aware).
            inline_limit: Bytes of stdout and of stderr kept inline in an item.
            log_limit: Bytes of a raw output file read at most (head and tail beyond that).
            sealed: (folder, criterion ids): the artifacts of those criteria (hold-outs) go to
                that folder, outside the repository, instead of `artifacts_dir`.
        """
        self.run_id, self.artifacts_dir = run_id, artifacts_dir
        self._redactor, self._clock = redactor, clock
        self._inline_limit, self._log_limit = inline_limit, log_limit
        self._lock = threading.Lock()  # ids stay unique when items are recorded from worker threads
        self._count = 0
        self._items: list[EvidenceItem] = []
        self._known_at: dict[
            str, int
        ] = {}  # item id -> the redactor's generation it was redacted at
        self._sealed = sealed

    @property
    def items(self) -> list[EvidenceItem]:
        """Every recorded item, in id order."""
        with self._lock:
            return sorted(self._items, key=lambda item: int(item.id[1:]))

    def next_id(self) -> str:
        """Reserve the next evidence id (E1, E2, …)."""
        with self._lock:
            self._count += 1
            return f"E{self._count}"

    def record_process(
        self,
        result: ProcessResult,
        *,
        tool: str,
        summary: str,
        criterion_id: str | None = None,
        tests: Sequence[TestOutcome] = (),
        extra_artifacts: Sequence[Path] = (),
        details: Mapping[str, Any] | None = None,
    ) -> EvidenceItem:
        """Record a finished ``run_process``: its output files, exit code, duration and command.

        Args:
            result: What ``run_process`` returned; its output files are read, not removed.
            tool: tests · command · browser · static · git · serve ….
            summary: One line on what the evidence shows.
            criterion_id: The criterion this evidence is for, if any.
            tests: Per-test outcomes parsed from a JUnit report.
            extra_artifacts: Files to keep with the evidence (JUnit XML, screenshots).
            details: Extra facts; ``started_at``, ``error`` and ``stray_processes`` are added.

        Returns:
            The stored item.
        """
        stdout, stdout_cut = read_log(result.stdout_path, self._log_limit)
        same_file = os.path.abspath(result.stdout_path) == os.path.abspath(result.stderr_path)
        stderr, stderr_cut = (
            ("", False) if same_file else read_log(result.stderr_path, self._log_limit)
        )
        item = self.record(
            tool=tool,
            summary=summary,
            command=command_line(result.argv),
            argv=result.argv,
            cwd=str(result.cwd),
            stdout=stdout,
            stderr=stderr,
            exit_code=result.exit_code,
            timed_out=result.timed_out,
            duration_s=result.duration_s,
            truncated=stdout_cut or stderr_cut,
            criterion_id=criterion_id,
            tests=tests,
            extra_artifacts=extra_artifacts,
            details={**_process_facts(result), **(details or {})},
        )
        self._drop_raw_in_store(item, result.stdout_path, result.stderr_path)
        return item

    def record(
        self,
        *,
        tool: str,
        summary: str,
        command: str = "",
        stdout: str = "",
        stderr: str = "",
        exit_code: int | None = None,
        argv: Sequence[str] = (),
        cwd: str | None = None,
        duration_s: float = 0.0,
        timed_out: bool = False,
        truncated: bool = False,
        criterion_id: str | None = None,
        tests: Sequence[TestOutcome] = (),
        extra_artifacts: Sequence[Path] = (),
        details: Mapping[str, Any] | None = None,
        source: EvidenceSource = "referee",
        item_id: str | None = None,
        holdout: bool = False,
    ) -> EvidenceItem:
        """Record evidence that is not a process run (static pipeline, git, browser) or a prepared
        one.

        Each keyword fills the EvidenceItem field of the same name, after redaction. ``stdout`` and
        ``stderr`` are the full texts (capped inline, kept whole in log artifacts); ``truncated``
        says they were cut before they got here; ``extra_artifacts`` are files to keep (text files
        are redacted, others copied as they are); string values in ``details`` are redacted.
        ``item_id`` is an id reserved earlier with ``next_id`` (evidence that others cite before
        it is complete, such as a served app's log); by default the next id. ``holdout`` marks what
        a hold-out drove without being its criterion's (the served app's log): sealed like it.

        Returns:
            The stored item.
        """
        item_id = item_id or self.next_id()
        holdout = holdout or self._holdout(criterion_id)
        folder = self._sealed[0] if holdout and self._sealed else self.artifacts_dir
        folder.mkdir(parents=True, exist_ok=True)
        artifacts = _Artifacts(folder, item_id, extra_artifacts, self._log_limit)
        seen = _Seen(
            stdout, stderr, command, summary, cwd, list(argv), list(tests), dict(details or {})
        )
        known_at = self._redactor.generation  # read first: a secret learned meanwhile counts later
        clean, redacted = seen.redacted(self._redactor.redact_all, artifacts.texts)
        logs = self._write_logs(folder, item_id, clean.stdout, clean.stderr)
        paths = [*logs, *artifacts.store(redacted)]
        if self._redactor.degraded:
            clean.details["redaction"] = self._redactor.degraded
        if artifacts.missing:
            clean.details["missing_artifacts"] = artifacts.missing
        item = self._item(
            item_id,
            clean,
            paths,
            truncated,
            tool=tool,
            source=source,
            exit_code=exit_code,
            timed_out=timed_out,
            duration_s=duration_s,
            criterion_id=criterion_id,
            holdout=holdout,
        )
        with self._lock:
            self._items.append(item)
            self._known_at[item.id] = known_at
        return item

    def settle(self) -> None:
        """Redact again every item recorded before the redactor learned its latest secret.

        A secret found later (printed plainly by a later check, hard-coded in the tree) may have
        been printed in disguise by an earlier one: its logs, text artifacts and inline texts are
        redacted again, and its digest recomputed from the rewritten logs.
        """
        with self._lock:
            stale = [i for i in self._items if self._known_at[i.id] < self._redactor.generation]
        for item in stale:
            known_at = self._redactor.generation
            again = self._redacted_again(item)
            with self._lock:
                self._items = [again if i.id == item.id else i for i in self._items]
                self._known_at[item.id] = known_at

    def _redacted_again(self, item: EvidenceItem) -> EvidenceItem:
        folder = self._folder(item)
        logs = [(folder / f"{item.id}.{stream}.log").resolve() for stream in ("stdout", "stderr")]
        others = [path for path in map(Path, item.artifacts) if path not in logs]
        texts = {path: text for path in others if (text := _stored_text(path)) is not None}
        stdout, stderr = (_stored_text(log) or "" for log in logs)
        seen = _Seen(
            stdout,
            stderr,
            item.command,
            item.summary,
            item.cwd,
            item.argv,
            item.tests,
            item.details,
        )
        clean, redacted = seen.redacted(self._redactor.reapply, list(texts.values()))
        self._write_logs(folder, item.id, clean.stdout, clean.stderr)
        for path in texts:
            path.write_bytes(next(redacted).encode("utf-8"))
        fields, _ = self._fields(clean)
        return item.model_copy(update=fields)

    def _item(
        self, item_id: str, clean: _Seen, paths: list[Path], truncated: bool, **facts: Any
    ) -> EvidenceItem:
        fields, cut = self._fields(clean)
        return EvidenceItem(
            id=item_id,
            run_id=self.run_id,
            timestamp=self._clock().isoformat(),
            truncated=truncated or cut,
            artifacts=[str(path) for path in paths],
            **fields,
            **facts,
        )

    def _holdout(self, criterion_id: str | None) -> bool:
        return self._sealed is not None and criterion_id in self._sealed[1]

    def _fields(self, clean: _Seen) -> tuple[dict[str, Any], bool]:
        """The item's fields that come from redacted text, and whether an inline copy was cut."""
        inline_out, out_cut = cap_text(clean.stdout, self._inline_limit)
        inline_err, err_cut = cap_text(clean.stderr, self._inline_limit)
        fields = {
            "command": clean.command,
            "argv": clean.argv,
            "cwd": clean.cwd,
            "stdout": inline_out,
            "stderr": inline_err,
            "sha256": _digest(clean.stdout, clean.stderr),
            "summary": clean.summary,
            "tests": clean.tests,
            "details": clean.details,
        }
        return fields, out_cut or err_cut

    def _folder(self, item: EvidenceItem) -> Path:
        """Where an item's logs are: sealed outside the repository for a hold-out's."""
        sealed = item.holdout or self._holdout(item.criterion_id)
        return self._sealed[0] if sealed and self._sealed else self.artifacts_dir

    def _write_logs(self, folder: Path, item_id: str, stdout: str, stderr: str) -> list[Path]:
        written = []
        for stream, text in (("stdout", stdout), ("stderr", stderr)):
            if text:
                target = folder / f"{item_id}.{stream}.log"
                target.write_bytes(text.encode("utf-8"))
                written.append(target.resolve())
        return written

    def _drop_raw_in_store(self, item: EvidenceItem, *raw: Path) -> None:
        kept = set(item.artifacts)
        for path in raw:
            if _is_within(path, self.artifacts_dir) and str(path.resolve()) not in kept:
                path.unlink(missing_ok=True)


@dataclass
class _Seen:
    """Every text of one item, before or after redaction."""

    stdout: str
    stderr: str
    command: str
    summary: str
    cwd: str | None
    argv: list[str]
    tests: list[TestOutcome]
    details: dict[str, Any]

    def redacted(
        self, redact: Callable[[Sequence[str]], list[str]], extra: Sequence[str]
    ) -> tuple[_Seen, Iterator[str]]:
        """Redact all texts plus ``extra`` in one call of `redact` (one scan); the iterator yields
        the redacted ``extra``."""
        plain = [
            self.stdout,
            self.stderr,
            self.command,
            self.summary,
            self.cwd or "",
            *self.argv,
            *_test_strings(self.tests),
            *strings_of(self.details),
            *extra,
        ]
        # Every text stored or returned is encodable: a file name or a program's output may hold
        # bytes that are not UTF-8 (tools/text.py), which would otherwise end the run.
        out = iter([encodable(text) for text in redact(plain)])
        stdout, stderr, command, summary, cwd = (next(out) for _ in range(5))
        clean = _Seen(
            stdout,
            stderr,
            command,
            summary,
            None if self.cwd is None else cwd,
            [next(out) for _ in self.argv],
            _rebuild_tests(self.tests, out),
            rebuilt(self.details, out),
        )
        return clean, out


class _Artifacts:
    """Extra artifact files: text ones go through redaction with everything else."""

    def __init__(
        self, artifacts_dir: Path, item_id: str, sources: Sequence[Path], log_limit: int
    ) -> None:
        # The store's file layer loads with the first artifact, not with every reader of this
        # module (the claims and tampering readers reach it through their packages).
        from referee.tools.store.files import read_capped

        self._dir, self._id = artifacts_dir, item_id
        self._entries: list[tuple[Path, bytes, str | None]] = []
        self.missing: list[str] = []
        for source in sources:
            try:
                data = read_capped(source, log_limit)
            except FileNotFoundError:
                self.missing.append(str(source))
                continue
            self._entries.append((source, data, _as_text(data)))

    @property
    def texts(self) -> list[str]:
        """The text artifacts' contents, then every artifact's name (a report may be named after
        a test class, and so after whatever a test id carries)."""
        contents = [text for _, _, text in self._entries if text is not None]
        return contents + [source.name for source, _, _ in self._entries]

    def store(self, redacted: Iterator[str]) -> list[Path]:
        """Write each artifact into the store; consumes the redacted `texts`, in their order."""
        contents = [next(redacted) if text is not None else None for *_, text in self._entries]
        stored = []
        for (source, data, _), text in zip(self._entries, contents, strict=True):
            name = next(redacted)
            inside = _is_within(source, self._dir)
            target = source if inside else self._dir / f"{self._id}.{name}"
            if text is not None:  # stored as UTF-8 whatever it was written in, declaration included
                target.write_bytes(_utf8_declared(text).encode("utf-8"))
            elif not inside or source.stat().st_size > len(data):
                # Binary (a screenshot, a trace): nothing to redact, kept as it is up to the log's
                # cap; a larger one keeps its head and tail, as a text does, never the whole.
                target.write_bytes(data)
            stored.append(target.resolve())
        return stored


def _stored_text(path: Path) -> str | None:
    """A stored artifact's text (None for a binary or missing one)."""
    try:
        return _as_text(path.read_bytes())
    except FileNotFoundError:
        return None


def _process_facts(result: ProcessResult) -> dict[str, Any]:
    facts: dict[str, Any] = {"started_at": result.started_at}
    if result.error:
        facts["error"] = result.error
    if result.stray_processes:
        facts["stray_processes"] = result.stray_processes
    if result.killed is not None:
        facts["killed"] = {"code": result.killed.code, "message": result.killed.message}
    return facts


_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
_XML_WIDE = ((b"<\0?\0", "utf-16-le"), (b"\0<\0?", "utf-16-be"))
_DECLARED = re.compile(rb"""^<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._-]+)["']""")


def _as_text(data: bytes) -> str | None:
    """The text of an artifact decoded by its own encoding, or None for a binary file.

    A report may declare ISO-8859-1 or be written in UTF-16: decoded as UTF-8 it would be taken
    for binary and stored without redaction. So a byte-order mark, an XML declaration and the
    shape of a UTF-16 XML prolog decide the codec; anything that is not valid text in it (a PNG)
    is binary.
    """
    codec = _codec(data)
    if codec is None and b"\0" in data:
        return None
    try:
        text = data.decode(codec or "utf-8")
    except (UnicodeDecodeError, LookupError):
        return None
    if codec and codec.startswith(("utf-16", "utf-32")) and "\0" in text:
        return None
    return text


def _codec(data: bytes) -> str | None:
    for bom, codec in _BOMS:
        if data.startswith(bom):
            return codec
    for prolog, codec in _XML_WIDE:
        if data.startswith(prolog):
            return codec
    declared = _DECLARED.match(data[:200])
    return declared.group(1).decode("ascii").lower() if declared else None


def _utf8_declared(text: str) -> str:
    return re.sub(
        r"""^(<\?xml[^>]*?encoding\s*=\s*["'])[A-Za-z0-9._-]+(["'])""",
        r"\1utf-8\2",
        text.lstrip("\ufeff"),
        count=1,
    )


def _is_within(path: Path, folder: Path) -> bool:
    return path.resolve().is_relative_to(folder.resolve())


def _digest(stdout: str, stderr: str) -> str:
    return hashlib.sha256(stdout.encode("utf-8") + b"\0" + stderr.encode("utf-8")).hexdigest()


def _test_strings(tests: Sequence[TestOutcome]) -> Iterator[str]:
    for outcome in tests:
        yield outcome.name
        yield outcome.message


def _rebuild_tests(tests: Sequence[TestOutcome], redacted: Iterator[str]) -> list[TestOutcome]:
    # Messages are trimmed only now: a secret cut in half before redaction would no longer match.
    return [
        outcome.model_copy(update={"name": next(redacted), "message": _trim(next(redacted))})
        for outcome in tests
    ]


def _trim(message: str) -> str:
    return message if len(message) <= MESSAGE_LIMIT else message[: MESSAGE_LIMIT - 1] + "…"
