"""Benchmark redaction on megabytes of real test output; prints a table, then the figures as JSON.

    python benchmarks/bench_redact.py [--megabytes 8] [--secrets 20] [--leaks 40]

The output is made of the real runner logs in tests/fixtures/logs (pytest, jest, go test),
repeated, with LEAKS lines that print one of the known secrets in a cheap form (reversed, rot13,
dotted, hex, UTF-16 hex, base64 at an offset, base32, base85, percent-encoded, escaped,
gzip + base64, a fragment, and one of each class read as a class: a Caesar shift, fullwidth
letters, every other character, uuencode) spread through it. Measured, best of --repeat:
(a) building the automata for SECRETS known values (the server's env, the signing key);
(b) the engine alone (`Redactor.reapply`: forms, views, blobs), MB/s of output;
(c) a whole `redact_all` as evidence recording runs it (betterleaks' own scan included), MB/s;
and, as checks: every leak is redacted, and the same output without leaks comes out unchanged.
"""

from __future__ import annotations

import argparse
import base64
import binascii
import codecs
import gzip
import json
import random
import string
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from referee.tools.evidence.matcher import Matcher
from referee.tools.evidence.redact import Redactor

LOGS = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "logs"
FORMS: dict[str, Callable[[str], str]] = {
    "reversed": lambda t: t[::-1],
    "rot13": lambda t: codecs.encode(t, "rot13"),
    "dotted": ".".join,
    "hex": lambda t: t.encode().hex(),
    "utf-16 hex": lambda t: t.encode("utf-16-le").hex(),
    "base64 at an offset": lambda t: base64.b64encode(b"k=" + t.encode()).decode(),
    "base32": lambda t: base64.b32encode(t.encode()).decode(),
    "base85": lambda t: base64.b85encode(t.encode()).decode(),
    "percent-encoded": lambda t: "".join(f"%{b:02X}" for b in t.encode()),
    "escaped": lambda t: "".join(f"\\x{b:02x}" for b in t.encode()),
    "gzip + base64": lambda t: base64.b64encode(gzip.compress(t.encode())).decode(),
    "fragment": lambda t: t[4:16],
    "caesar shift": lambda t: "".join(chr(ord(c) + 3) for c in t),
    "fullwidth": lambda t: "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in t),
    "every other character": lambda t: t[::2],
    "uuencode": lambda t: binascii.b2a_uu(t.encode()[:45]).decode().rstrip("\n"),
}


def _secrets(count: int, rng: random.Random) -> list[str]:
    alnum = string.ascii_letters + string.digits
    found = ["".join(rng.choice("0123456789abcdef") for _ in range(64))]  # the signing key
    found += ["ghp_" + "".join(rng.choice(alnum) for _ in range(36))]
    while len(found) < count:
        found.append("".join(rng.choice(alnum + "-_") for _ in range(rng.randint(16, 40))))
    return found


def _output(megabytes: float) -> list[str]:
    text = "".join(p.read_text(encoding="utf-8") for p in sorted(LOGS.glob("*.log")))
    lines = text.splitlines()
    wanted = int(megabytes * 1_000_000)
    return (lines * (wanted // len(text) + 1))[: wanted * len(lines) // len(text)]


def _leaky(lines: list[str], secrets: list[str], leaks: int, rng: random.Random) -> str:
    out = list(lines)
    names = sorted(FORMS)
    for n in range(leaks):
        form = names[n % len(names)]
        out.insert(rng.randrange(len(out)), f"debug {form}: {FORMS[form](rng.choice(secrets))}")
    return "\n".join(out)


def _best(repeat: int, run: Callable[[], Any]) -> tuple[float, float, Any]:
    """Best wall-clock and CPU seconds of `repeat` runs (the machine may be shared)."""
    walls, cpus, result = [], [], None
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        result = run()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return min(walls), min(cpus), result


def measure(megabytes: float, count: int, leaks: int, repeat: int) -> dict[str, Any]:
    rng = random.Random(20260102)
    secrets = _secrets(count, rng)
    lines = _output(megabytes)
    honest, leaky = "\n".join(lines), _leaky(lines, secrets, leaks, rng)
    size = len(leaky.encode("utf-8")) / 1e6
    build = _best(repeat, lambda: Matcher(dict.fromkeys(secrets, "env")))
    redactor = Redactor(secrets)
    engine = _best(repeat, lambda: redactor.reapply([leaky])[0])
    whole = _best(1, lambda: Redactor(secrets).redact_all([leaky])[0])
    redacted = engine[2]
    return {
        "megabytes": round(size, 2),
        "secrets": count,
        "leaks": leaks,
        "build_s": round(build[0], 3),
        "engine_s": round(engine[0], 3),
        "engine_cpu_s": round(engine[1], 3),
        "engine_mb_per_s": round(size / engine[1], 2),
        "with_betterleaks_s": round(whole[0], 3),
        "with_betterleaks_mb_per_s": round(size / whole[1], 2),
        "leaks_redacted": redacted.count("debug ") - _survivors(redacted),
        "honest_output_unchanged": redactor.reapply([honest])[0] == honest,
    }


def _survivors(redacted: str) -> int:
    return sum(
        1 for line in redacted.splitlines() if line.startswith("debug ") and "[REDACTED" not in line
    )


def table(result: dict[str, Any]) -> str:
    return "\n".join(
        [
            f"output: {result['megabytes']} MB of runner logs, {result['leaks']} leaks,"
            f" {result['secrets']} known secrets",
            f"building the automata: {result['build_s']} s",
            f"engine alone: {result['engine_s']} s, {result['engine_mb_per_s']} MB/s (CPU)",
            f"with betterleaks' scan: {result['with_betterleaks_s']} s,"
            f" {result['with_betterleaks_mb_per_s']} MB/s (CPU)",
            f"leaks redacted: {result['leaks_redacted']} of {result['leaks']};"
            f" honest output unchanged: {result['honest_output_unchanged']}",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=float, default=8)
    parser.add_argument("--secrets", type=int, default=20)
    parser.add_argument("--leaks", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    result = measure(args.megabytes, args.secrets, args.leaks, args.repeat)
    print(table(result))
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
