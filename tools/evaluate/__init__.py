"""evaluate: referee runs the contract's checks itself and derives what the evidence decides.

entry       evaluate(): load the contract, fix the target, run, assemble, sign, store
target      exactly what is evaluated (working tree or a commit) and what the checks wrote
run         every check of the evaluation, run concurrently through the graders
phases      the hold-out checks after every visible run, alone among the server's evaluations
result      the evaluation and the draft scorecard built from what the checks found
dimensions  rubric dimension scores that follow from the evidence
health      PROJECT_HEALTH at project scope
static      the static pipeline as evidence
compact     the result cut to its budget (full outputs stay behind evidence://)
adequacy    test adequacy as issues and as one sentence per criterion (adequacy_text)
progress    the evaluations running now, published while they run (for `referee view`)
"""

from referee.tools.evaluate.adequacy import adequacy_text
from referee.tools.evaluate.entry import EvaluateDeps, evaluate
from referee.tools.evaluate.phases import PhaseGate
from referee.tools.models.evaluation import EvaluateInput

__all__ = ["EvaluateDeps", "EvaluateInput", "PhaseGate", "adequacy_text", "evaluate"]
