"""Configuration comes only from the contract, referee and the base: the channels around it.

test_fixed_configuration.py plants a rubric or an allowlist in the tree after the contract is
written. Here the generator goes around that: other file names a scanner might read, the
configuration planted before the orchestrator writes the contract, an exported contract whose
configuration and digest are both rewritten, a tag that shadows the base branch the gate reads the
contract from, and secrets in places the static scan does not read (referee's own folder, a file
that looks binary or is large, a UTF-16 file, a key split or encoded in the source).
"""

from __future__ import annotations

import base64
import codecs
import copy
import gzip
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from edits import Edit, agent_for, both, written
from gitrepo import git
from mcp import Client
from mcp_calls import call
from projects import calc_repo, commit_all, pytest_check
from runs import judged
from secrets_config import (
    KEY_ID,
    KEY_SECRET,
    KEYS,
    own_rubric,
    security_dropped,
    without_security,
)

from referee.server.cli import main as cli
from referee.tools.create_contract import config_digest, parse_exported
from referee.tools.create_contract.seal import contract_seal
from referee.tools.models.contract import ContractConfig
from referee.tools.repo import qualified_ref, resolve_commit

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


def suite() -> dict[str, Any]:
    return {
        "criterion": "tests pass",
        "verification_method": "test",
        "check": pytest_check("tests"),
    }


async def new_contract(agent: Client) -> str:
    made = await call(
        agent,
        "create_contract",
        goal="Add a settings module.",
        out_of_scope=["the user interface"],
        functional=[suite()],
    )
    return str(made["contract"]["id"])


async def judged_result(agent: Client, cid: str) -> tuple[dict[str, Any], dict[str, Any]]:
    result = await call(agent, "evaluate", contract_id=cid)
    await call(agent, "validate_scorecard", scorecard=judged(result["draft_scorecard"]))
    return result, await call(agent, "aggregate", contract_id=cid)


def secret_found(result: dict[str, Any], path: str) -> bool:
    return any(
        f["rule"] == "hardcoded_secrets" and f["location"].rpartition(":")[0] == path
        for f in result["findings"]
    )


# --- other names a scanner could read its allowlist from -------------------------------------

IGNORE_ALL = "[allowlist]\npaths = ['''.*''']\nregexes = ['''.*''']\n"

OTHER_NAMES: dict[str, Edit] = {
    "gitleaksignore": written(".gitleaksignore", "src/keys.py:aws-access-token:1\n"),
    "upper-case-name": written(".GITLEAKS.TOML", IGNORE_ALL),
    "subfolder-config": written("src/.gitleaks.toml", IGNORE_ALL),
    "xdg-style-config": written(".config/gitleaks.toml", IGNORE_ALL),
    "no-dot-name": written("gitleaks.toml", IGNORE_ALL),
    "in-referee-folder": written(".referee/gitleaks.toml", IGNORE_ALL),
    "betterleaks-yaml": written(".betterleaks.yaml", "allowlist:\n  paths: ['.*']\n"),
}


@pytest.mark.parametrize("name", sorted(OTHER_NAMES))
async def test_no_other_file_name_allowlists_a_secret(name: str, tmp_path: Path) -> None:
    repo = calc_repo(tmp_path / "calc")
    async with agent_for(repo) as agent:
        cid = await new_contract(agent)
        both(OTHER_NAMES[name], written("src/keys.py", KEYS))(repo)
        result, decision = await judged_result(agent, cid)
    assert secret_found(result, "src/keys.py"), result["findings"]
    assert decision["decision"] != "DELIVER", decision


# --- configuration there before the contract was written --------------------------------------

ALLOW_KEYS_FILE = "[allowlist]\npaths = ['''src/keys\\.py''']\n"
HARMLESS_ALLOWLIST = "[allowlist]\npaths = ['''docs/.*''']\n"
RUBRIC = ".referee/rubrics/FEATURE_BACKEND.yaml"


def _appended_line(path: str, line: str) -> Edit:
    def edit(repo: Path) -> None:
        target = repo / path
        target.parent.mkdir(parents=True, exist_ok=True)
        with target.open("a", encoding="utf-8") as out:
            out.write(f"{line}\n")

    return edit


