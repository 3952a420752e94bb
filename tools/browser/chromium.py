"""Find a Chromium that Playwright can drive, without downloading anything.

Order: ``REFEREE_CHROMIUM`` (an explicit override), then the build ``python -m playwright install
chromium`` puts in Playwright's cache for *this* Playwright version, then ``chromium``,
``chromium-browser``, ``google-chrome`` and ``google-chrome-stable`` on ``PATH``. Every candidate
is run with ``--version`` first, which also weeds out snap stubs and broken wrappers.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Literal

from referee.tools.errors import RefereeError

ChromiumSource = Literal["env", "playwright", "system"]

INSTALL_HINT = (
    "install one: on Debian/Ubuntu `apt-get install chromium`; elsewhere "
    "`python -m playwright install chromium`; or point REFEREE_CHROMIUM at a Chromium executable"
)
_SYSTEM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
_ENV_KEYS = ("REFEREE_CHROMIUM", "PLAYWRIGHT_BROWSERS_PATH", "XDG_CACHE_HOME", "HOME", "PATH")
_VERSION_TIMEOUT_S = 15.0


class ChromiumNotFound(RefereeError):
    """No runnable Chromium was found; ``hint`` says how to install one."""

    def __init__(self, message: str, hint: str = INSTALL_HINT) -> None:
        self.hint = hint
        super().__init__(f"{message}; {hint}")


@dataclass(frozen=True)
class ChromiumInfo:
    """A Chromium executable that answered ``--version``."""

    executable: str
    source: ChromiumSource
    version: str


_cache: dict[tuple[str | None, ...], ChromiumInfo] = {}


def find_chromium(env: Mapping[str, str] = os.environ) -> ChromiumInfo:
    """Locate a runnable Chromium; the result is cached per relevant environment.

    Args:
        env: The environment to read ``REFEREE_CHROMIUM``, ``PLAYWRIGHT_BROWSERS_PATH``,
            ``XDG_CACHE_HOME``, ``HOME`` and ``PATH`` from (the caller's, passed explicitly).

    Returns:
        The executable, where it was found and the version it reports.

    Raises:
        ChromiumNotFound: ``REFEREE_CHROMIUM`` does not run, or no candidate runs.
    """
    key = tuple(env.get(k) for k in _ENV_KEYS)
    if key not in _cache:
        _cache[key] = _lookup(env)
    return _cache[key]


def clear_cache() -> None:
    """Forget earlier lookups (after installing a browser, or in tests)."""
    _cache.clear()


def playwright_version() -> str:
    """The installed Playwright package version, or ``"not installed"``."""
    try:
        return metadata.version("playwright")
    except metadata.PackageNotFoundError:
        return "not installed"


def _lookup(env: Mapping[str, str]) -> ChromiumInfo:
    if exe := env.get("REFEREE_CHROMIUM"):
        if (version := _version_of(exe)) is not None:
            return ChromiumInfo(exe, "env", version)
        raise ChromiumNotFound(f"REFEREE_CHROMIUM={exe!r} does not run")
    for own in _playwright_builds(env):
        if os.access(own, os.X_OK) and (version := _version_of(str(own))) is not None:
            return ChromiumInfo(str(own), "playwright", version)
    for name in _SYSTEM_NAMES:
        exe = shutil.which(name, path=env.get("PATH", ""))
        if exe and (version := _version_of(exe)) is not None:
            return ChromiumInfo(exe, "system", version)
    raise ChromiumNotFound("no Chromium found")


def _version_of(exe: str) -> str | None:
    """The version ``exe --version`` prints, or None when it does not run."""
    # Ubuntu's chromium-browser is a snap stub that
    # exits 1; snap builds also reject outside profiles.
    if "/snap/" in os.path.realpath(exe):
        return None
    done = None
    # A first start from a cold disk cache on a busy machine can take longer than the timeout:
    # one slow answer does not make the browser missing, so it is asked once more, for longer.
    for timeout in (_VERSION_TIMEOUT_S, 3 * _VERSION_TIMEOUT_S):
        try:
            done = subprocess.run(
                [exe, "--version"],
                capture_output=True,
                encoding="utf-8",
                errors="replace",
                timeout=timeout,
                check=False,
            )
            break
        except subprocess.TimeoutExpired:
            continue
        except OSError:
            return None
    if done is None:
        return None
    if done.returncode != 0:
        return None
    match = re.search(r"\d+(?:\.\d+){1,3}", done.stdout)
    return match.group(0) if match else done.stdout.strip() or "unknown"


def _playwright_builds(env: Mapping[str, str]) -> list[Path]:
    """Where ``playwright install chromium`` puts the revision this Playwright expects."""
    try:
        import playwright
    except ImportError:
        return []
    package = Path(playwright.__file__).parent / "driver" / "package"
    revisions = _revisions(package / "browsers.json")
    if not revisions:
        return []
    root = _browsers_root(env, package)
    shell = revisions.get("chromium-headless-shell")
    full = revisions.get("chromium")
    return [
        *sorted(root.glob(f"chromium_headless_shell-{shell}/chrome-*/chrome-headless-shell")),
        *sorted(root.glob(f"chromium-{full}/chrome-linux*/chrome")),
    ]


def _revisions(browsers_json: Path) -> dict[str, str]:
    try:
        data = json.loads(browsers_json.read_text(encoding="utf-8"))
        return {b["name"]: str(b["revision"]) for b in data["browsers"]}
    except (OSError, ValueError, KeyError, TypeError):
        return {}


def _browsers_root(env: Mapping[str, str], package: Path) -> Path:
    configured = env.get("PLAYWRIGHT_BROWSERS_PATH")
    if configured == "0":
        return package / ".local-browsers"
    if configured:
        return Path(configured)
    cache = env.get("XDG_CACHE_HOME") or str(Path(env.get("HOME") or Path.home()) / ".cache")
    return Path(cache) / "ms-playwright"
