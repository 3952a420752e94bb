"""`referee demo`: the whole loop on a bundled sample shop, start to finish, with scripted judges.

contract (with a hold-out) → the generator's first attempt → evaluate (tests, browser, static) →
two evaluators' scorecards validated → aggregate REVISE with a brief → the fix → iteration 2 →
DELIVER, and an HTML report. The judges are scripted so the demo needs no model and no API key;
everything else is referee doing its real work.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any

from referee.tools.aggregate.entry import aggregate
from referee.tools.create_contract import contract_rubrics
from referee.tools.create_contract.entry import create_contract
from referee.tools.evaluate.entry import EvaluateDeps, EvaluateInput, evaluate
from referee.tools.holdouts import add_holdout_files, store_vault
from referee.tools.models.aggregate import AggregateResult
from referee.tools.models.contract import Contract
from referee.tools.models.evaluation import Evaluation
from referee.tools.models.holdouts import AddHoldoutFilesInput
from referee.tools.models.validation import ValidationResult
from referee.tools.repo import describe_repo, working_tree_hash
from referee.tools.rubrics import load_rubrics
from referee.tools.settings import Settings
from referee.tools.store import Store
from referee.tools.store.runs import runs_for
from referee.tools.text import counted
from referee.tools.validate_scorecard.entry import EvidenceContext, validate_and_store

Say = Callable[[str, str], None]
TESTS_JUDGE, UX_JUDGE = "tests-judge", "ux-judge"


@dataclass
class DemoResult:
    repo: Path
    contract_id: str
    decisions: list[str] = field(default_factory=list)
    report: Path | None = None


def _package_folder(name: str) -> Path:
    return Path(str(resources.files("referee.tools.setup") / "demo_project" / name))


def _git(repo: Path, *args: str) -> None:
    env = {
        "GIT_AUTHOR_NAME": "demo",
        "GIT_AUTHOR_EMAIL": "demo@example.com",
        "GIT_COMMITTER_NAME": "demo",
        "GIT_COMMITTER_EMAIL": "demo@example.com",
        "PATH": "/usr/bin:/bin:/usr/local/bin",
    }
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)


def prepare_repo(workdir: Path) -> Path:
    """Copy the sample shop into `workdir/shop` and commit it as the base."""
    repo = workdir / "shop"
    if repo.exists():
        shutil.rmtree(repo)
    shutil.copytree(_package_folder("sample"), repo)
    (repo / "gitignore").rename(repo / ".gitignore")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "base: cart stub, tests, page")
    return repo


def holdout_files() -> list[dict[str, str]]:
    """The hold-out test, as the orchestrator hands it to referee: inline, never in the repo."""
    folder = _package_folder("holdouts")
    return [
        {"path": p.relative_to(folder).as_posix(), "content": p.read_text(encoding="utf-8")}
        for p in sorted(folder.rglob("*.py"))
    ]


def apply(repo: Path, version: str) -> None:
    """The generator's work: the cart module of an attempt ("attempt") or of the fix ("fix")."""
    shutil.copyfile(_package_folder(version) / "cart.py", repo / "shop" / "cart.py")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def chromium_available() -> bool:
    from referee.tools.browser.chromium import ChromiumNotFound, find_chromium

    try:
        find_chromium()
    except ChromiumNotFound:
        return False
    return True


