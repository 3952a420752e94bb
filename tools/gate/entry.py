"""`referee ci`: a merge gate that grounds itself.

Nothing the pull request carries is trusted as evidence. The gate
1. reads the contract from the protected base branch (`REF:PATH`, through referee's hardened git);
   a contract edited in the pull request is ignored, and the gate says so;
2. takes the hold-out criteria and files from a bundle outside the repository (`--holdout-dir`,
   written by `referee holdout export`), checked against the base branch's contract;
3. evaluates the pull request's head itself, in a fresh store with a key of its own (in the
   sandbox, or in a git worktree where no sandbox runs), once per evaluator;
4. validates the committed scorecards against those runs with the evidence rules on: judgement
   comes from the cards, every claim that contradicts CI's own evidence fails;
5. aggregates, and passes only work every evaluator accepted (a DELIVER of the best iteration at the
   bound, with REVISE verdicts, does not open a merge).
"""

from __future__ import annotations

import secrets
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from referee.tools.aggregate import aggregate
from referee.tools.create_contract import (
    ContractFileError,
    contract_from_text,
    fixed_rubrics,
    generator_view,
    import_contract,
    load_contract_file,
    rubrics_at,
)
from referee.tools.errors import InvalidInput, RefereeError
from referee.tools.evaluate.entry import EvaluateDeps, evaluate
from referee.tools.gate.cards import CommittedCard, read_cards, rebind
from referee.tools.holdouts import BUNDLE_CONTRACT, BUNDLE_FILES, FolderSource
from referee.tools.models.aggregate import AggregateResult
from referee.tools.models.contract import Contract, ContractConfig
from referee.tools.models.evaluation import EvaluateInput, Evaluation
from referee.tools.models.validation import ValidationResult
from referee.tools.repo import GitError, git, qualified_ref
from referee.tools.rubrics import RubricSet
from referee.tools.sandbox import sandbox_support
from referee.tools.settings import Settings
from referee.tools.store import (
    KeySource,
    Store,
    contract_exists,
    load_contract,
    load_run,
    runs_for,
)
from referee.tools.text import agrees, counted
from referee.tools.validate_scorecard import unreadable, validate_and_store, validate_scorecard
from referee.tools.validate_scorecard.entry import EvidenceContext

__all__ = ["CardOutcome", "GateError", "GateRequest", "GateResult", "run_gate"]

EXIT = {"DELIVER": 0, "REVISE": 1, "INVALID": 1, "ESCALATE": 3, "PENDING": 4}
DEFAULT_CARDS = Path(".referee") / "scorecards"


class GateError(Exception):
    """A gate that cannot run: a contract reference that does not resolve, a bad bundle (exit 2)."""


@dataclass(frozen=True)
class GateRequest:
    """What `referee ci` is asked.

    Attributes:
        repo: The checkout of the pull request's head.
        contract_ref: `REF:PATH` of the contract on the protected base branch.
        scorecards: Files or folders of committed scorecards (default .referee/scorecards/).
        holdout_dir: A hold-out bundle from outside the repository (`referee holdout export`).
        env: The CI runner's environment (passed to the sandbox through its allowlist).
        store_url: The team store (`--store`, REFEREE_STORE_URL): CI's runs join the team's
            history, sealed with the team's key (REFEREE_KEY); None: a store of the gate's own.
    """

    repo: Path
    contract_ref: str
    scorecards: tuple[Path, ...] = ()
    holdout_dir: Path | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    store_url: str | None = None


@dataclass(frozen=True)
class CardOutcome:
    """A committed scorecard and what validation against CI's run said."""

    source: str
    body: Any
    evaluator: str | None
    iteration: int | None
    result: ValidationResult | None
    problem: str | None = None
    counted: bool = False
    """Validated against CI's run (the latest card of its evaluator, for the judged iteration)."""

    @property
    def valid(self) -> bool:
        return self.result is not None and self.result.valid


@dataclass
class GateResult:
    """Everything the gate decided, for the summary, SARIF and the exit code."""

    outcome: str
    reason: str
    contract: Contract
    iteration: int
    evaluations: list[Evaluation] = field(default_factory=list)
    cards: list[CardOutcome] = field(default_factory=list)
    aggregate: AggregateResult | None = None
    notes: list[str] = field(default_factory=list)
    holdout_names: list[str] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        return EXIT[self.outcome]


