"""docs/deploy.md's alert job runs as written: the script, then again the next night."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from lanelog.cli.demo.promoter import promotion
from tests.alerts.receiver import receiver

DEPLOY = Path(__file__).resolve().parents[2] / "docs" / "deploy.md"


def blocks(kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.*?)```", DEPLOY.read_text(encoding="utf-8"), re.DOTALL)


def test_the_crontab_is_one_line_per_job():
    (crontab,) = [block for block in blocks("text") if "crontab" in block]
    jobs = [line for line in crontab.splitlines() if line.strip() and not line.startswith("#")]
    assert jobs == ["0 2 * * * /srv/lanelog/nightly"]


def test_the_alert_script_posts_each_credit_bug_and_the_weeks_review_once_night_after_night(tmp_path):
    (script,) = [block for block in blocks("sh") if block.startswith("#!/bin/sh\n")]
    home, webhook_file = tmp_path / "srv-lanelog", tmp_path / "webhook"
    (home / "logs").mkdir(parents=True)
    (home / "budgets.yaml").write_text("budgets:\n  - {name: all-spend, amount: 50, currency: USD, period: week}\n")
    golden = json.loads((Path(__file__).resolve().parents[1] / "router" / "golden" / "line_pass.json").read_text())
    yesterday = (datetime.now(UTC) - timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    routed = {**golden, "ts": yesterday, "attempt_id": "b7", "base": "1" * 40, "head": "2" * 40}
    (home / "logs" / "job-1.jsonl").write_text(json.dumps(routed) + "\n" + json.dumps(promotion(routed)) + "\n")
    nightly = tmp_path / "nightly"
    nightly.write_text(script.replace("/srv/lanelog", str(home)).replace("/etc/lanelog/webhook", str(webhook_file)))
    nightly.chmod(0o755)
    env = {key: value for key, value in os.environ.items() if not key.startswith(("LANELOG_", "AWS_"))}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
    with receiver() as hook:
        webhook_file.write_text(hook.url)
        nights = [subprocess.run([str(nightly)], env=env, capture_output=True, text=True, timeout=120, check=False)
                  for _ in range(2)]
        posts = list(hook.posts)
    assert [night.returncode for night in nights] == [1, 1], [night.stderr for night in nights]
    assert "alerts: 1 sent, 0 sent before" in nights[0].stderr
    assert "alerts: 0 sent, 1 sent before" in nights[1].stderr
    assert "budget all-spend: 0.00 USD of 50.00 USD (0%)" in nights[0].stdout
    assert ": 1 sent, 0 sent before (to 1 webhook(s))" in nights[0].stderr.split("digest of the week ", 1)[1]
    assert ": 0 sent, 1 sent before (to 1 webhook(s))" in nights[1].stderr.split("digest of the week ", 1)[1]
    # The first night posts last week's review and the credit bug; the second, nothing.
    assert sorted(post["body"]["text"].split(":")[0] for post in posts) == [
        "lanelog credit bug", "lanelog weekly review"]
    assert hook.url not in nights[0].stdout + nights[0].stderr
