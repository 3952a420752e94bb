"""The evaluated repository, through git commands the repository cannot steer.

git       the one git runner: safe `-c` options, clean environment, timeouts
info      root, HEAD, refs (describe_repo, resolve_commit)
tree      tree hashes of the working tree (hashed from disk), of commits, of folders
files     files changed since base, every file, a file's text at a commit
worktree  detached checkouts in referee's own folders
"""

from referee.tools.repo.files import (
    blobs_at,
    changed_files,
    changed_lines,
    file_at,
    ignored,
    last_commits,
    list_files,
)
from referee.tools.repo.git import GitError, git
from referee.tools.repo.info import (
    RepoInfo,
    describe_repo,
    head_commit,
    is_git_repo,
    repository_root,
    resolve_commit,
)
from referee.tools.repo.tree import (
    STORE_DIR,
    commit_tree_hash,
    diff_tree_paths,
    directory_hash,
    harness_files,
    tree_files,
    working_tree_hash,
)
from referee.tools.repo.worktree import Worktree, add_worktree, remove_worktree

__all__ = [
    "STORE_DIR",
    "GitError",
    "RepoInfo",
    "Worktree",
    "add_worktree",
    "blobs_at",
    "changed_files",
    "changed_lines",
    "commit_tree_hash",
    "describe_repo",
    "diff_tree_paths",
    "directory_hash",
    "file_at",
    "git",
    "harness_files",
    "head_commit",
    "ignored",
    "is_git_repo",
    "last_commits",
    "list_files",
    "remove_worktree",
    "repository_root",
    "resolve_commit",
    "tree_files",
    "working_tree_hash",
]
