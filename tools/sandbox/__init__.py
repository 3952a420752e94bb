"""The trust boundary: everything referee runs on the evaluated code runs in a sandbox.

probe     can bubblewrap, user namespaces and overlayfs run here (and why not)
profile   what every sandbox hides (store, key), overlays (tool caches) and passes (env)
launcher  SandboxLauncher: the Launcher that wraps each command in bubblewrap
writes    what a command wrote into its tree, read from the overlay
"""

from referee.tools.sandbox.launcher import SandboxLauncher
from referee.tools.sandbox.probe import Support, sandbox_support
from referee.tools.sandbox.profile import ENV_ALLOWLIST, SandboxProfile
from referee.tools.sandbox.writes import Writes, read_upper

__all__ = [
    "ENV_ALLOWLIST",
    "SandboxLauncher",
    "SandboxProfile",
    "Support",
    "Writes",
    "read_upper",
    "sandbox_support",
]
