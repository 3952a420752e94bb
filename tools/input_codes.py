"""Every code of a `Problem` in a tool error (`InvalidInput`, `NotFound`) and of the warnings
create_contract and add_holdout_files return; a test finds each `code="…"` in the source here.

Validate codes (validate_scorecard/codes.py) and rubric file codes (rubrics/codes.py) have their
own tables; a code may appear in several families with the meaning its place gives it.
"""

from __future__ import annotations

from referee.tools.meanings import Family, Meaning
from referee.tools.meanings import error as _e
from referee.tools.meanings import warning as _w

_EXPORT = "Export the contract again with `referee contract export`."

_PYDANTIC: dict[str, Meaning] = {
    "required": _e(
        "A required field is missing (the pointer names it); also a hook payload for `referee"
        " capture` without `tool_input.command`, or `add_holdout_files` without paths.",
        "Add the field.",
    ),
    "unknown_field": _e(
        "A field that is not part of the input (often a misspelling).",
        "Remove it or correct its spelling.",
    ),
    "not_allowed": _e(
        "A value is not one of the allowed values (a verdict for calibration other than ACCEPT,"
        " REVISE or BLOCK, a scope, a severity …).",
        "Use one of the values the message lists.",
    ),
    "unknown_kind": _e(
        "A check `kind`, browser step `action` or expectation `type` that does not exist.",
        "Use one of the tags the message lists.",
    ),
    "missing_kind": _e(
        "A check, step or expectation without its `kind` / `action` / `type`.", "Add the tag."
    ),
}

_CONTRACT: dict[str, Meaning] = {
    "no_criteria": _e(
        "create_contract: the contract has no acceptance criterion (functional or quality).",
        "Add at least one criterion.",
    ),
    "duplicate_id": _e(
        "create_contract: two criteria share an id.", "Give every criterion its own id."
    ),
    "check_required": _e(
        "create_contract: a criterion's verification_method needs a `check` (tests, command,"
        " browser or static) and has none.",
        "Add the check, or use verification_method 'manual' for criteria only a judge decides.",
    ),
    "too_few_evaluators": _e(
        "create_contract: `evaluators` is an empty list.", "Name at least one evaluator."
    ),
    "too_many_evaluators": _e(
        "create_contract: more evaluators than allowed (more adds cost, not signal).",
        "Name fewer evaluators.",
    ),
    "empty_name": _e("create_contract: an evaluator's name is blank.", "Name the evaluator."),
    "duplicate_evaluator": _e(
        "create_contract: an evaluator is listed twice; aggregate: two inline scorecards of one"
        " evaluator in a call.",
        "List each evaluator once; pass one scorecard per evaluator.",
    ),
    "evaluator_missing": _e(
        "create_contract: the contract has several evaluators and a criterion names none.",
        "Name the criterion's evaluator.",
    ),
    "unknown_evaluator": _e(
        "create_contract: a criterion names an evaluator the contract does not have; evaluate:"
        " `evaluator` is not one of the contract's.",
        "Use one of the contract's evaluators.",
    ),
    "unknown_rubric": _e(
        "create_contract: no rubric of that name (a repository's rubric counts once committed in"
        " .referee/rubrics/ at the base); evaluate: the contract's rubric is no longer available.",
        "Use a known rubric (the message lists them), or commit the rubric again.",
    ),
    "junit_outside": _e(
        "create_contract: a tests check's `junit` report path leads out of the check's cwd"
        " (absolute, `..`, a symlink).",
        "Name a report inside the check's cwd.",
    ),
    "relative_url_without_serve": _e(
        "create_contract: a browser URL is a path, but the contract has no `serve` to join it to.",
        "Give an absolute loopback URL, or a `serve` block.",
    ),
    "new_only_off_serve": _e(
        "create_contract: a browser check with an `a11y` expectation that has `new_only` opens a"
        " page that is not the contract's `serve` app (no `serve`, a `file://` URL, another"
        " origin): the base run could not serve the base's version of it.",
        "Serve the app with `serve` and give the check's URLs as paths (or on serve.url's origin).",
    ),
    "setup_without_goto": _e(
        "create_contract: `browser_setup` does not start with a goto step; it runs on a fresh,"
        " empty page.",
        "Start it with {action: goto, url: …}.",
    ),
    "not_a_directory": _e(
        "The contract's repository path is not a directory.", "Pass the project's folder."
    ),
    "not_a_repository": _e(
        "create_contract's `base_commit`, or evaluate's `ref`, `base` or `isolation: worktree`,"
        " was given, but the repository is not a git repository.",
        "Run in a git repository (`--root` at the repository), or leave the option out.",
    ),
    "id_taken": _e(
        "create_contract / contract import: a different contract is already stored under that id.",
        "Choose another id, or import the contract that is stored.",
    ),
    "config_digest_mismatch": _e(
        "Contract import: the file's configuration does not match its `config_digest`: it was"
        " edited after export.",
        _EXPORT,
    ),
    "contract_unsealed": _e(
        "Contract import: the file carries a configuration but no seal, so nothing shows referee"
        " exported it.",
        _EXPORT,
    ),
    "contract_seal_mismatch": _e(
        "Contract import: the seal does not verify with this referee's key: the file was edited"
        " after export, or another key sealed it.",
        "Set REFEREE_KEY to the exporting key, or export the contract again here.",
    ),
    "out_of_scope_empty": _w(
        "create_contract: `out_of_scope` is empty.",
        "Name what is excluded; it keeps the generator from gold-plating.",
    ),
    "goal_too_long": _w(
        "create_contract: the goal is longer than two sentences.", "Keep it to one or two."
    ),
    "secret_in_contract": _w(
        "create_contract: an `env` value of a check or of `serve` looks like a literal secret,"
        " stored with the contract.",
        'Write "${NAME}" to take it from the server\'s environment when the check runs.',
    ),
    "manual_with_check": _w(
        "create_contract: a manual criterion has a check: it runs, but a judge still decides.",
        "Drop the check, or give the criterion a verification method the check decides.",
    ),
}

