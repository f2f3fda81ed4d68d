"""The benchmark policy read from a file (`config/policy.yaml`), for the workers and the web
pages: one reader, so both judge results files under the same rules and name the same file
and line when it is wrong."""

from __future__ import annotations

from pathlib import Path

from bot.configfiles import read_config
from bot.spec.validate import DEFAULT_POLICY, Policy, PolicyError, policy_from_yaml

POLICY_FIX = 'see docs/validate.md, "Benchmark policy"'


def load_policy(path: Path) -> Policy:
    """The policy in `path`, or the default one when there is no such file; raises
    `ConfigError` naming the file and line of the first problem."""
    if not path.exists():
        return DEFAULT_POLICY
    document = read_config(path, fix=POLICY_FIX)
    try:
        return policy_from_yaml(path.read_bytes())
    except (OSError, PolicyError) as error:
        raise document.error_from(error) from error
