"""The report:// resource: the Markdown report of a contract (SC-…) or of one evaluation run (R…)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ResourceError

from referee.tools.errors import RefereeError
from referee.tools.report import build_report, render_markdown

from ..state import State

if TYPE_CHECKING:
    from ..app import RefereeServer


def register(server: RefereeServer) -> None:
    @server.resource(
        "report://{report_id}",
        name="report",
        mime_type="text/markdown",
        description=(
            "The report of a contract (SC-…: every run, scorecard history, latest decision, trends)"
            " or of one evaluation run (R…): scores, ranked findings, improvement priorities,"
            " anti-gaming results, criteria and the evidence index"
        ),
    )
    def report(report_id: str, ctx: Context[State, Any]) -> str:
        state = ctx.request_context.lifespan_context
        try:
            data = build_report(state.store, report_id, rubrics=state.rubrics)
        except RefereeError as exc:
            raise ResourceError(str(exc)) from exc
        return render_markdown(data)
