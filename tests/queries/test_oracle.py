"""`lanelog report --format json` totals equal the seed's Step 6 reader on any file of JSON objects."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lanelog.cli import cli
from lanelog.reasons import SHADOW_ERRORS
from tests.depth import at_depths


def seed_step6(path: Path) -> dict[str, int]:
    """The seed's Step 6 reader, line for line (pointed at `path`), plus quarantined."""
    rows = [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]
    summary = {
        'attempts': len(rows),
        'probe_rejects': sum(r.get('probe') == 'reject' for r in rows),
        'calls_armed': sum(bool(r.get('model_call_allowed')) for r in rows),
        'credit_bugs': sum(bool(r.get('merge_credit')) and bool(r.get('quarantine')) for r in rows),
    }
    summary['quarantined'] = sum(bool(r.get('quarantine')) for r in rows)
    return summary


# Values whose truthiness is easy to get wrong, and every other JSON type at random.
EDGES = st.sampled_from([
    None, True, False, 0, 1, -1, 0.0, -0.0, 1e-300, 5e-324, 10**30, "", "0", " ", "false",
    "reject", "Reject", "reject ", "pass", [], [0], [""], ["test_x"], {}, {"a": 0},
    "policy_missing", ["line_cap", "policy_invalid"],  # a shadow's error, as a line before errors wrote it
])
SCALARS = (st.none() | st.booleans() | st.integers()
           | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8))
VALUES = EDGES | st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3)
                              | st.dictionaries(st.text(max_size=5), inner, max_size=3),
                              max_leaves=6)
FIELDS = ("probe", "model_call_allowed", "merge_credit", "quarantine", "properties", "units",
          "ts", "repo", "reasons", "budget_cap", "lane", "results", "expired_freezes")
TIMESTAMPS = st.sampled_from(["2026-10-11T23:30:00-05:00", "2026-12-31", "2026-10-05T00:00:00Z",
                              "not a time", 1791000000, 1791000000.5, ""])


@st.composite
def lane_log(draw: st.DrawFn) -> list[str]:
    lines = []
    for number in range(draw(st.integers(min_value=0, max_value=12))):
        obj: dict[str, Any] = {}
        for field in draw(st.lists(st.sampled_from(FIELDS), unique=True)):
            obj[field] = draw(TIMESTAMPS | VALUES) if field == "ts" else draw(VALUES)
        id_kind = draw(st.sampled_from(["absent", "unique", "not a string"]))
        if id_kind == "unique":
            obj["attempt_id"] = f"attempt-{number}"
        elif id_kind == "not a string":
            obj["attempt_id"] = draw(VALUES.filter(lambda v: not isinstance(v, str)))
        extra = draw(st.dictionaries(st.text(max_size=6), VALUES, max_size=2))
        obj.update({key: value for key, value in extra.items() if key not in obj and key != "attempt_id"})
        items = list(obj.items())
        obj = dict(draw(st.permutations(items))) if items else obj
        lines.append(json.dumps(obj))
        if draw(st.booleans()) and draw(st.booleans()):
            lines.append(draw(st.sampled_from(["", "   ", "\t"])))
    return lines


ORACLE = settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


@at_depths(60, quick=12)
def test_report_totals_equal_the_seed_reader(tmp_path: Path, examples: int) -> None:
    settings(ORACLE, max_examples=examples)(given(lines=lane_log())(totals_equal_the_seed_reader))(tmp_path)


def totals_equal_the_seed_reader(tmp_path: Path, lines: list[str]) -> None:
    log = tmp_path / "lane-log.jsonl"
    log.write_text("".join(line + "\n" for line in lines))
    result = CliRunner().invoke(cli, ["report", str(log), "--format", "json"], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    figures = json.loads(result.stdout)
    expected = seed_step6(log)
    assert {key: figures["totals"][key] for key in expected} == expected
    assert sum(week["attempts"] for week in figures["weeks"]) == expected["attempts"]
    assert figures["rejected_lines"] == 0


def shadow_reader(path: Path) -> tuple[dict[str | None, dict[str, int]], int] | None:
    """The live shadow read straight from the JSON lines: each policy's totals (by its digest, None
    when it is no string) over the shadows that decided, and how many shadows are errors (an
    `error` that is not null, or, as lines written before shadows had errors recorded them, a
    reason among SHADOW_ERRORS); None when no line has a shadow object."""
    rows = [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]
    pairs = [(r, r['shadow']) for r in rows if isinstance(r.get('shadow'), dict)]
    if not pairs:
        return None

    def is_error(s: dict) -> bool:
        reasons = s.get('reasons') if isinstance(s.get('reasons'), list) else []
        return s.get('error') is not None or any(isinstance(r, str) and r in SHADOW_ERRORS for r in reasons)

    policies: dict[str | None, list[tuple[dict, dict]]] = {}
    for r, s in pairs:
        if not is_error(s):
            digest = s.get('policy_sha256')
            policies.setdefault(digest if isinstance(digest, str) else None, []).append((r, s))
    totals = {policy: {
        'attempts': len(decided),
        'probe_rejects': sum(r.get('probe') == 'reject' for r, _ in decided),
        'shadow_probe_rejects': sum(s.get('probe') == 'reject' for _, s in decided),
        'calls_armed': sum(bool(r.get('model_call_allowed')) for r, _ in decided),
        'shadow_calls_armed': sum(bool(s.get('model_call_allowed')) for _, s in decided),
        'flips': sum((r.get('probe') == 'reject') != (s.get('probe') == 'reject') for r, s in decided),
    } for policy, decided in policies.items()}
    return totals, sum(is_error(s) for _, s in pairs)


SHADOW_FIELDS = ("probe", "model_call_allowed", "reasons", "units", "policy_sha256", "error")


@st.composite
def shadowed_log(draw: st.DrawFn) -> list[str]:
    """lane_log's lines, some given a shadow: an object of edge values, or a value of another type."""
    lines = []
    for line in draw(lane_log()):
        obj = json.loads(line) if line.strip() else None
        if isinstance(obj, dict) and draw(st.booleans()):
            if draw(st.integers(min_value=0, max_value=4)) == 0:
                obj["shadow"] = draw(VALUES)
            else:
                fields = draw(st.lists(st.sampled_from(SHADOW_FIELDS), unique=True))
                obj["shadow"] = {field: draw(VALUES) for field in fields}
            line = json.dumps(obj)
        lines.append(line)
    return lines


@at_depths(60, quick=12)
def test_report_shadow_totals_equal_a_reader_of_the_lines(tmp_path: Path, examples: int) -> None:
    settings(ORACLE, max_examples=examples)(given(lines=shadowed_log())(shadow_totals_equal_a_reader))(tmp_path)


def shadow_totals_equal_a_reader(tmp_path: Path, lines: list[str]) -> None:
    log = tmp_path / "lane-log.jsonl"
    log.write_text("".join(line + "\n" for line in lines))
    result = CliRunner().invoke(cli, ["report", str(log), "--format", "json"], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    figures = json.loads(result.stdout)
    expected = shadow_reader(log)
    if expected is None:
        assert "shadow" not in figures
        return
    policies, errors = expected
    got = {entry["policy_sha256"]: entry for entry in figures["shadow"]["policies"]}
    assert {policy: entry["totals"] for policy, entry in got.items()} == policies
    for entry in got.values():
        assert sum(week["attempts"] for week in entry["weeks"]) == entry["totals"]["attempts"]
        assert sum(week["flips"] for week in entry["weeks"]) == entry["totals"]["flips"]
    assert figures["shadow"]["errors"]["attempts"] == errors
