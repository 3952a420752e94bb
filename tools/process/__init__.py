"""Running the evaluated project's commands so that nothing is left running.

launch  Command and Launcher: what graders hand over to be run (on the host or in a sandbox)
run     run_process (to completion or timeout), background_process (a served app)
ready   wait_for_url: poll a served app until it answers
watch   Watchdog: kills a process tree above its memory limit, or when its sandbox is held still
"""

from referee.tools.process.launch import Command, HostLauncher, Launcher, Network
from referee.tools.process.ready import ReadyResult, port_in_use, wait_for_url
from referee.tools.process.run import (
    COOKIE,
    BackgroundProcess,
    ProcessResult,
    background_process,
    command_line,
    effective_argv,
    run_process,
    tagged_pids,
)
from referee.tools.process.watch import Killed, Limits, Watchdog

__all__ = [
    "COOKIE",
    "BackgroundProcess",
    "Command",
    "HostLauncher",
    "Killed",
    "Launcher",
    "Limits",
    "Network",
    "ProcessResult",
    "ReadyResult",
    "Watchdog",
    "background_process",
    "command_line",
    "effective_argv",
    "port_in_use",
    "run_process",
    "tagged_pids",
    "wait_for_url",
]
