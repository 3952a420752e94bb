"""Any bytes in a path: every stage that takes a name from the tree handles every name a file
system allows (tests/redteam_round3.py: ODD_NAMES), and every kind of entry it may hold. Hashed
as itself, never as another file; listed by git's NUL-separated interfaces; shown escaped."""

from __future__ import annotations

import hashlib
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from gitrepo import git, make_repo
from pydantic import Field
from redteam_round3 import ODD_NAMES

from referee.tools.adequacy.coverage_py import instrument_python, measurable
from referee.tools.environment.installed import environment_roots
from referee.tools.models.common import Model
from referee.tools.repo import (
    change_diff,
    changed_files,
    changed_lines,
    ignored,
    last_commits,
    list_files,
    working_tree_hash,
)
from referee.tools.repo.names import c_quoted
from referee.tools.repo.tree import tree_entries
from referee.tools.runners import Plan, Report
from referee.tools.static.model import StaticFinding, StaticReport
from referee.tools.static.sarif import to_sarif
from referee.tools.text import encodable, shown, unshown

NAMES = sorted(ODD_NAMES)


def _blob(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def _write(repo: Path, name: bytes, data: bytes) -> None:
    with open(os.fsencode(repo) + b"/" + name, "wb") as out:
        out.write(data)


def _listing(repo: Path, tree: str) -> dict[bytes, str]:
    """The tree as git lists it (`ls-tree -z`): each name's blob."""
    done = subprocess.run(
        ["git", "ls-tree", "-r", "-z", tree], cwd=repo, check=True, capture_output=True
    )
    found = {}
    for entry in filter(None, done.stdout.split(b"\0")):
        meta, _, name = entry.partition(b"\t")
        found[name] = meta.split()[2].decode()
    return found


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {"README.md": "# names\n"})


@pytest.mark.parametrize("what", NAMES)
def test_each_name_is_hashed_as_its_own_content(what: str, repo: Path) -> None:
    name = ODD_NAMES[what]
    _write(repo, name, b"content of the odd name\n")
    # What a name's misreading would hash instead: its unquoted or cut-off look-alikes.
    for other in (b"xAA", b"a", b"b.py", b"cr.py", b"quoted.py"):
        _write(repo, other, b"another file: " + other + b"\n")
    listing = _listing(repo, working_tree_hash(repo))
    assert listing[name] == _blob(b"content of the odd name\n")
    assert {n for n in listing if n != b"README.md"} >= {name, b"xAA"}


@pytest.mark.parametrize("what", NAMES)
def test_each_name_is_a_changed_file_with_its_changed_lines(what: str, repo: Path) -> None:
    name = ODD_NAMES[what]
    base = git(repo, "rev-parse", "HEAD")
    _write(repo, name, b"x = 1\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "odd")
    _write(repo, name, b"x = 1\ny = 2\n")
    tree = working_tree_hash(repo)
    path = os.fsdecode(name)
    assert changed_files(repo, base, tree) == [path]
    assert changed_lines(repo, git(repo, "rev-parse", "HEAD"), tree) == {path: {2}}
    assert path in list_files(repo)
    assert last_commits(repo, [path]) == {path: git(repo, "log", "-1", "--format=%h")}


def test_pathspec_magic_and_globs_in_a_name_select_only_that_file(repo: Path) -> None:
    """git reads a path given after `--` as a pattern unless told otherwise: `star*` would be
    every file starting `star`, `:(exclude)x` every file but x."""
    for name in (b"star*[a]?.py", b"starfish.py", b":(exclude)magic.py", b"magic.py"):
        _write(repo, name, name)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "names")
    (repo / "starfish.py").write_bytes(b"changed later\n")
    git(repo, "commit", "-qam", "later")
    wanted = ["star*[a]?.py", ":(exclude)magic.py"]
    assert set(last_commits(repo, wanted)) == set(wanted)
    assert last_commits(repo, wanted)["star*[a]?.py"] == git(
        repo, "log", "-1", "--format=%h", "HEAD~1"
    )


def test_ignored_reads_every_name_back(repo: Path) -> None:
    (repo / ".gitignore").write_text("*.log\n")
    names = [os.fsdecode(n) for n in ODD_NAMES.values()] + ["x\nout.log"]
    assert ignored(repo, names) == {"x\nout.log"}


def test_fifos_sockets_and_links_in_the_tree_are_not_opened(repo: Path) -> None:
    """Only regular files are hashed (a FIFO would hold git until its timeout); links are
    hashed as links, dangling or looping, as git stores them."""
    os.mkfifo(repo / "fifo.py")
    here = os.getcwd()
    os.chdir(repo)
    try:
        sock = socket.socket(socket.AF_UNIX)
        sock.bind("sock.py")
        sock.close()
    finally:
        os.chdir(here)
    os.symlink("loop", repo / "loop")
    os.symlink("missing", repo / "dangling.py")
    listing = _listing(repo, working_tree_hash(repo))
    assert b"fifo.py" not in listing and b"sock.py" not in listing
    assert listing[b"loop"] == _blob(b"loop") and listing[b"dangling.py"] == _blob(b"missing")
    assert environment_roots(repo) == []


