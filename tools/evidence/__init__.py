"""Evidence: what referee saw, recorded so that a client can cite it and never write it.

recorder  EvidenceRecorder: ids, capped inline output, full logs as artifacts
redact    secrets out of everything before it is stored or returned, in every cheap form:
          forms (a secret's spellings and fragments), views (of the text they show in), matcher
          (RE2 automata), blobs (decoding, inflating), detect (all of it over one text)
trees     every string of a JSON-like tree, redacted in one scan
shapes    well-known credential shapes (next to betterleaks)
signing   the HMAC over a stored evaluation, and the key kept out of the store
view      evidence://{run}/{id} and screenshot:// contents
capture   a generator's own session, recorded as its account (never enough alone)

Its names load on first use: a command that records nothing (`referee validate`) does not load
the recorder and the store beneath it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from referee.tools.evidence.capture import evidence_pack, parse_hook, record_call, sessions
    from referee.tools.evidence.recorder import EvidenceRecorder, cap_text, read_log
    from referee.tools.evidence.redact import Disguises, Redactor, secret_env_values
    from referee.tools.evidence.signing import sign, verify
    from referee.tools.evidence.view import full_evidence, run_change, screenshot_of

_EXPORTS = {
    "evidence_pack": ".capture",
    "parse_hook": ".capture",
    "record_call": ".capture",
    "sessions": ".capture",
    "EvidenceRecorder": ".recorder",
    "cap_text": ".recorder",
    "read_log": ".recorder",
    "Disguises": ".redact",
    "Redactor": ".redact",
    "secret_env_values": ".redact",
    "sign": ".signing",
    "verify": ".signing",
    "full_evidence": ".view",
    "run_change": ".view",
    "screenshot_of": ".view",
}
__all__ = [
    "Disguises",
    "EvidenceRecorder",
    "Redactor",
    "cap_text",
    "evidence_pack",
    "full_evidence",
    "parse_hook",
    "read_log",
    "record_call",
    "run_change",
    "screenshot_of",
    "secret_env_values",
    "sessions",
    "sign",
    "verify",
]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name], __name__), name)