async def run_gate(request: GateRequest, now: Callable[[], datetime] | None = None) -> GateResult:
    """Run the gate (see the module docstring).

    Raises:
        GateError: the contract or the hold-out bundle cannot be used; nothing was judged.
    """
    clock = now or (lambda: datetime.now(UTC))
    repo = request.repo.resolve()
    notes: list[str] = []
    ref, path = _base_ref(repo, request.contract_ref, notes)
    contract, config = _base_contract(repo, ref, path, notes)
    contract, holdout_files = _with_holdouts(contract, request.holdout_dir, notes)
    contract = contract.model_copy(update={"repo": str(repo)})
    rubrics = _rubrics(repo, ref, contract, config, notes)
    with tempfile.TemporaryDirectory(prefix="referee-ci-") as scratch:
        settings = _settings(repo, Path(scratch), request, holdout_files)
        store = Store(
            settings.home,
            key=settings.key_source.load(),
            vault=Path(scratch) / "vault",
            url=settings.store_url,
        )
        try:
            stored = _team_contract(store, contract, notes)
            if stored is None:
                import_contract(contract, store=store, config=config)
            else:  # the team's own copy, found in this checkout by its history (store/clones.py)
                contract = stored
            return await _judge(request, contract, settings, store, clock, notes, rubrics)
        except RefereeError as exc:
            # The base branch's contract cannot be evaluated here (a sandbox it requires, a
            # check the core refuses): nothing was judged, and the runner's owner must act.
            raise GateError(f"the checks could not run: {_problems(exc)}") from exc
        finally:
            store.close()


def _problems(exc: RefereeError) -> str:
    """What went wrong, every problem named (a bare count tells the runner's owner nothing)."""
    if isinstance(exc, InvalidInput) and exc.problems:
        return "; ".join(f"{p.code}: {p.message}" for p in exc.problems)
    return str(exc)


def _base_ref(repo: Path, reference: str, notes: list[str]) -> tuple[str, str]:
    """The fully qualified base ref and the contract's path of `REF:PATH`; a note when the name
    also names a tag or another branch, which the gate did not read."""
    name, sep, path = reference.partition(":")
    if not sep or not name or not path:
        raise GateError(
            f"--contract-ref {reference!r} must be REF:PATH, e.g. origin/main:contracts/x.yaml"
        )
    found = qualified_ref(repo, name)
    if found.shadowed:
        notes.append(
            f"{name} also names {', '.join(found.shadowed)}; the gate read {found.ref}"
            " (a tag or a branch spelled like the base branch is not the base branch)"
        )
    return found.ref, path


def _base_contract(
    repo: Path, ref: str, path: str, notes: list[str]
) -> tuple[Contract, ContractConfig | None]:
    try:
        text = git(repo, "show", f"{ref}:{path}")
    except GitError as exc:
        raise GateError(f"cannot read {path} at {ref}: {exc}") from exc
    try:
        contract, config = contract_from_text(text, path)
    except ContractFileError as exc:
        raise GateError(str(exc)) from exc
    head = repo / path
    if head.is_file() and head.read_text(encoding="utf-8", errors="replace") != text:
        notes.append(
            f"{path} differs in this pull request; the gate used the version of {ref}"
            " (a contract is changed on the base branch, not by the change it judges)"
        )
    return contract, config


# What judging reads besides the contract: a pull request that changes these changes nothing,
# and the summary says so (the base branch's versions, or those stored with the contract, count).
_CONFIGURATION = (".referee/rubrics", ".gitleaks.toml", ".betterleaks.toml")


def _rubrics(
    repo: Path,
    ref: str,
    contract: Contract,
    config: ContractConfig | None,
    notes: list[str],
) -> RubricSet:
    """The contract's rubrics: those exported with it, else the base branch's, never the pull
    request's; and a note for each configuration file the pull request changes."""
    found = fixed_rubrics(contract, config)
    if found.get(contract.rubric_ref) is None:
        found.rubrics.update(rubrics_at(repo, ref).rubrics)
    try:
        changed = git(
            repo,
            "diff",
            "--name-only",
            "-z",
            "--ignore-submodules=all",  # the tree's .gitmodules is not read
            ref,
            "HEAD",
            "--",
            *_CONFIGURATION,
        )
    except GitError:
        changed = ""
    for path in sorted(p for p in changed.split("\0") if p):
        notes.append(
            f"{path} is changed in this pull request and was not used: judging takes its"
            f" configuration from the contract and {ref}"
        )
    return found