_EVALUATE: dict[str, Meaning] = {
    "path_outside_roots": _e(
        "A path (a repository, a file) resolves outside the folders the server may touch.",
        "Start the server with --root for that folder, or use a path inside a root.",
    ),
    "repo_missing": _e(
        "evaluate / checkout: the contract's repository no longer exists here, or is not a git"
        " repository.",
        "Run where the contract's repository is, or create the contract again.",
    ),
    "unknown_ref": _e(
        "A ref or base (evaluate's `ref`, create_contract's `base_commit`, the static pipeline's"
        " base) is not a commit of the repository.",
        "Pass a commit id, branch or tag that exists there.",
    ),
    "bad_object": _e(
        "An object of the repository does not hash to its name, or is one no git writes: its"
        " .git was rewritten, so nothing read from it is judged.",
        "Run `git fsck --full`, then fetch or clone the repository again.",
    ),
    "unsafe_git_entry": _e(
        "A file or folder of the repository's .git that referee's git would read or write (HEAD,"
        " the index, packed-refs, shallow, anything under objects/ or refs/, an alternate object"
        " store) is not a regular file or a folder: a FIFO, a socket, a device or a symbolic"
        " link. git would wait on a FIFO until its timeout, and a link would lead its reads and"
        " referee's pins elsewhere, so nothing is read through it.",
        "Replace the entry the message names with what git writes there (`git fsck --full`), or"
        " clone the repository again.",
    ),
    "iteration_mismatch": _e(
        "evaluate: the `iteration` given is not the tree's (an iteration is one evaluated tree);"
        " aggregate: an inline scorecard of another iteration than the one aggregated.",
        "Omit `iteration`, or evaluate the tree of that iteration; pass only scorecards of the"
        " iteration you aggregate.",
    ),
    "loop_exhausted": _e(
        "evaluate: a new tree would start an iteration beyond the contract's `max_iterations`.",
        "Call `aggregate`: at the bound it delivers the best iteration.",
    ),
    "canary_needs_run": _e(
        "evaluate with `canary`: no iteration of the contract (or not the one named) has been"
        " evaluated at task scope, and a canary copies an evaluated tree.",
        "Evaluate the iteration first, then ask for its canary.",
    ),
    "canary_unavailable": _e(
        "evaluate with `canary`: no defect of the catalogue can be planted in the iteration's"
        " files (the catalogue plants in Python source first; other languages have no kind yet).",
        "Leave canaries out for this contract; docs/reliability.md lists the kinds.",
    ),
    "no_checks_at_strategic_scope": _e(
        "evaluate: scope 'strategic' runs no checks.", "Read it with strategic_assessment."
    ),
    "sandbox_unavailable": _e(
        "evaluate: `require_sandbox` is set, but bubblewrap cannot run here.",
        "Install bubblewrap on a kernel that allows user namespaces, or drop require_sandbox.",
    ),
    "invalid_scope": _e(
        "The static pipeline's scope is neither 'task' nor 'project'.", "Use one of them."
    ),
    "unknown_rule": _e(
        "A static rule name that the pipeline does not have.", "Use the rules the message lists."
    ),
    "out_of_range": _e("aggregate: `iteration` is below 1.", "Iterations start at 1."),
    "store_tampered": _e(
        "A stored row does not verify with referee's key, or the database holds objects referee"
        " never creates: the store was modified outside referee.",
        "Evaluate again into a fresh store (REFEREE_HOME) and find out who wrote to it.",
    ),
    "store_unavailable": _e(
        "The team store's database (PostgreSQL) cannot be reached, or the connection was lost"
        " during the call; its transaction was rolled back, so nothing of the call was stored."
        " Also a store URL that is not postgresql://.",
        "Check that the database is up and the URL (--store, REFEREE_STORE_URL) is right, then"
        " call again.",
    ),
    "store_wrong_key": _e(
        "The store's rows were sealed with another key than the one referee was given; or"
        " `referee store import`: the export was sealed with another key than this store's (or"
        " than the one --from-key-file names).",
        "Give referee the key the store's writers share (REFEREE_KEY, e.g. the team's CI secret);"
        " to import another key's export, name that key with --from-key-file.",
    ),
    "import_conflict": _e(
        "`referee store import`: the store holds a different row under the key of one in the"
        " export (another contract with that id, another run with that run id).",
        "Import into a store that does not hold another version of those rows; nothing was"
        " imported.",
    ),
    "invalid_export": _e(
        "`referee store import`: the file is not an export of `referee store export`.",
        "Pass the file `referee store export` wrote.",
    ),
    "type": _e(
        "`referee capture`: the hook payload is not a JSON object.",
        "Pass the PostToolUse hook's JSON payload on standard input.",
    ),
}

