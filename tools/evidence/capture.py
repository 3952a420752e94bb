"""Evidence from the generator's own session: Claude Code's PostToolUse hook hands each Bash call to
`referee capture`, which records it (redacted) as evidence marked `source: generator_session`.

Such evidence is visible to evaluators and in reports, but it is the player's own account: it can
support a judgement, never carry a criterion on its own.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from referee.tools.errors import InvalidInput, NotFound, Problem
from referee.tools.evidence.recorder import cap_text
from referee.tools.evidence.redact import Redactor
from referee.tools.evidence.view import full_item
from referee.tools.models.evidence import EvidenceItem
from referee.tools.store import Store
from referee.tools.store.runs import evidence_of, save_evidence

PREFIX = "G-"
INLINE = 64 * 1024


@dataclass(frozen=True)
class CapturedCall:
    session_id: str
    cwd: str
    tool: str
    command: str
    stdout: str
    stderr: str
    exit_code: int | None


def parse_hook(payload: Mapping[str, Any]) -> CapturedCall:
    """Read a PostToolUse hook payload (tool_name, tool_input.command,
    tool_response.stdout/stderr)."""
    if not isinstance(payload, Mapping):
        raise InvalidInput(
            [Problem(path="", code="type", message="the hook payload must be a JSON object")]
        )
    tool_input = payload.get("tool_input") if isinstance(payload.get("tool_input"), Mapping) else {}
    response = payload.get("tool_response")
    response = response if isinstance(response, Mapping) else {"stdout": str(response or "")}
    command = str(tool_input.get("command", "")) if tool_input else ""
    if not command:
        raise InvalidInput(
            [
                Problem(
                    path="/tool_input/command",
                    code="required",
                    message="no command in the hook payload (only Bash calls are captured)",
                )
            ]
        )
    return CapturedCall(
        session_id=_safe_id(str(payload.get("session_id") or "unknown")),
        cwd=str(payload.get("cwd") or ""),
        tool=str(payload.get("tool_name") or "Bash"),
        command=command,
        stdout=str(response.get("stdout") or ""),
        stderr=str(response.get("stderr") or ""),
        exit_code=_exit_code(response),
    )


def _exit_code(response: Mapping[str, Any]) -> int | None:
    for key in ("exit_code", "exitCode", "returncode", "code"):
        value = response.get(key)
        if isinstance(value, int):
            return value
    if response.get("interrupted") is True:
        return None
    return None


def _safe_id(raw: str) -> str:
    cleaned = re.sub(r"[^A-Za-z0-9_.-]", "-", raw)[:64]
    return cleaned or hashlib.sha1(raw.encode()).hexdigest()[:16]


def record_call(
    store: Store, call: CapturedCall, redactor: Redactor, now: Callable[[], datetime]
) -> EvidenceItem:
    """Append one captured call to its session's evidence (run id `G-<session>`)."""
    run_id = PREFIX + call.session_id
    stdout, stderr, command = redactor.redact_all([call.stdout, call.stderr, call.command])
    stamp = now().isoformat()
    with store.transaction() as conn:
        row = conn.execute("SELECT items FROM captures WHERE run_id = ?", (run_id,)).fetchone()
        number = (row["items"] if row else 0) + 1
        item = _item(run_id, number, stamp, call, command, stdout, stderr)
        if row is None:
            store.insert(
                conn,
                "captures",
                {
                    "run_id": run_id,
                    "session_id": call.session_id,
                    "cwd": call.cwd,
                    "started_at": stamp,
                    "last_at": stamp,
                    "items": 1,
                },
            )
        else:
            conn.execute(
                "UPDATE captures SET items = ?, last_at = ? WHERE run_id = ?",
                (number, stamp, run_id),
            )
            store.reseal(conn, "captures", run_id)
        save_evidence(store, conn, run_id, item)
    return item


def _item(
    run_id: str, number: int, stamp: str, call: CapturedCall, command: str, stdout: str, stderr: str
) -> EvidenceItem:
    out, out_cut = cap_text(stdout, INLINE)
    err, err_cut = cap_text(stderr, INLINE)
    digest = hashlib.sha256(stdout.encode("utf-8") + b"\0" + stderr.encode("utf-8")).hexdigest()
    return EvidenceItem(
        id=f"E{number}",
        run_id=run_id,
        timestamp=stamp,
        tool=call.tool.lower(),
        source="generator_session",
        command=command,
        cwd=call.cwd,
        stdout=out,
        stderr=err,
        exit_code=call.exit_code,
        truncated=out_cut or err_cut,
        sha256=digest,
        summary=f"generator session ran: {command[:80]}",
    )


def sessions(store: Store, cwd_prefix: str | None = None) -> list[dict[str, Any]]:
    """Captured sessions, optionally only those that ran inside a folder."""
    keys = ("run_id", "session_id", "cwd", "started_at", "last_at", "items")
    found = []
    for row in store.query("SELECT * FROM captures ORDER BY started_at"):
        store.verified("captures", row, f"captured session {row['run_id']}")
        found.append({k: row[k] for k in keys})
    return [s for s in found if cwd_prefix is None or s["cwd"].startswith(cwd_prefix)]


def evidence_pack(store: Store, run_id: str) -> dict[str, Any]:
    """Every evidence item of a run (evaluation or captured session) as one JSON document, each
    with its full output (as `evidence://` gives it), wherever the run was recorded."""
    items = evidence_of(store, run_id)
    if not items:
        raise NotFound(
            "run", run_id, hint="run ids come from evaluate, session ids from referee capture"
        )
    return {"run_id": run_id, "items": [full_item(store, run_id, i) for i in items]}