def _staged(edit: Edit, path: str) -> Edit:
    """Written and added to the index, never committed: the index is not the base commit."""

    def plant(repo: Path) -> None:
        edit(repo)
        git(repo, "add", "-f", path)

    return plant


def _ignored(edit: Edit, pattern: str) -> Edit:
    """Written where the repository's own ignore rules hide it from `git status`."""
    return both(edit, _appended_line(".git/info/exclude", pattern))


def _edited_after_commit(path: str, committed: str, edit: Edit) -> Edit:
    """A harmless version committed (the base), then edited in the working tree, uncommitted."""

    def plant(repo: Path) -> None:
        written(path, committed)(repo)
        git(repo, "add", "-f", path)
        git(repo, "commit", "-qm", f"add {path}")
        edit(repo)

    return plant


BEFORE: dict[str, Edit] = {
    "untracked-rubric": written(RUBRIC, without_security()),
    "untracked-rubric-other-spelling": written(
        ".referee/rubrics/feature_backend.yml", without_security("feature_backend")
    ),
    "untracked-allowlist": written(".gitleaks.toml", ALLOW_KEYS_FILE),
    "untracked-betterleaks-allowlist": written(".betterleaks.toml", ALLOW_KEYS_FILE),
    "ignored-rubric": _ignored(written(RUBRIC, without_security()), ".referee/"),
    "ignored-allowlist": _ignored(written(".gitleaks.toml", ALLOW_KEYS_FILE), ".gitleaks.toml"),
    "staged-rubric": _staged(written(RUBRIC, without_security()), RUBRIC),
    "staged-allowlist": _staged(written(".gitleaks.toml", ALLOW_KEYS_FILE), ".gitleaks.toml"),
    "committed-rubric-edited": _edited_after_commit(
        RUBRIC, own_rubric("FEATURE_BACKEND"), written(RUBRIC, without_security())
    ),
    "committed-allowlist-edited": _edited_after_commit(
        ".gitleaks.toml", HARMLESS_ALLOWLIST, written(".gitleaks.toml", ALLOW_KEYS_FILE)
    ),
    "rubric-and-allowlist-untracked": both(
        written(RUBRIC, without_security()), written(".betterleaks.toml", ALLOW_KEYS_FILE)
    ),
}


@pytest.mark.parametrize("plant", sorted(BEFORE))
async def test_configuration_planted_before_the_contract_is_not_the_orchestrators(
    plant: str, tmp_path: Path
) -> None:
    """The generator of an earlier round left an uncommitted rubric or allowlist in the tree; the
    orchestrator then writes the next contract, which stores what it finds in the working tree."""
    repo = calc_repo(tmp_path / "calc")
    BEFORE[plant](repo)
    async with agent_for(repo) as agent:
        cid = await new_contract(agent)
        written("src/keys.py", KEYS)(repo)
        result, decision = await judged_result(agent, cid)
    dimensions = result["draft_scorecard"]["dimensions"]
    assert dimensions.get("security", {}).get("score") == 0, (dimensions, result["findings"])
    assert decision["decision"] != "DELIVER", decision


async def test_a_rubric_only_the_working_tree_holds_cannot_be_named(tmp_path: Path) -> None:
    """A contract naming an untracked rubric is refused (commit it first), and a base commit
    that holds it makes it the contract's, whatever the working tree holds now."""
    repo = calc_repo(tmp_path / "calc")
    written(".referee/rubrics/team.yaml", own_rubric("TEAM"))(repo)
    request = {
        "goal": "Add a settings module.",
        "out_of_scope": ["the user interface"],
        "functional": [suite()],
        "rubric_ref": "TEAM",
    }
    async with agent_for(repo) as agent:
        refused = await agent.call_tool("create_contract", request)
        assert refused.is_error is True
        assert "unknown_rubric" in str(refused.content), refused.content
        git(repo, "add", "-f", ".referee/rubrics")
        git(repo, "commit", "-qm", "the team's rubric")
        base = git(repo, "rev-parse", "HEAD")
        written(".referee/rubrics/team.yaml", without_security("TEAM"))(repo)
        git(repo, "commit", "-qam", "the generator's rubric")
        made = await call(agent, "create_contract", **request, base_commit=base)
        assert made["contract"]["base_commit"] == base
        written("src/keys.py", KEYS)(repo)
        result, decision = await judged_result(agent, made["contract"]["id"])
    dimensions = result["draft_scorecard"]["dimensions"]
    assert dimensions.get("security", {}).get("score") == 0, dimensions
    assert decision["decision"] != "DELIVER", decision


