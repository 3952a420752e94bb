"""The evaluated repository, through git commands the repository cannot steer.

git       the one git runner: safe `-c` options, clean environment, timeouts
info      root, HEAD, refs (describe_repo, resolve_commit)
refs      a short ref name read as the branch it names (qualified_ref), never a tag spelled like it
tree      tree hashes of the working tree (hashed from disk), of commits, of folders
files     files changed since base, every file, a file's text at a commit
views     another tree shown at the repository's own path (what to lay over, what to hide)
objects   commits, trees and blobs read by referee itself, each checked against its name
diff      the change a run judged, as a unified diff of verified objects
pins      evaluated trees kept under refs/referee/<contract>/<iteration>, and restored from there
"""

from referee.tools.repo.diff import DiffLine, FileChange, change_diff, change_files
from referee.tools.repo.files import (
    blobs_at,
    changed_files,
    changed_lines,
    file_at,
    ignored,
    last_commits,
    list_files,
    list_files_at,
    store_dir_changes,
)
from referee.tools.repo.git import GitError, git, loop_guarded
from referee.tools.repo.info import (
    RepoInfo,
    describe_repo,
    head_commit,
    is_git_repo,
    repository_root,
    resolve_commit,
    root_commits,
)
from referee.tools.repo.objects import BadObject
from referee.tools.repo.pins import (
    Pin,
    Restored,
    RestoreRefused,
    checkout_command,
    drop_pins,
    pin_tree,
    pins,
    restore_tree,
    start_branch,
)
from referee.tools.repo.refs import QualifiedRef, qualified_ref
from referee.tools.repo.tree import (
    STORE_DIR,
    commit_tree_hash,
    diff_tree_paths,
    directory_hash,
    harness_files,
    tree_files,
    working_tree_hash,
)
from referee.tools.repo.views import (
    Entry,
    TreeView,
    blob_texts,
    compose_tree,
    tree_entry_map,
    view_of,
    write_blob,
    write_tree,
)

__all__ = [
    "STORE_DIR",
    "BadObject",
    "DiffLine",
    "Entry",
    "FileChange",
    "GitError",
    "Pin",
    "QualifiedRef",
    "RepoInfo",
    "RestoreRefused",
    "Restored",
    "TreeView",
    "blob_texts",
    "blobs_at",
    "change_diff",
    "change_files",
    "changed_files",
    "changed_lines",
    "checkout_command",
    "commit_tree_hash",
    "compose_tree",
    "describe_repo",
    "diff_tree_paths",
    "directory_hash",
    "drop_pins",
    "file_at",
    "git",
    "harness_files",
    "head_commit",
    "ignored",
    "is_git_repo",
    "last_commits",
    "list_files",
    "list_files_at",
    "loop_guarded",
    "pin_tree",
    "pins",
    "qualified_ref",
    "repository_root",
    "resolve_commit",
    "restore_tree",
    "root_commits",
    "start_branch",
    "store_dir_changes",
    "tree_entry_map",
    "tree_files",
    "view_of",
    "working_tree_hash",
    "write_blob",
    "write_tree",
]
