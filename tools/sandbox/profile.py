"""What every sandboxed command sees: which folders are hidden, which caches are throwaway, which
variables pass.

The code under test is the player's code. It must not reach referee's store, its signing key or
another check's outputs, and nothing it writes may outlive its command. So:

- referee's store and the folder of the signing key are masked with empty folders, and so is
  /run, where the machine's services listen on unix sockets (Docker, databases, D-Bus, the
  user's ssh and gpg agents): a socket on a read-only mount still accepts connections, and the
  sandbox's own network does not cover sockets with a path;
- the user's tool caches (cargo, Maven, Gradle, Go modules, npm, ~/.cache) are seen through an
  overlay whose writes are thrown away, so builds work offline from what is installed and a test
  cannot poison the caches for later runs;
- the environment is rebuilt from an allowlist (locale, PATH, toolchain homes) plus the check's own
  `env`: no REFEREE_* variable and no credential of the server's environment is passed;
- HOME and TMPDIR are fresh and empty for every command, and the tree's `__pycache__` folders
  are hidden (installed packages keep their bytecode);
- the user's own files in the real home folder (settings, credentials) and the system's password
  hashes are masked; toolchains there stay (home.py).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

__all__ = ["ENV_ALLOWLIST", "SANDBOX_HOME", "SANDBOX_TMP", "SandboxProfile"]

SANDBOX_TMP = Path("/tmp")
SANDBOX_HOME = SANDBOX_TMP / "home"
# Where services' sockets live (/var/run is a link to it on current systems).
SERVICE_SOCKETS = (Path("/run"), Path("/var/run"))

# Variables a build or test run legitimately needs from the server's environment. Anything not
# named here (tokens, REFEREE_*, cloud credentials …) stays out of the sandbox.
ENV_ALLOWLIST = frozenset(
    {
        "PATH",
        "LANG",
        "LANGUAGE",
        "LC_ALL",
        "LC_CTYPE",
        "LC_MESSAGES",
        "LC_NUMERIC",
        "LC_TIME",
        "TZ",
        "TERM",
        "USER",
        "LOGNAME",
        "JAVA_HOME",
        "GOROOT",
        "GOPATH",
        "GOMODCACHE",
        "GOFLAGS",
        "GOTOOLCHAIN",
        "CARGO_HOME",
        "RUSTUP_HOME",
        "RUSTUP_TOOLCHAIN",
        "GRADLE_USER_HOME",
        "MAVEN_HOME",
        "M2_HOME",
        "NVM_DIR",
        "VIRTUAL_ENV",
        "CONDA_PREFIX",
        "PYTHONPATH",
        "SSL_CERT_FILE",
        "SSL_CERT_DIR",
        "REQUESTS_CA_BUNDLE",
        "NODE_EXTRA_CA_CERTS",
        "CI",
        "PLAYWRIGHT_BROWSERS_PATH",
        # The operator's choice of how pytest loads plugins (e.g. none of those a tool venv
        # happens to install): like the locale, it configures the runner, not the project.
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD",
    }
)
# Tool folders under the user's home: read through a throwaway overlay when they exist.
_CACHE_DIRS = (".cargo", ".m2", ".gradle", "go", ".npm", ".cache", ".pnpm-store", ".yarn")
# Where tools look under HOME; with a fresh HOME they are pointed back at the real folders.
_HOME_TOOLS = {"CARGO_HOME": ".cargo", "RUSTUP_HOME": ".rustup", "GOPATH": "go"}


@dataclass(frozen=True)
class SandboxProfile:
    """The parts of every sandbox that come from the server, not from the check.

    Attributes:
        hidden: Folders masked with an empty tmpfs (the store, the signing key's folder).
        caches: Folders seen through an overlay whose writes are discarded.
        env: The environment every command starts from (the check's env goes on top).
        uid: The user the command runs as (the server's own).
        gid: Its group.
    """

    hidden: tuple[Path, ...]
    caches: tuple[Path, ...]
    env: Mapping[str, str]
    uid: int
    gid: int
    home: Path | None = None
    """The user's home folder, whose own files are masked (home.py)."""

    @classmethod
    def build(cls, server_env: Mapping[str, str], *, hidden: tuple[Path, ...]) -> SandboxProfile:
        """The profile for a server with this environment, hiding `hidden` (store, key folder)."""
        home = Path(server_env.get("HOME") or Path.home())
        caches = tuple(p for p in (home / d for d in _CACHE_DIRS) if p.is_dir())
        sockets = tuple(p for p in SERVICE_SOCKETS if p.is_dir())
        return cls(
            hidden=tuple(dict.fromkeys(p.resolve() for p in (*hidden, *sockets))),
            caches=caches,
            env=_environment(server_env, home),
            uid=os.getuid(),
            gid=os.getgid(),
            home=home,
        )


def _environment(server_env: Mapping[str, str], home: Path) -> dict[str, str]:
    env = {k: v for k, v in server_env.items() if k in ENV_ALLOWLIST}
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    for name, folder in _HOME_TOOLS.items():
        if name not in env and (home / folder).is_dir():
            env[name] = str(home / folder)
    if (home / ".npm").is_dir():
        env.setdefault("npm_config_cache", str(home / ".npm"))
    # Gradle keeps its native libraries and caches in ~/.gradle, found from Java's user.home (the
    # passwd entry, not HOME): without a real one, point it at the fresh home.
    if not (home / ".gradle").is_dir():
        env.setdefault("GRADLE_USER_HOME", str(SANDBOX_HOME / ".gradle"))
    return {
        **env,
        # A project that pins its package manager (`"packageManager": "pnpm@10.28.0"`) makes
        # corepack download it; without a network that retries for minutes. Told not to, it fails
        # at once and says why (a check's `env` can set COREPACK_ENABLE_NETWORK=1).
        "COREPACK_ENABLE_NETWORK": "0",
        "COREPACK_ENABLE_DOWNLOAD_PROMPT": "0",
        "HOME": str(SANDBOX_HOME),
        "TMPDIR": str(SANDBOX_TMP),
        # No PYTHONPYCACHEPREFIX: the tree's own __pycache__ folders are hidden from each run
        # (evaluate/run.py), so a planted .pyc is never read, while installed packages keep their
        # bytecode (a fresh prefix recompiled every import: a second per run on a large venv).
        # Go's build cache follows XDG_CACHE_HOME: the user's ~/.cache/go-build, through the
        # throwaway overlay, so builds stay warm and no run feeds the next (go test gets
        # -count=1, so cached test results are never used).
        "XDG_CACHE_HOME": str(home / ".cache") if (home / ".cache").is_dir() else str(SANDBOX_TMP),
    }
