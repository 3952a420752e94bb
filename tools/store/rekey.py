"""Re-sealing an export made with another key: `referee store import --from-key-file FILE`.

Every row of the export has already been verified with the source key (transfer.py) before this
runs, so what is re-sealed is exactly what the source store held. Two things carry the key:

- each row's MAC, computed again with the importing store's key;
- each run's signature (an HMAC over what the run established, which scorecards copy to rest on
  it). A run whose signature verifies with the source key is signed again with the importing
  key, and every copy of its old signature (the run's body, its draft, the scorecards and
  aggregates that cite it) is replaced by the new one. A run whose signature did not verify with
  the source key keeps it, and grounds nothing, as before.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from typing import Any

from referee.tools.store.db import Store
from referee.tools.store.integrity import MAC_COLUMN

__all__ = ["resealed"]

_SIGNATURE = re.compile(r"hmac-sha256:[0-9a-f]{64}")


def resealed(
    store: Store, tables: dict[str, list[dict[str, Any]]], source_key: bytes
) -> dict[str, list[dict[str, Any]]]:
    """The export's rows (verified with `source_key`) sealed with `store`'s key instead."""
    signatures = _signed_again(store.key, source_key, tables)

    def again(value: Any) -> Any:
        if isinstance(value, str) and "hmac-sha256:" in value:
            return _SIGNATURE.sub(lambda m: signatures.get(m.group(0), m.group(0)), value)
        return value

    out: dict[str, list[dict[str, Any]]] = {}
    for table, rows in tables.items():
        fresh = [{c: again(v) for c, v in row.items() if c != MAC_COLUMN} for row in rows]
        out[table] = [{**row, MAC_COLUMN: store.mac(table, row)} for row in fresh]
    return out


def _signed_again(
    key: bytes, source_key: bytes, tables: dict[str, list[dict[str, Any]]]
) -> dict[str, str]:
    """Each run's signature made with `source_key` → the one `key` makes."""
    from referee.tools.evidence.signing import sign, verify
    from referee.tools.models.evaluation import Evaluation
    from referee.tools.models.evidence import EvidenceItem

    items: dict[str, list[EvidenceItem]] = defaultdict(list)
    for row in tables.get("evidence", []):
        items[str(row["run_id"])].append(EvidenceItem.model_validate(json.loads(row["body"])))
    found = {}
    for row in tables.get("runs", []):
        evaluation = Evaluation.model_validate(json.loads(row["body"]))
        evidence = items[evaluation.run_id]
        if verify(source_key, evaluation, evidence, str(row["signature"])):
            found[str(row["signature"])] = sign(key, evaluation, evidence)
    return found