_VALIDATE: dict[str, Meaning] = {
    "contract_required": _e(
        "validate_scorecard: no contract_id, no inline contract, and the scorecard names none.",
        "Name the contract.",
    ),
    "contract_ambiguous": _e(
        "validate_scorecard: both `contract_id` and an inline `contract`.", "Give one."
    ),
}

_HOLDOUT_MOVED = "Delete it from the tree (the vault's copy is what runs)."

_HOLDOUTS: dict[str, Meaning] = {
    "no_holdout_criterion": _e(
        "add_holdout_files: the contract has no hold-out criterion.",
        "Mark a criterion `holdout: true`; its check then runs with these files.",
    ),
    "not_a_holdout": _e(
        "add_holdout_files: the criterion named is not a hold-out criterion of the contract.",
        "Name one of the hold-out criteria the message lists.",
    ),
    "not_found": _e("add_holdout_files: a path does not exist.", "Pass existing paths."),
    "outside_repository": _e(
        "add_holdout_files: a path outside the repository, without `to`.",
        "Say where it lies in the tree with `to`.",
    ),
    "bad_tree_path": _e(
        "add_holdout_files: the file's place in the tree is not a relative path inside it (no"
        " '..', not .git/ or .referee/).",
        "Choose another `to`.",
    ),
    "unreadable": _e("add_holdout_files: a file cannot be read.", "Fix its permissions."),
    "too_large": _e(
        "add_holdout_files: a file, the number of files or their total size is above the limit.",
        "Keep hold-outs to the few files the hidden tests need.",
    ),
    "holdout_in_tree": _w(
        "add_holdout_files: the hold-out is still in the working tree, where the generator can"
        " read it.",
        _HOLDOUT_MOVED,
    ),
    "holdout_in_history": _w(
        "add_holdout_files: the hold-out is in the repository's history, where the generator can"
        " read it with git log.",
        "Never commit a hold-out to a branch the generator works on.",
    ),
}