def contract_request(with_browser: bool) -> dict[str, Any]:
    py = sys.executable
    functional: list[dict[str, Any]] = [
        {
            "criterion": "Cart totals are correct, with and without a discount",
            "verification_method": "test",
            "evaluator": TESTS_JUDGE,
            "check": {"kind": "tests", "argv": [py, "-m", "pytest", "-q", "tests/test_cart.py"]},
        },
    ]
    if with_browser:
        functional.append(
            {
                "criterion": "The page adds an item to the displayed total",
                "verification_method": "e2e",
                "evaluator": UX_JUDGE,
                "check": {
                    "kind": "browser",
                    "url": "/index.html",
                    "steps": [{"action": "click", "selector": "#add"}],
                    "expect": [
                        {"type": "visible", "text": "Total: 2.50"},
                        {"type": "no_console_errors"},
                        {"type": "no_failed_requests"},
                    ],
                },
            }
        )
    functional.append(
        {
            "criterion": "Discounted totals round half up to the cent",
            "verification_method": "test",
            "holdout": True,
            "evaluator": TESTS_JUDGE,
            "check": {
                "kind": "tests",
                "argv": [py, "-m", "pytest", "-q", "tests/test_rounding.py"],
            },
        }
    )
    port = _free_port()
    request: dict[str, Any] = {
        "goal": "Implement the cart total with a percentage discount, shown on the shop page.",
        "task_type": "feature",
        "has_ui": with_browser,
        "in_scope": ["shop/cart.py", "web/"],
        "out_of_scope": ["payments", "user accounts"],
        "evaluators": [TESTS_JUDGE, UX_JUDGE],
        "generator": "demo-generator",
        "max_iterations": 3,
        "slug": "demo-shop-cart",
        "functional": functional,
        "quality": [
            {
                "criterion": "No hardcoded secrets",
                "verification_method": "static",
                "evaluator": UX_JUDGE,
                "threshold": "0 findings",
                "check": {"kind": "static", "rule": "hardcoded_secrets"},
            }
        ],
    }
    if with_browser:
        request["serve"] = {
            "argv": [
                py,
                "-m",
                "http.server",
                str(port),
                "--bind",
                "127.0.0.1",
                "--directory",
                "web",
            ],
            "url": f"http://127.0.0.1:{port}/",
            "ready_timeout_s": 20,
        }
    return request


def judge(evaluation: Evaluation, contract: Contract, reading: dict[str, str]) -> dict[str, Any]:
    """A scripted judge: completes the draft with what a careful reader of the code would add."""
    card = evaluation.draft_scorecard.model_dump(mode="json", by_alias=True)
    card["provider"] = "referee-demo"
    card["evaluator_model"] = "scripted-judge"
    for key, dim in card["dimensions"].items():
        if dim["score"] is None:
            dim["score"] = 2
            dim["evidence"] = reading.get(
                key, "read shop/cart.py and web/app.js: clear, small, in scope"
            )
    for crit in card["criteria"]:
        if crit["pass"] is None:
            crit["pass"], crit["evidence"] = True, "checked by reading the code"
    card["issues"] = [i for i in card["issues"] if i["severity"] != "LOW"]
    # A careful judge says nothing in its issues about what a hold-out tests: the issues become
    # the generator's brief. The failed criterion speaks for itself (it forces a REVISE).
    hidden = {c.id for c in contract.all_criteria() if c.holdout}
    if any(c["pass"] is False and c["id"] in hidden for c in card["criteria"]):
        card["guidance"] = (
            "A criterion failed; the revision brief lists what the generator may see."
        )
    for key in ("verdict", "weighted_score"):
        card.pop(key, None)
    return card


@dataclass
class Loop:
    repo: Path
    store: Store
    settings: Settings
    contract: Contract
    say: Say

    def now(self) -> datetime:
        return datetime.now(UTC)

    async def evaluate(self, evaluator: str) -> Evaluation:
        deps = EvaluateDeps(store=self.store, settings=self.settings, now=self.now)
        return await evaluate(
            EvaluateInput(contract_id=self.contract.id, evaluator=evaluator), deps
        )

    def validate(self, card: dict[str, Any]) -> ValidationResult:
        context = EvidenceContext(
            runs=runs_for(self.store, self.contract.id),
            tree=working_tree_hash(self.repo),
            key=self.store.key,
        )
        return validate_and_store(
            card,
            contract=self.contract,
            rubrics=contract_rubrics(self.store, self.contract),
            evidence=context,
            store=self.store,
            store_result=True,
            now=self.now,
        )

    def aggregate(self, iteration: int) -> AggregateResult:
        vault = store_vault(self.store)
        return aggregate(
            self.contract.id,
            store=self.store,
            rubrics=contract_rubrics(self.store, self.contract),
            iteration=iteration,
            now=self.now,
            holdout_files=vault.names(self.contract.id),
            holdout_texts=vault.texts(self.contract.id),
        )


