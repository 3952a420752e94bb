"""A short ref name read as the branch it names, never as a tag or a branch spelled like it.

git resolves a short name through refs/<name>, refs/tags/<name>, refs/heads/<name> and then
refs/remotes/<name>: a tag `origin/main`, which a pull request's author can push and a checkout
with fetch-depth 0 fetches, wins over the remote-tracking branch CI means by `origin/main`, and a
local branch `origin/main` wins over it too. referee reads its trusted inputs (the base branch's
contract, its rubrics) through a fully qualified ref chosen here: a remote-tracking branch first,
then a local branch, a tag last, and it names what the chosen ref shadowed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from referee.tools.repo.git import GitError, git

__all__ = ["QualifiedRef", "qualified_ref"]

# Where a short name is looked for, in the order referee trusts them: what CI fetched from the
# protected remote, then a branch of this clone, and a tag only when no branch has the name.
_NAMESPACES = ("refs/remotes/", "refs/heads/", "refs/tags/")
_OBJECT_ID = re.compile(r"[0-9a-fA-F]{40}(?:[0-9a-fA-F]{24})?")
# Revision suffixes (main~1, main^2, main@{1}) are kept and applied to the qualified name.
_SUFFIX = re.compile(r"[~^@]")


@dataclass(frozen=True)
class QualifiedRef:
    """A ref as given, the unambiguous name referee reads it by, and the refs it shadowed."""

    given: str
    ref: str
    shadowed: list[str] = field(default_factory=list)


def qualified_ref(repo: Path, name: str) -> QualifiedRef:
    """The fully qualified ref a name stands for (see the module docstring).

    A name that is already qualified (`refs/…`), `HEAD` or a full object id is kept as it is; a
    name no namespace holds (an abbreviated commit id) is left to git.
    """
    if name.startswith("refs/") or name == "HEAD" or _OBJECT_ID.fullmatch(name):
        return QualifiedRef(name, name)
    cut = _SUFFIX.search(name)
    short, suffix = (name[: cut.start()], name[cut.start() :]) if cut else (name, "")
    found = [ns + short for ns in _NAMESPACES if ns + short in _existing(repo, short)]
    if not found:
        return QualifiedRef(name, name)
    return QualifiedRef(name, found[0] + suffix, found[1:])


def _existing(repo: Path, short: str) -> set[str]:
    # for-each-ref matches a pattern as a prefix up to a slash (and as a glob): only exact
    # names count.
    wanted = {ns + short for ns in _NAMESPACES}
    try:
        out = git(repo, "for-each-ref", "--format=%(refname)", *sorted(wanted))
    except GitError:
        return set()
    return {line for line in out.splitlines() if line in wanted}