def _with_holdouts(
    contract: Contract, bundle: Path | None, notes: list[str]
) -> tuple[Contract, Path | None]:
    """The contract with its hold-out criteria and the folder of their files.

    A bundle from `referee holdout export` holds contract.yaml (the full contract, which must be
    the base branch's) and files/; a folder without contract.yaml is taken as the files alone, for
    a base-branch contract that carries its hold-out criteria itself.
    """
    if bundle is None:
        if any(c.holdout for c in contract.all_criteria()):
            notes.append("hold-out criteria run without their files: no --holdout-dir was given")
        return contract, None
    if not bundle.is_dir():
        raise GateError(f"--holdout-dir {bundle}: not a folder")
    full = contract
    if (bundle / BUNDLE_CONTRACT).is_file():
        try:
            full = load_contract_file(bundle / BUNDLE_CONTRACT)
        except ContractFileError as exc:
            raise GateError(f"--holdout-dir: {exc}") from exc
        if generator_view(full) != generator_view(contract):
            raise GateError(
                f"--holdout-dir holds contract {full.id}, which is not the base branch's"
                f" {contract.id} (or another version of it): export the bundle again with"
                " `referee holdout export`"
            )
    files = bundle / BUNDLE_FILES if (bundle / BUNDLE_FILES).is_dir() else bundle
    hidden = sum(1 for c in full.all_criteria() if c.holdout)
    notes.append(f"{hidden} hold-out criteria; their files from --holdout-dir")
    return full, files


# Not passed on: the key and the store are the gate's (the URL is a secret of its own, too).
_REFEREE_OWN = ("REFEREE_KEY", "REFEREE_HOME", "REFEREE_STORE_URL")


def _team_contract(store: Store, contract: Contract, notes: list[str]) -> Contract | None:
    """The team store's copy of the base branch's contract (with its hold-out criteria, which an
    exported generator view leaves out), when it is the same contract; None otherwise."""
    if not store.shared or not contract_exists(store, contract.id):
        return None
    stored = load_contract(store, contract.id)
    if generator_view(stored) != generator_view(contract.model_copy(update={"repo": stored.repo})):
        notes.append(
            f"the team store's contract {contract.id} differs from the base branch's; the gate"
            " uses the base branch's"
        )
        return None
    return stored


def _settings(repo: Path, scratch: Path, request: GateRequest, holdouts: Path | None) -> Settings:
    """A store of the gate's own, with a key made for this run: nothing committed counts. With a
    team store, the team's: the rows CI writes verify on every member's machine, and theirs here.
    """
    env = request.env
    key = KeySource(file=scratch / "key" / "signing.key", value=secrets.token_hex(32))
    if request.store_url:
        key = KeySource.from_env(env)
    base = Settings.build([repo], home=scratch / "store", env=dict(env))
    return Settings(
        roots=base.roots,
        home=base.home,
        env={k: v for k, v in env.items() if k not in _REFEREE_OWN},
        key=key,
        holdout_dir=holdouts,
        trusted_environment=True,
        store_url=request.store_url,
    )


async def _judge(
    request: GateRequest,
    contract: Contract,
    settings: Settings,
    store: Store,
    clock: Callable[[], datetime],
    notes: list[str],
    rubrics: RubricSet,
) -> GateResult:
    committed = read_cards(list(request.scorecards) or [settings.repo / DEFAULT_CARDS])
    outcomes = [_identify(c, contract, rubrics) for c in committed]
    latest = _latest(outcomes)
    iteration = max((o.iteration or 1 for o in latest.values()), default=1)
    evaluations = await _evaluate_all(contract, settings, store, clock, notes)
    if not committed:
        notes.append(
            "no scorecard found under "
            f"{', '.join(str(p) for p in request.scorecards) or DEFAULT_CARDS}"
        )
    runs = {e.evaluator: load_run(store, e.run_id).evaluation for e in evaluations}
    context = EvidenceContext(
        runs=runs_for(store, contract.id),
        tree=evaluations[0].target.tree if evaluations else None,
        key=store.key,
    )
    checked = []
    for outcome in outcomes:
        if outcome.result is None or latest.get(outcome.evaluator or "") is not outcome:
            checked.append(outcome)
            continue
        if outcome.iteration != iteration:
            notes.append(
                f"{outcome.source}: {outcome.evaluator}'s latest scorecard is for iteration"
                f" {outcome.iteration}, the gate judges iteration {iteration}"
            )
            checked.append(outcome)
            continue
        checked.append(_validate(outcome, runs, contract, rubrics, context, store, clock))
    bundle = FolderSource(settings.holdout_dir) if settings.holdout_dir else None
    names = bundle.names(contract.id) if bundle else []
    result = GateResult(
        "PENDING", "", contract, iteration, evaluations, checked, notes=notes, holdout_names=names
    )
    return _decide(result, store, rubrics, clock, bundle.texts(contract.id) if bundle else [])


