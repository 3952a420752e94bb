"""Running the evaluated project's commands so that nothing is left running.

launch  Command and Launcher: what graders hand over to be run (on the host or in a sandbox)
run     run_process (to completion or timeout), background_process (a served app)
ready   wait_for_url: poll a served app until it answers
"""

from referee.tools.process.launch import Command, HostLauncher, Launcher
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

__all__ = [
    "COOKIE",
    "BackgroundProcess",
    "Command",
    "HostLauncher",
    "Launcher",
    "ProcessResult",
    "ReadyResult",
    "background_process",
    "command_line",
    "effective_argv",
    "port_in_use",
    "run_process",
    "tagged_pids",
    "wait_for_url",
]
