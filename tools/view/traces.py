"""A failing browser check's trace, opened in Playwright's own trace viewer from the running app.

The viewer is the one the `playwright` package ships (the files `playwright show-trace` serves),
so no network and no copy of it in referee. Two kinds of answer, both files:

- `trace/<run id>/<evidence id>.zip`: the trace a run's browser evidence item kept. The name only
  selects a stored item; the file is the item's own `.trace.zip` artifact, and only when it lies
  inside that run's artifacts folder (an artifact path is stored text: it never chooses what file
  is read; a team store's copy is verified, then written into that folder). The generator's
  audience gets no trace of an item it may not see.
- `trace/viewer/<file>`: one of the trace viewer's files, by a plain name inside its folder.
"""

from __future__ import annotations

import mimetypes
import re
from dataclasses import dataclass
from pathlib import Path

from referee.tools.errors import NotFound
from referee.tools.models.evidence import EvidenceItem
from referee.tools.store import Store, StoredRun, load_contract, load_run
from referee.tools.store.files import local_run_file
from referee.tools.store.runs import sealed_item
from referee.tools.view.gather import run_visible, visible_evidence
from referee.tools.view.pages import Audience, TraceLink

PREFIX = "trace/"
VIEWER = "trace/viewer/"
_TRACE = re.compile(r"^trace/(?P<run>[A-Za-z0-9][A-Za-z0-9_-]{0,80})/(?P<item>[EG]\d{1,6})\.zip$")
# The viewer's files are flat names or one level down (assets/…); no dot segments.
_ASSET = re.compile(r"^(?:[A-Za-z0-9_-]+/)?[A-Za-z0-9_-][A-Za-z0-9._-]*$")
_TYPES = {".js": "text/javascript", ".webmanifest": "application/manifest+json"}


@dataclass(frozen=True)
class TraceFile:
    """A file to send as it is, and its content type."""

    path: Path
    content_type: str


def viewer_folder() -> Path | None:
    """Where the installed `playwright` package keeps its trace viewer, if it does."""
    try:
        import playwright
    except ImportError:
        return None
    folder = Path(playwright.__file__).parent / "driver" / "package" / "lib" / "vite"
    folder /= "traceViewer"
    return folder if (folder / "index.html").is_file() else None


def viewer_link(run_id: str, evidence_id: str) -> str:
    """The address that opens a run's trace in the viewer (root-relative: the app only)."""
    return f"/{VIEWER}index.html?trace=/{PREFIX}{run_id}/{evidence_id}.zip"


def trace_file(store: Store, name: str, audience: Audience) -> TraceFile:
    """The file a `trace/…` name asks for.

    Raises:
        NotFound: not such a name, no such run or item, an item the audience may not see, no
            trace kept, or a viewer file that does not exist.
    """
    if name.startswith(VIEWER):
        return _viewer_file(name.removeprefix(VIEWER))
    found = _TRACE.match(name)
    if found is None:
        raise NotFound("trace", name, path="/", hint="open a trace from its run's page")
    return TraceFile(_kept_trace(store, found["run"], found["item"], audience), "application/zip")


def traced_items(store: Store, stored: StoredRun, items: list[EvidenceItem]) -> list[TraceLink]:
    """The run's browser items (of those shown) that kept a trace."""
    run_id = stored.evaluation.run_id
    kept = [(i, _kept(store, stored, i)) for i in items if i.tool == "browser"]
    return [
        TraceLink(i.criterion_id or "", i.id, viewer_link(run_id, i.id), path.name)
        for i, path in kept
        if path is not None
    ]


def _kept_trace(store: Store, run_id: str, evidence_id: str, audience: Audience) -> Path:
    stored = load_run(store, run_id)
    contract = load_contract(store, stored.evaluation.contract_ref)
    shown = run_visible(stored.evaluation, contract, audience)
    items = {i.id: i for i in visible_evidence(stored, contract, audience)} if shown else {}
    item = items.get(evidence_id)
    path = _kept(store, stored, item) if item else None
    if path is None:
        raise NotFound("trace", f"{run_id}/{evidence_id}", path="/", hint="no trace was kept")
    return path


def _kept(store: Store, stored: StoredRun, item: EvidenceItem) -> Path | None:
    """The item's first `.trace.zip` artifact that is a file in its run's folder of this store
    (symlinks resolved first); one the database keeps (a team store's) is written there first,
    but a hold-out's into the vault's folder, as on the machine that recorded it."""
    run_id = stored.evaluation.run_id
    sealed = sealed_item(stored.evaluation, item)
    folder = (store.artifacts / run_id).resolve()
    for kept in item.artifacts:
        if not kept.endswith(".trace.zip"):
            continue
        local = local_run_file(store, run_id, kept, sealed=sealed)
        path = local.resolve() if local else None
        if path is not None and path.is_relative_to(folder) and path.is_file():
            return path
    return None


def _viewer_file(name: str) -> TraceFile:
    folder = viewer_folder()
    if folder is None or not _ASSET.match(name):
        raise NotFound("trace viewer file", name, path="/", hint="install playwright")
    path = (folder / name).resolve()
    if not (path.is_relative_to(folder.resolve()) and path.is_file()):
        raise NotFound("trace viewer file", name, path="/", hint="open a trace from a run's page")
    kind = _TYPES.get(path.suffix) or mimetypes.guess_type(path.name)[0]
    return TraceFile(path, kind or "application/octet-stream")