def _identify(card: CommittedCard, contract: Contract, rubrics: RubricSet) -> CardOutcome:
    """Whose card it is and for which iteration (shape and contract rules only, for now)."""
    if card.problem is not None:
        listed = unreadable(card.problems) if card.problems else None
        return CardOutcome(card.source, card.body, None, None, listed, card.problem)
    shape = validate_scorecard(card.body, contract=contract, rubrics=rubrics)
    if shape.evaluator is None or not isinstance(card.body, dict):
        return CardOutcome(
            card.source, card.body, None, None, shape, "no evaluator of the contract is named"
        )
    iteration = shape.iteration or 1
    if iteration > contract.max_iterations:
        return CardOutcome(
            card.source,
            card.body,
            shape.evaluator,
            iteration,
            shape,
            f"iteration {iteration} is past the contract's max_iterations"
            f" ({contract.max_iterations}): no run of it can exist",
        )
    return CardOutcome(card.source, card.body, shape.evaluator, iteration, shape)


def _latest(outcomes: list[CardOutcome]) -> dict[str, CardOutcome]:
    latest: dict[str, CardOutcome] = {}
    for outcome in outcomes:
        if outcome.evaluator is None or outcome.problem is not None:
            continue
        current = latest.get(outcome.evaluator)
        if current is None or (outcome.iteration or 0) >= (current.iteration or 0):
            latest[outcome.evaluator] = outcome
    return latest


async def _evaluate_all(
    contract: Contract,
    settings: Settings,
    store: Store,
    clock: Callable[[], datetime],
    notes: list[str],
) -> list[Evaluation]:
    support = sandbox_support()
    if support.available:
        wanted = {"isolation": "sandbox", "require_sandbox": True}
    else:
        # No sandbox on this runner: a detached worktree of HEAD at least keeps the checkout clean.
        wanted = {"isolation": "worktree", "ref": "HEAD"}
        notes.append(f"no sandbox ({support.reason}): the checks ran in a git worktree of HEAD")
    deps = EvaluateDeps(store=store, settings=settings, now=clock)
    found = []
    for evaluator in contract.evaluators:
        request = EvaluateInput(contract_id=contract.id, evaluator=evaluator, **wanted)
        found.append(await evaluate(request, deps))
    return found


def _validate(
    outcome: CardOutcome,
    runs: Mapping[str | None, Evaluation],
    contract: Contract,
    rubrics: RubricSet,
    context: EvidenceContext,
    store: Store,
    clock: Callable[[], datetime],
) -> CardOutcome:
    """Validate (and store, when valid) one card bound to CI's run of its evaluator."""
    run = runs.get(outcome.evaluator)
    if run is None or not isinstance(outcome.body, dict):
        return outcome
    result = validate_and_store(
        rebind(outcome.body, run),
        contract=contract,
        rubrics=rubrics,
        evidence=context,
        store=store,
        store_result=True,
        now=clock,
        require_evidence=True,
    )
    return replace(outcome, result=result, counted=True)


def _decide(
    gate: GateResult,
    store: Store,
    rubrics: RubricSet,
    clock: Callable[[], datetime],
    holdout_texts: Sequence[str] = (),
) -> GateResult:
    """INVALID when a counted card is invalid; else aggregate's decision, DELIVER only when every
    evaluator accepted."""
    bad = [c for c in gate.cards if c.problem or (c.counted and not c.valid)]
    if bad:
        gate.outcome = "INVALID"
        gate.reason = (
            f"{counted(len(bad), 'committed scorecard')} {agrees(len(bad), 'is', 'are')} invalid"
            " against CI's own evidence"
        )
        return gate
    result = aggregate(
        gate.contract.id,
        store=store,
        rubrics=rubrics,
        iteration=gate.evaluations[0].iteration if gate.evaluations else 1,
        now=clock,
        holdout_files=gate.holdout_names,
        holdout_texts=holdout_texts,
    )
    gate.aggregate, gate.outcome, gate.reason = result, result.decision, result.reason
    verdicts = set(result.evaluator_verdicts.values())
    if result.decision == "DELIVER" and verdicts != {"ACCEPT"}:
        gate.outcome = "REVISE"
        gate.reason = (
            f"{result.reason}; the gate opens only for work every evaluator accepted (at the"
            " iteration bound aggregate delivers the best iteration, which still needs revision)"
        )
    return gate
