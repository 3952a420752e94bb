"""A per-file analysis worker process: `python -m referee.tools.static.worker`.

Protocol, one JSON document per line: the parent writes `{"root", "config", "batch": [[path,
[analyser, ...]], ...]}`, the worker answers with a list holding, per file, `{analyser: outcome}`.
The worker exits when its stdin closes. Plain subprocesses rather than multiprocessing: nothing
depends on the caller's `__main__` being importable, and no fork of a threaded process.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from typing import IO, Any

from referee.tools.static.analyse import analyse_batch
from referee.tools.static.model import StaticConfig


def encode_request(
    root: str, config: StaticConfig, batch: list[tuple[str, tuple[str, ...]]]
) -> bytes:
    """One request line for a worker."""
    return (
        json.dumps({"root": root, "config": dataclasses.asdict(config), "batch": batch}).encode(
            "utf-8"
        )
        + b"\n"
    )


def serve(source: IO[bytes], sink: IO[bytes]) -> None:
    """Answer requests from `source` on `sink` until end of input."""
    for line in source:
        request: dict[str, Any] = json.loads(line)
        config = StaticConfig(**request["config"])
        batch = [(name, tuple(analysers)) for name, analysers in request["batch"]]
        outcomes = analyse_batch(request["root"], batch, config)
        reply = [
            {name: outcome.to_data() for name, outcome in per_file.items()} for per_file in outcomes
        ]
        sink.write(json.dumps(reply).encode("utf-8") + b"\n")
        sink.flush()


if __name__ == "__main__":
    serve(sys.stdin.buffer, sys.stdout.buffer)
