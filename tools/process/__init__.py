"""Running the evaluated project's commands so that nothing is left running.

run     run_process (to completion or timeout), background_process (a served app), process groups
ready   wait_for_url: poll a served app until it answers
"""

from referee.tools.process.ready import ReadyResult, wait_for_url
from referee.tools.process.run import (
    COOKIE,
    BackgroundProcess,
    ProcessResult,
    background_process,
    command_line,
    run_process,
    tagged_pids,
)

__all__ = [
    "COOKIE",
    "BackgroundProcess",
    "ProcessResult",
    "ReadyResult",
    "background_process",
    "command_line",
    "run_process",
    "tagged_pids",
    "wait_for_url",
]
