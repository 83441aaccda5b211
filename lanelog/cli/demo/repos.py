"""Throwaway git repositories for the demo, and the files they start with.

git runs without a shell, with the user's global and system configuration
switched off, and with commit dates on the simulated clock.
"""

from __future__ import annotations

import os
import subprocess
from datetime import date
from pathlib import Path

LANES_ORDERS = """\
line_cap: 400
budget_cap: 3
exclude: ["*.lock", "generated/"]
properties:
  prop_round_trip: {units: 1, says: "serialize-then-parse returns the same record"}
  prop_idempotent_put: {units: 1, says: "a second put of the same key does not change the stored body"}
  prop_reject_empty: {units: 1, says: "an empty payload remains a client error"}
  prop_export_stable: {units: 2, says: "an export of unchanged records is byte-for-byte the same"}
map:
  store.py: [prop_round_trip, prop_idempotent_put]
  api.py: [prop_reject_empty]
  export.py: [prop_export_stable]
prices:                  # per million tokens, what the property runner's model costs
  demo-model: {input_per_million: 3.00, output_per_million: 15.00, currency: USD}
"""

LANES_BILLING = """\
line_cap: 400
budget_cap: 3
properties:
  prop_balanced_ledger: {units: 1, says: "every posting leaves the ledger balanced"}
  prop_reject_empty: {units: 1, says: "an empty payload remains a client error"}
map:
  ledger.py: [prop_balanced_ledger]
  api.py: [prop_reject_empty]
prices:
  demo-model: {input_per_million: 3.00, output_per_million: 15.00, currency: USD}
cost_cap: 0.01           # USD a patch, estimated before the call from the patch's bytes
"""

# A reviewed change that went wrong: the map names a property nobody declared.
LANES_BILLING_INVALID = LANES_BILLING.replace(
    "  api.py: [prop_reject_empty]\n", "  api.py: [prop_reject_empty, prop_refund_once]\n"
)


def flaky_yaml(rows: list[tuple[str, date, str, str]]) -> str:
    """The seed's flaky-list shape: id, expires, owner, reason per row."""
    lines = ["flaky:"]
    for test_id, expires, owner, reason in rows:
        lines += [
            f"  - id: {test_id}",
            f"    expires: {expires.isoformat()}",
            f"    owner: {owner}",
            f"    reason: {reason}",
        ]
    return "\n".join(lines) + "\n"


def module_source(name: str, functions: int = 6) -> str:
    """A small Python module with a few checked functions, so patches have something to edit."""
    body = [f'"""{name}: part of the demo service."""', ""]
    for i in range(functions):
        body += [
            f"def {name}_step_{i}(record: dict) -> dict:",
            "    assert isinstance(record, dict)",
            f"    return {{**record, 'step': {i}}}",
            "",
        ]
    return "\n".join(body)


class DemoRepo:
    """One throwaway checkout with a `main` branch that the scripted agent branches from."""

    def __init__(self, root: Path, name: str) -> None:
        self.root = root
        self.name = name
        root.mkdir(parents=True, exist_ok=True)
        self._env = {
            **os.environ,
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_AUTHOR_NAME": "demo agent",
            "GIT_AUTHOR_EMAIL": "agent@demo.invalid",
            "GIT_COMMITTER_NAME": "demo agent",
            "GIT_COMMITTER_EMAIL": "agent@demo.invalid",
        }
        self.git("init", "-q", "-b", "main")
        self._born = False  # main has no commit until the first one

    def git(self, *args: str, day: date | None = None) -> str:
        env = self._env
        if day is not None:
            stamp = f"{day.isoformat()}T09:00:00+00:00"
            env = {**env, "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}
        done = subprocess.run(
            ["git", *args], cwd=self.root, env=env, capture_output=True, text=True, check=True, timeout=60
        )
        return done.stdout.strip()

    def write(self, files: dict[str, str | bytes]) -> None:
        for rel, content in files.items():
            path = self.root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content, encoding="utf-8")

    def read(self, rel: str) -> str:
        return (self.root / rel).read_text(encoding="utf-8")

    def remove(self, rel: str) -> None:
        (self.root / rel).unlink()

    def commit_on_main(self, files: dict[str, str | bytes], message: str, day: date) -> str:
        """A reviewed human change that lands on main (policy, flaky list, code)."""
        if self._born:
            self.git("checkout", "-q", "main")
        self.write(files)
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message, day=day)
        self._born = True
        return self.git("rev-parse", "HEAD")

    def start_branch(self, branch: str) -> None:
        """Start an agent branch from main, with a clean working tree."""
        self.git("checkout", "-q", "-B", branch, "main")

    def commit_branch(self, message: str, day: date) -> str:
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", message, day=day)
        return self.git("rev-parse", "HEAD")