# --- the exported contract, edited with its digest ---------------------------------------------


def _exported(repo: Path, tmp: Path, capsys: pytest.CaptureFixture[str]) -> tuple[str, Path]:
    home = tmp / "home"
    source = tmp / "request.yaml"
    source.write_text(
        yaml.safe_dump({"goal": "Add a settings module.", "functional": [suite()]}),
        encoding="utf-8",
    )
    capsys.readouterr()
    root = ["--root", str(repo), "--home", str(home)]
    assert cli([*root, "contract", "create", str(source), "--json"]) == 0
    cid = str(json.loads(capsys.readouterr().out)["contract"]["id"])
    exported = tmp / "contract.yaml"
    assert cli([*root, "contract", "export", cid, "-o", str(exported)]) == 0
    return cid, exported


Doc = dict[str, Any]


def _without_security(doc: Doc) -> Doc:
    """The configuration's rubric without security, and config_digest recomputed to match."""
    doc["config"]["rubric"] = security_dropped(doc["config"]["rubric"])
    return _redigested(doc)


def _redigested(doc: Doc) -> Doc:
    doc["config_digest"] = config_digest(ContractConfig.model_validate(doc["config"]))
    return doc


def _config_dropped(doc: Doc) -> Doc:
    del doc["config"]
    return doc


def _unsealed(doc: Doc) -> Doc:
    del doc["seal"]
    return _without_security(doc)


def _sealed_with_another_key(doc: Doc) -> Doc:
    doc = _without_security(doc)
    contract, config = parse_exported({k: v for k, v in doc.items() if k != "seal"})
    doc["seal"] = contract_seal(b"the generator's own key, 32 bytes", contract, config)
    return doc


def _check_replaced(doc: Doc) -> Doc:
    """The configuration untouched: the criterion's check passes whatever the code does."""
    for criterion in doc["acceptance_criteria"]["functional"]:
        criterion["check"] = {"kind": "command", "argv": ["true"]}
    return doc


def _allowlist_added(doc: Doc) -> Doc:
    doc["config"]["allowlist"] = {"name": ".gitleaks.toml", "text": "[allowlist]\npaths=['.*']\n"}
    return _redigested(doc)


def _seal_not_a_string(doc: Doc) -> Doc:
    doc["seal"] = [doc["seal"]]
    return _without_security(doc)


def _seal_empty(doc: Doc) -> Doc:
    doc["seal"] = ""
    return _without_security(doc)


def _seal_upper_case(doc: Doc) -> Doc:
    doc["seal"] = doc["seal"].upper()
    return _without_security(doc)


def _rubric_renamed(doc: Doc) -> Doc:
    """Judged as another rubric the contract never named (PROJECT_HEALTH has no security)."""
    doc["rubric_ref"] = "PROJECT_HEALTH"
    doc["config"]["rubric"]["name"] = "PROJECT_HEALTH"
    return _without_security(doc)


EDITS: dict[str, Callable[[Doc], Doc]] = {
    "config-and-digest-rewritten": _without_security,
    "config-dropped": _config_dropped,
    "seal-dropped": _unsealed,
    "sealed-with-another-key": _sealed_with_another_key,
    "check-replaced-config-kept": _check_replaced,
    "allowlist-added": _allowlist_added,
    "seal-not-a-string": _seal_not_a_string,
    "seal-empty": _seal_empty,
    "seal-upper-case": _seal_upper_case,
    "rubric-renamed": _rubric_renamed,
}