def start(workdir: Path, say: Say) -> Loop:
    repo = prepare_repo(workdir)
    say("repository", f"sample shop copied to {repo} and committed as the base")
    settings = Settings.build([repo])
    store = Store(
        settings.home,
        key=settings.key_source.load(),
        vault=settings.vault_root,
        url=settings.store_url,
    )
    with_browser = chromium_available()
    if not with_browser:
        say(
            "note",
            "no Chromium found: the browser criterion is left out (install chromium to see it)",
        )
    result = create_contract(
        contract_request(with_browser),
        store=store,
        rubrics=load_rubrics(repo),
        repo=describe_repo(repo),
        now=lambda: datetime.now(UTC),
    )
    added = add_holdout_files(
        AddHoldoutFilesInput(contract_id=result.contract.id, files=holdout_files()),
        contract=result.contract,
        vault=store_vault(store),
        repo=repo,
        roots=settings.roots,
        now=lambda: datetime.now(UTC).isoformat(timespec="seconds"),
    )
    say(
        "hold-out",
        f"{counted(len(added.files), 'hold-out test file')} stored in referee's vault, outside the"
        " repository: the generator never sees them",
    )
    return Loop(repo=repo, store=store, settings=settings, contract=result.contract, say=say)


READINGS = {
    "attempt": {
        "design_quality": (
            "shop/cart.py:4-9: one small pure function, inputs checked; but money is computed in"
            " floats"
        ),
        "ux_quality": "web/index.html: the total updates on click; labels are clear",
        "security": "no input reaches a shell, file or network; nothing to exploit",
    },
    "fix": {
        "design_quality": (
            "shop/cart.py: Decimal with ROUND_HALF_UP makes the money arithmetic exact and explicit"
        ),
        "ux_quality": "web/index.html: the total updates on click; labels are clear",
        "security": "no input reaches a shell, file or network; nothing to exploit",
    },
}


def _criteria_line(ev: Evaluation) -> str:
    marks = {"pass": "pass", "fail": "FAIL", "unscored": "unscored"}
    return ", ".join(
        f"{c.id}{' (hold-out)' if c.holdout else ''} {marks[c.status]}" for c in ev.criteria
    )


async def _judge_one(loop: Loop, evaluator: str, version: str) -> ValidationResult:
    ev = await loop.evaluate(evaluator)
    loop.say(
        "evaluate",
        f"{evaluator}, iteration {ev.iteration}: {_criteria_line(ev)}; "
        f"{len(ev.evidence)} evidence items, {counted(ev.findings_total, 'static finding')}",
    )
    result = loop.validate(judge(ev, loop.contract, READINGS[version]))
    verdict = result.computed.verdict
    detail = "; ".join(f"{p.path} [{p.code}]" for p in result.errors)
    loop.say(
        "validate",
        f"{evaluator}'s scorecard: {'valid' if result.valid else 'INVALID ' + detail}, "
        f"verdict {verdict}, weighted {result.computed.weighted_score}",
    )
    return result


async def run_iteration(loop: Loop, version: str, number: int) -> AggregateResult:
    apply(loop.repo, version)
    loop.say(
        "generator",
        "first attempt at shop/cart.py" if version == "attempt" else "applies the revision brief",
    )
    for evaluator in (TESTS_JUDGE, UX_JUDGE):
        await _judge_one(loop, evaluator, version)
    result = loop.aggregate(number)
    loop.say("aggregate", f"iteration {number}: {result.decision} ({result.reason})")
    if result.revision_brief:
        for issue in result.revision_brief.issues_to_address:
            loop.say("brief", issue.text)
    return result


async def run_demo(workdir: Path, say: Say) -> DemoResult:
    """Run the whole loop in `workdir`; returns the decisions and the report's path."""
    loop = start(workdir, say)
    hidden = [c.id for c in loop.contract.all_criteria() if c.holdout]
    say(
        "contract",
        f"{loop.contract.id}: {len(loop.contract.all_criteria())} criteria, hold-out"
        f" {', '.join(hidden)}; evaluators {', '.join(loop.contract.evaluators)}; rubric"
        f" {loop.contract.rubric_ref}",
    )
    outcome = DemoResult(repo=loop.repo, contract_id=loop.contract.id)
    for number, version in enumerate(("attempt", "fix"), start=1):
        outcome.decisions.append((await run_iteration(loop, version, number)).decision)
    outcome.report = write_report(loop, workdir)
    say("report", f"HTML report written to {outcome.report}")
    return outcome


def write_report(loop: Loop, workdir: Path) -> Path:
    from referee.tools.report import contract_report, render_html

    data = contract_report(loop.store, loop.contract.id)
    target = workdir / "referee-report.html"
    target.write_text(render_html(data), encoding="utf-8")
    return target
