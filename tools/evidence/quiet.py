"""The RE2 options of referee's own patterns over what runs wrote."""

from __future__ import annotations

import re2

__all__ = ["QUIET"]


def _quiet() -> re2.Options:
    options = re2.Options()
    # A large input can outgrow the fast automaton's memory: RE2 then takes its slower (still
    # linear) engine, and with `log_errors` it says so on stderr, where it reads like a crash
    # in the middle of a run's output.
    options.max_mem = 64 << 20
    options.log_errors = False
    return options


QUIET = _quiet()