def _rewritten(exported: Path, tmp: Path, edit: str, suffix: str = ".yaml") -> Path:
    doc = EDITS[edit](copy.deepcopy(yaml.safe_load(exported.read_text(encoding="utf-8"))))
    target = tmp / f"edited{suffix}"
    text = json.dumps(doc) if suffix == ".json" else yaml.safe_dump(doc)
    target.write_text(text, encoding="utf-8")
    return target


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_an_exported_contract_edited_with_its_digest_is_refused(
    edit: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """config_digest is a plain hash anyone can recompute: a file whose rubric lost its security
    dimension and whose digest was recomputed must not validate a card without security."""
    repo = calc_repo(tmp_path / "calc")
    cid, exported = _exported(repo, tmp_path, capsys)
    written("src/keys.py", KEYS)(repo)
    capsys.readouterr()
    home = tmp_path / "home"
    assert cli(["--root", str(repo), "--home", str(home), "evaluate", cid, "--json"]) in (0, 1)
    card = judged(json.loads(capsys.readouterr().out)["draft_scorecard"])
    card["dimensions"].pop("security")
    card_file = tmp_path / "card.json"
    card_file.write_text(json.dumps(card), encoding="utf-8")
    edited = _rewritten(exported, tmp_path, edit)
    capsys.readouterr()
    fresh = ["--root", str(repo), "--home", str(tmp_path / "fresh")]
    code = cli([*fresh, "validate", str(card_file), "--contract", str(edited), "--json"])
    captured = capsys.readouterr()
    assert code != 0, captured.out


CHANNELS: dict[str, Callable[[Path], list[str]]] = {
    "contract-import": lambda f: ["contract", "create", str(f), "--json"],
    "aggregate-file": lambda f: ["aggregate", str(f), "--json"],
    "validate-json-file": lambda f: ["validate", str(f), "--contract", str(f), "--json"],
}


@pytest.mark.parametrize("channel", sorted(CHANNELS))
def test_every_command_that_reads_an_exported_file_checks_its_seal(
    channel: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = calc_repo(tmp_path / "calc")
    _, exported = _exported(repo, tmp_path, capsys)
    suffix = ".json" if channel.endswith("json-file") else ".yaml"
    edited = _rewritten(exported, tmp_path, "config-and-digest-rewritten", suffix)
    capsys.readouterr()
    root = ["--root", str(repo), "--home", str(tmp_path / "fresh")]
    code = cli([*root, *CHANNELS[channel](edited)])
    captured = capsys.readouterr()
    assert code != 0, captured.out
    assert "contract_seal_mismatch" in captured.err, captured.err


def test_an_exported_file_laid_out_anew_still_verifies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The seal covers the contract and its configuration, not the file's layout: the same
    document as JSON, its keys in another order, is imported as it was exported."""
    repo = calc_repo(tmp_path / "calc")
    cid, exported = _exported(repo, tmp_path, capsys)
    doc = yaml.safe_load(exported.read_text(encoding="utf-8"))
    again = tmp_path / "again.json"
    again.write_text(json.dumps(dict(reversed(list(doc.items())))), encoding="utf-8")
    capsys.readouterr()
    fresh = ["--root", str(repo), "--home", str(tmp_path / "fresh")]
    code = cli([*fresh, "contract", "create", str(again), "--json"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert json.loads(out)["contract"]["id"] == cid


# --- the gate's base ref, shadowed --------------------------------------------------------------


def _loose_ref(name: str) -> Callable[[Path], None]:
    """A ref file written straight into the git folder (git's first look-up is $GIT_DIR/<name>)."""

    def plant(repo: Path) -> None:
        target = repo / ".git" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(git(repo, "rev-parse", "HEAD") + "\n", encoding="utf-8")

    return plant


def _run_git(*args: str) -> Callable[[Path], None]:
    def plant(repo: Path) -> None:
        git(repo, *args)

    return plant


def _packed_tag(repo: Path) -> None:
    git(repo, "tag", "origin/main")
    git(repo, "pack-refs", "--all")


# Each plants, at the author's commit, a ref that git's short-name rules (refs/<n>, refs/tags/<n>,
# refs/heads/<n> before refs/remotes/<n>) put before the base branch the gate is named.
SHADOWS: dict[str, tuple[str, Callable[[Path], None]]] = {
    "tag": ("origin/main", _run_git("tag", "origin/main")),
    "annotated-tag": ("origin/main", _run_git("tag", "-a", "-m", "base", "origin/main")),
    "packed-tag": ("origin/main", _packed_tag),
    "local-branch-of-the-name": ("origin/main", _run_git("branch", "origin/main")),
    "ref-under-refs": ("origin/main", _run_git("update-ref", "refs/origin/main", "HEAD")),
    "loose-ref-in-git-folder": ("origin/main", _loose_ref("origin/main")),
    "tag-with-revision-suffix": ("origin/main~0", _run_git("tag", "origin/main")),
    "tag-over-local-base": ("main", _run_git("tag", "main")),
    "ref-under-refs-over-local-base": ("main", _run_git("update-ref", "refs/main", "HEAD")),
}


@pytest.mark.parametrize("shadow", sorted(SHADOWS))
def test_a_tag_cannot_shadow_the_base_branch_the_gate_reads(
    shadow: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """CI names the base as `origin/<base>`; a checkout with fetch-depth 0 fetches tags too, and
    git resolves `refs/tags/origin/main` before `refs/remotes/origin/main`. A tag the pull request's
    author pushes under that name holds a contract whose check passes whatever the code does."""
    name, plant = SHADOWS[shadow]
    repo = calc_repo(tmp_path / "calc")
    home = tmp_path / "home"
    source = tmp_path / "request.yaml"
    source.write_text(
        yaml.safe_dump({"goal": "Keep adding right.", "functional": [suite()]}), encoding="utf-8"
    )
    root = ["--root", str(repo), "--home", str(home)]
    capsys.readouterr()
    assert cli([*root, "contract", "create", str(source), "--json"]) == 0
    cid = json.loads(capsys.readouterr().out)["contract"]["id"]
    path = ".referee/contracts/calc.yaml"
    (repo / ".referee" / "contracts").mkdir(parents=True)
    assert cli([*root, "contract", "export", cid, "-o", str(repo / path)]) == 0
    commit_all(repo, "the contract")
    git(repo, "update-ref", "refs/remotes/origin/main", "HEAD")
    git(repo, "checkout", "-q", "-b", "feature")
    (repo / "src" / "calc.py").write_text("def add(a, b):\n    return a - b\n", encoding="utf-8")
    commit_all(repo, "broken add")
    doc = yaml.safe_load((repo / path).read_text(encoding="utf-8"))
    for criterion in doc["acceptance_criteria"]["functional"]:
        criterion["check"] = {"kind": "command", "argv": ["true"]}
    (repo / path).write_text(yaml.safe_dump(doc), encoding="utf-8")
    commit_all(repo, "the author's contract")
    plant(repo)
    git(repo, "reset", "-q", "--hard", "HEAD~1")
    capsys.readouterr()
    code = cli(
        [
            "--root",
            str(repo),
            "--home",
            str(tmp_path / "ci"),
            "ci",
            "--contract-ref",
            f"{name}:{path}",
            "--json",
        ]
    )
    out = capsys.readouterr().out
    assert code not in (0, 2), out
    report = json.loads(out)
    # The pull request left the contract as the base branch has it: the gate read another one
    # only if the shadowing ref won.
    assert not any("differs in this pull request" in n for n in report["notes"]), report["notes"]


def test_a_base_commit_named_like_a_tag_is_the_branch(tmp_path: Path) -> None:
    """create_contract's base_commit `origin/main` is the remote-tracking branch, not a tag of
    that name on another commit."""
    repo = calc_repo(tmp_path / "calc")
    git(repo, "update-ref", "refs/remotes/origin/main", "HEAD")
    base = git(repo, "rev-parse", "HEAD")
    (repo / "src" / "calc.py").write_text("def add(a, b):\n    return a - b\n", encoding="utf-8")
    commit_all(repo, "broken add")
    git(repo, "tag", "origin/main")
    assert resolve_commit(repo, "origin/main") == base
    assert qualified_ref(repo, "origin/main").shadowed == ["refs/tags/origin/main"]


# --- secrets where the static scan does not look -----------------------------------------------

BIG = "PADDING=0\n" * 110_000
# As large, in a Python file, as comments: the size is what is tried here, not a parse of 110,000
# statements (which every Python reader of the change would make).
BIG_COMMENT = ("# " + "padding " * 12 + "\n") * 11_000
SPLIT = (
    f'AWS_ACCESS_KEY_ID = "{KEY_ID[:10]}" "{KEY_ID[10:]}"\n'
    f'AWS_SECRET_ACCESS_KEY = "{KEY_SECRET[:20]}" + "{KEY_SECRET[20:]}"\n'
)
ENCODED = (
    "import base64\n\n"
    f"AWS_ACCESS_KEY_ID = base64.b64decode({base64.b64encode(KEY_ID.encode())!r}).decode()\n"
    "AWS_SECRET_ACCESS_KEY = base64.b64decode("
    f"{base64.b64encode(KEY_SECRET.encode())!r}).decode()\n"
)


def _literal_of(encode: Callable[[bytes], bytes]) -> str:
    """The keys file as one encoded literal in Python source."""
    return f"import base64\n\nBLOB = {encode(KEYS.encode()).decode()!r}\n"


def _gzip_base64(data: bytes) -> bytes:
    return base64.b64encode(gzip.compress(data))


KEYS_UTF16_BE = KEYS.encode("utf-16-be")  # no byte-order mark: told by its zero bytes
HIDDEN: dict[str, tuple[str, Edit]] = {
    "referee-folder-untracked": (
        ".referee/notes/keys.env",
        written(".referee/notes/keys.env", KEYS),
    ),
    "nul-bytes-past-the-sniff": (
        "assets/blob.bin",
        written("assets/blob.bin", b"\0" * 9000 + b"\n" + KEYS.encode() + b"\xff\xfe"),
    ),
    "utf-16-be-without-bom": ("settings/keys.txt", written("settings/keys.txt", KEYS_UTF16_BE)),
    "utf-32-file": ("settings/keys32.env", written("settings/keys32.env", KEYS.encode("utf-32"))),
    "base64url-literal": (
        "src/blob.py",
        written("src/blob.py", _literal_of(base64.urlsafe_b64encode)),
    ),
    "base32-literal": ("src/blob.py", written("src/blob.py", _literal_of(base64.b32encode))),
    "base85-literal": ("src/blob.py", written("src/blob.py", _literal_of(base64.b85encode))),
    "rot13-literal": (
        "src/blob.py",
        written("src/blob.py", _literal_of(lambda b: codecs.encode(b.decode(), "rot13").encode())),
    ),
    "hex-literal": ("src/blob.py", written("src/blob.py", _literal_of(lambda b: b.hex().encode()))),
    "double-base64-literal": (
        "src/blob.py",
        written("src/blob.py", _literal_of(lambda b: base64.b64encode(base64.b64encode(b)))),
    ),
    "gzip-base64-in-a-large-file": (
        "settings/big.py",
        written("settings/big.py", BIG_COMMENT + _literal_of(_gzip_base64)),
    ),
    "key-at-the-end-of-a-large-utf-16-file": (
        "settings/big16.env",
        written("settings/big16.env", (BIG + KEYS).encode("utf-16")),
    ),
    "referee-folder": (".referee/deploy/keys.py", written(".referee/deploy/keys.py", KEYS)),
    "nul-byte-header": ("settings/keys.cfg", written("settings/keys.cfg", b"\0\n" + KEYS.encode())),
    "utf-16-file": ("settings/keys.env", written("settings/keys.env", KEYS.encode("utf-16"))),
    "over-a-megabyte": ("settings/big.env", written("settings/big.env", KEYS + BIG)),
    "split-literal": ("src/keys.py", written("src/keys.py", SPLIT)),
    "base64-literal": ("src/keys.py", written("src/keys.py", ENCODED)),
    "ignored-but-tracked": (
        "src/keys.py",
        both(written(".gitignore", "__pycache__/\nsrc/keys.py\n"), written("src/keys.py", KEYS)),
    ),
}


@pytest.mark.parametrize("place", sorted(HIDDEN))
async def test_a_committed_secret_is_found_wherever_it_is(place: str, tmp_path: Path) -> None:
    """Each file is committed with the change (delivered with it), so the secret ships."""
    repo = calc_repo(tmp_path / "calc")
    path, plant = HIDDEN[place]
    async with agent_for(repo) as agent:
        cid = await new_contract(agent)
        plant(repo)
        git(repo, "add", "-A")
        git(repo, "add", "-f", path)
        git(repo, "commit", "-qm", "settings")
        result, decision = await judged_result(agent, cid)
    assert secret_found(result, path), result["findings"]
    assert decision["decision"] != "DELIVER", decision