_CHECKOUT: dict[str, Meaning] = {
    "no_delivered_iteration": _e(
        "checkout: no aggregate of the contract has delivered an iteration, and none was named.",
        "Name one with --iteration (the message lists what is pinned).",
    ),
    "not_pinned": _e(
        "checkout: the iteration is not pinned (referee pins each evaluated tree).",
        "Name a pinned iteration.",
    ),
    "pin_mismatch": _e(
        "checkout: the iteration's pin ref was rewritten outside referee and points at a tree no"
        " evaluation saw; it is not restored.",
        "Restore the ref, or evaluate the tree again.",
    ),
}

_NOT_FOUND: dict[str, Meaning] = {
    "unknown_contract": _e(
        "The contract id (or a scorecard's `contract_ref` / `task_id`) is not stored.",
        "Create or import the contract, or pass it inline (`--contract FILE.yaml`).",
    ),
    "unknown_run": _e("A run id that is not stored.", "Use a run id evaluate returned."),
    "unknown_evidence": _e(
        "An evidence id that the run does not have.", "Use ids from evaluate's `evidence` list."
    ),
    "unknown_screenshot": _e(
        "The evidence has no screenshot: only browser evidence has one. `referee baseline"
        " accept`: the run took no image for that criterion (or `--name`), or the name is not"
        " one of its screenshot expectations.",
        "Ask for the screenshot of a browser check's evidence; accept a run that took one.",
    ),
    "unknown_criterion": _e(
        "`referee baseline accept`: the run's contract has no criterion of that id with"
        " screenshot expectations.",
        "Name a browser criterion whose check has a `screenshot` expectation.",
    ),
    "unknown_scorecard": _e(
        "A scorecard id that is not stored.", "Use an id validate_scorecard returned."
    ),
    "unknown_report": _e(
        "A report id that is neither a stored contract (SC-…) nor a run (R…).",
        "Use a contract id or a run id from evaluate.",
    ),
    "unknown_iteration": _e(
        "`referee view` was asked to compare an iteration of the contract that has no run.",
        "Follow a compare link of the contract's page: it lists the iterations that have runs.",
    ),
    "unknown_trace": _e(
        "`referee view` has no kept trace by that name: the run kept none for that evidence, or"
        " the path is not `trace/<run>/<evidence>.zip` (the generator's view serves none of a"
        " hold-out criterion).",
        "Open a trace from its run's page.",
    ),
    "unknown_trace_viewer_file": _e(
        "`referee view` cannot serve that file of Playwright's trace viewer: the playwright"
        " package is not installed, or the name is not a file of its viewer.",
        "Install playwright, and open the trace from its run's page.",
    ),
    "unknown_page": _e(
        "`referee view` has no page of that name (or not in this view: the generator's has no"
        " scorecard, report or calibration page).",
        "Start at index.html and follow its links.",
    ),
}

INPUT_CODES: dict[str, Meaning] = {
    **_NOT_FOUND,
    **_PYDANTIC,
    **_CONTRACT,
    **_EVALUATE,
    **_VALIDATE,
    **_HOLDOUTS,
    **_CHECKOUT,
}

FAMILY = Family(
    key="input",
    title="Input codes",
    intro=(
        "The problems of a tool error: input the caller can fix (MCP `isError` with"
        " `{error: invalid_input, problems: [{path, code, message}]}`, CLI exit 2 or 1), listed"
        " all at once; and the warnings create_contract and add_holdout_files return. An invalid"
        " scorecard is not a tool error (see [Validate codes](#validate-codes)). Other codes are"
        " pydantic's own error types (`string_type`, `greater_than_equal` …) with its message."
    ),
    codes=INPUT_CODES,
)