@pytest.mark.skipif(shutil.which("unshare") is None, reason="needs unshare (util-linux)")
def test_an_unreadable_file_is_left_out_of_the_tree(repo: Path) -> None:
    """A file referee cannot read cannot be hashed: left out as a deleted file is, rather than
    failing the whole tree. (Run in a user namespace, where the file's owner is not mapped and
    its mode 000 holds even for root.)"""
    _write(repo, b"secret.py", b"x = 1\n")
    _write(repo, b"plain.py", b"y = 2\n")
    subprocess.run(["chmod", "-R", "a+rwX", str(repo)], check=True)
    (repo / "secret.py").chmod(0)
    script = (
        "import sys\nfrom pathlib import Path\n"
        "from referee.tools.repo.tree import tree_entries\n"
        "print('\\n'.join(p for _, _, p in tree_entries(Path(sys.argv[1]))))\n"
    )
    done = subprocess.run(
        ["unshare", "--user", sys.executable, "-c", script, str(repo)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0 and "unshare failed" in done.stderr:
        pytest.skip(f"no user namespace here: {done.stderr.strip()}")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["README.md", "plain.py"]


# --- where names become text ------------------------------------------------------------------


@pytest.mark.parametrize("what", NAMES)
def test_a_shown_name_is_one_encodable_line_read_back_as_the_name(what: str) -> None:
    name = os.fsdecode(ODD_NAMES[what])
    text = shown(name)
    text.encode("utf-8")
    assert "\n" not in text and "\r" not in text and "\u202e" not in text
    assert unshown(text) == name


def test_shown_never_shows_two_names_alike() -> None:
    names = [os.fsdecode(n) for n in ODD_NAMES.values()]
    names += ["back\\\\slash.py", "bytes-\\xff\\xfe.py", "a\\nb.py", "nel-\x85.py"]
    assert len({shown(n) for n in names}) == len(set(names))


def test_git_quoting_keeps_every_byte() -> None:
    """What `--stdin-paths` reads: one printable ASCII line a name, whatever the name holds."""
    for name in ODD_NAMES.values():
        quoted = c_quoted(os.fsdecode(name))
        assert quoted.isascii() and b"\n" not in quoted and quoted.startswith(b'"')


class _Constrained(Model):
    description: str = Field(min_length=1)
    paths: list[str] = Field(default_factory=list)


def test_a_model_escapes_undecodable_text_rather_than_refusing_it() -> None:
    made = _Constrained(description="wrote out-\udcff.txt", paths=["a\udcfe"])
    assert made.description == "wrote out-\\xff.txt" and made.paths == ["a\\xfe"]
    made.model_dump_json()
    assert encodable("plain") == "plain"


def test_a_diff_names_every_file_on_one_line(repo: Path) -> None:
    base = git(repo, "rev-parse", "HEAD")
    _write(repo, b"a\nb.py", b"x = 1\n")
    tree = working_tree_hash(repo)
    text = change_diff(repo, base, tree, ["a\nb.py"])
    assert "+++ b/a\\nb.py\n" in text


def test_the_coverage_configuration_holds_every_name_on_its_line(tmp_path: Path) -> None:
    sources = [os.fsdecode(n) for n in ODD_NAMES.values() if n.endswith(b".py")]
    kept = measurable(sources)
    assert "bytes-\udcff\udcfe.py" not in kept and "\udce9t\udce9.py" not in kept  # not UTF-8
    argv = (sys.executable, "-m", "pytest")
    plan = Plan(runner="pytest", argv=argv, report=Report("junit", lambda data: []))
    done = instrument_python(plan, tmp_path, kept, None, {})
    assert done is not None
    rc = (tmp_path / "coveragerc").read_text(encoding="utf-8")
    include = rc.split("include =\n", 1)[1].splitlines()
    assert len(include) == len(kept)
    assert all(line.startswith("    */") and "$" not in line for line in include)


def test_sarif_names_a_file_by_its_bytes(tmp_path: Path) -> None:
    finding = StaticFinding("file_length", "LOW", "src/a\udcff\nb.py", 1, "too long")
    log = to_sarif(StaticReport(findings=[finding]), "1")
    uri = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert uri["uri"] == "src/a%FF%0Ab.py"


def test_tree_entries_list_a_name_with_a_line_break_once(repo: Path) -> None:
    _write(repo, b"a\nb.py", b"1\n")
    paths = [p for _, _, p in tree_entries(repo)]
    assert paths.count("a\nb.py") == 1 and "a" not in paths and "b.py" not in paths
