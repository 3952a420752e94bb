"""The test harness: which files of a tree steer the toolchain or the runner, by a rule.

rule        is a file harness, and why (dotfiles, build scripts, tool configuration, …)
shadow      Python modules imported in place of the runner's or the standard library's
manifests   the part of a manifest compared with base (all but dependencies and metadata)
gobuild     which Go files a build on this machine takes (platform suffixes, build constraints)
"""

from referee.tools.harness.gobuild import built_here, declared_names
from referee.tools.harness.manifests import is_manifest, steering_part
from referee.tools.harness.rule import (
    MANIFESTS,
    Layout,
    harness_reason,
    is_harness_file,
    is_pin_file,
)
from referee.tools.harness.shadow import runner_modules

__all__ = [
    "MANIFESTS",
    "Layout",
    "built_here",
    "declared_names",
    "harness_reason",
    "is_harness_file",
    "is_manifest",
    "is_pin_file",
    "runner_modules",
    "steering_part",
]
