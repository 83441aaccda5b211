"""The outcome figures (queries/outcomes.py over outcomes.sql) against an independent reader.

Generated histories of agent pull requests (attempts in several weeks, some re-tried after a
reject, costs known and unknown, merges by people, bots, auto-merge and the author, approvals
of the merged head or an older one, before and after the last attempt and the merge, the accept
label set by a person, a bot or through an app, before or after the merge, removed or not, a
route re-run after the merge, outcome lines re-sent and pull requests closed then reopened and
merged) are written as lane-log lines, ingested by the
real ingest, and read two ways: by lanelog, and by the reader below, which reads the JSON lines
straight, in Python, by the rules docs/report.md states.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import random
import statistics
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from lanelog import ingest, queries, store
from lanelog.queries import Filters

START = datetime(2026, 9, 7, tzinfo=UTC)  # a Monday
PEOPLE = ("alice", "bob")
BOTS = ("mergify[bot]", "renovate[bot]")
AGENTS = ("tidy-bot[bot]", "sweep-bot[bot]", None)
# The day taken as today: a pull request still open whose first attempt ran 14 days or more before it (or before the
# scope's last day) is stale; some of the histories' are, some not.
TODAY = date(2026, 10, 12)


def stale_day(filters: Filters) -> datetime:
    return datetime.combine((filters.until or TODAY) - timedelta(days=14), datetime.min.time())


def stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def account(login: str) -> dict[str, str]:
    return {"login": login, "type": "Bot" if login.endswith("[bot]") else "User"}


def usage(rng: random.Random) -> dict[str, Any] | None:
    """A call's usage: priced (in USD, sometimes EUR), unpriced, or not reported at all."""
    roll = rng.random()
    if roll < 0.1:
        return None
    entry: dict[str, Any] = {"input_tokens": rng.randint(100, 5000), "output_tokens": rng.randint(1, 50)}
    if roll < 0.85:
        entry["cost"] = round(rng.uniform(0.001, 0.2), rng.choice((2, 4, 6)))
        entry["currency"] = "EUR" if roll > 0.8 else "USD"
    return {"prop_a": entry}


def history(seed: int) -> list[dict[str, Any]]:
    """Lane-log lines (attempts and outcomes, in the order the jobs wrote them) of some pull requests."""
    rng = random.Random(seed)
    lines: list[dict[str, Any]] = []
    for number in range(1, rng.randint(8, 30)):
        repository = rng.choice(("acme/orders", "acme/billing"))
        repo = repository.split("/")[1]
        agent = rng.choice(AGENTS)
        moment = START + timedelta(days=rng.randint(0, 40), hours=rng.randint(0, 23), minutes=rng.randint(0, 59))
        attempts = []
        for tried in range(rng.choice((1, 1, 2, 3))):
            moment += timedelta(hours=rng.randint(1, 60))
            probe = rng.choice(("pass", "pass", "reject"))
            armed = probe == "pass" and rng.random() < 0.8
            line = {
                "schema": 1, "attempt_id": f"a{seed}-{number}-{tried}", "ts": stamp(moment), "repo": repo,
                "producer": "lanelog-route", "probe": probe, "model_call_allowed": armed,
                "lane": rng.choice(("hold", "fail", "unresolved")) if armed else "not_started",
                "quarantine": ["test_flaky"] if rng.random() < 0.4 else [], "merge_credit": 0,
                "pull_request": {"repository": repository, "number": number}, "head": str(tried) * 40,
                **({"agent": agent} if agent is not None else {}),
            }
            if armed and (spent := usage(rng)) is not None:
                line["usage"] = spent
            attempts.append(line)
        lines += attempts
        if rng.random() < 0.15:  # another program copies a line: no attempt of the pull request
            lines.append({**attempts[-1], "attempt_id": f"copy-{seed}-{number}", "producer": "legacy-promoter"})
        if rng.random() < 0.2:
            continue  # still open
        closes = outcomes(rng, repository, repo, number, moment, attempts[-1]["head"])
        lines += closes
        if rng.random() < 0.15:  # the route job re-run after the close: no attempt the verdict reads
            after = max(parse(line["ts"]) for line in closes) + timedelta(hours=1)
            lines.append({**attempts[-1], "attempt_id": f"late-{seed}-{number}", "ts": stamp(after),
                          "quarantine": [] if attempts[-1]["quarantine"] else ["test_flaky"]})
    rng.shuffle(lines)  # the jobs' logs arrive in any order; each outcome line keeps its own ts
    return lines


def outcomes(rng: random.Random, repository: str, repo: str, number: int, last: datetime,
             head: str) -> list[dict[str, Any]]:
    """The outcome line (or lines: re-sent, or closed then reopened and merged) of one pull request."""
    closed = last + timedelta(hours=rng.randint(1, 200))
    out = []
    if rng.random() < 0.15:  # closed, reopened, then merged later
        out.append(outcome(rng, repository, repo, number, closed - timedelta(hours=1), "closed", (last, head)))
    state = rng.choice(("merged", "merged", "closed"))
    out.append(outcome(rng, repository, repo, number, closed, state, (last, head)))
    if rng.random() < 0.2:
        out.append(dict(out[-1]))  # a re-run job: the same outcome again
    return out


def outcome(rng: random.Random, repository: str, repo: str, number: int, closed: datetime, state: str,
            tried: tuple[datetime, str]) -> dict[str, Any]:
    """An outcome line; ``tried`` is the last attempt's time and head."""
    last, head = tried
    merged = state == "merged"
    auto = merged and rng.random() < 0.25
    author = rng.choice(("tidy-bot[bot]", "dana"))  # dana: a machine user typed User
    merger = rng.choice(PEOPLE + BOTS + (author,)) if merged else None
    approvals = [{**account(rng.choice(PEOPLE + BOTS + (author,))),
                  "submitted_at": stamp(rng.choice((last, closed)) + timedelta(minutes=rng.choice((-90, -1, 1, 30)))),
                  "commit_id": rng.choice((head, "c" * 40, None))} for _ in range(rng.randint(0, 2))]
    labels = []
    if rng.random() < 0.3:
        set_at = closed + timedelta(minutes=rng.choice((-30, 10)))
        labels = [{"name": "lanelog:accept-quarantine", "set_by": account(rng.choice(PEOPLE + BOTS + (author,))),
                   "set_at": stamp(set_at),
                   **({"via_app": "mergify"} if rng.random() < 0.2 else {}),
                   **({"removed_at": stamp(set_at + timedelta(minutes=rng.choice((20, 180))))}
                      if rng.random() < 0.3 else {})}]
    ident = hashlib.sha256(f"{repository}\n{number}\n{state}\n{stamp(closed)}".encode()).hexdigest()[:32]
    line: dict[str, Any] = {
        "schema": 1, "kind": "outcome", "producer": "lanelog-outcome", "outcome_id": f"outcome-{ident}",
        "ts": stamp(closed), "repo": repo, "pull_request": {"repository": repository, "number": number},
        "head": head, "state": state, "merged_at": stamp(closed) if merged else None,
        "closed_at": stamp(closed), "merged_by": account(merger) if merger else None,
        "auto_merge": {"enabled_by": account(merger), "merge_method": "squash"} if auto and merger else None,
        "author": account(author), "labels": labels, "merge_commit": "e" * 40 if merged else None,
    }
    if rng.random() < 0.85:  # the reviews file was fetched
        line["approvals"] = approvals
    return line


# The independent reader: the rules of docs/report.md, in Python, over the JSON lines.

def parse(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC).replace(tzinfo=None)


def monday(moment: datetime) -> date:
    day = moment.date()
    return day - timedelta(days=day.weekday())


def person(value: dict[str, Any] | None) -> bool:
    return bool(value) and value["type"] == "User" and not value["login"].endswith("[bot]")


def cost_of(line: dict[str, Any]) -> tuple[Decimal, str] | None:
    """A line's cost, as ingest keeps it: the priced entries' sum when they are in one currency."""
    priced = [entry for entry in (line.get("usage") or {}).values() if entry.get("cost") is not None]
    currencies = {entry["currency"] for entry in priced}
    if len(currencies) != 1:
        return None
    return sum((Decimal(str(entry["cost"])) for entry in priced), Decimal(0)), currencies.pop()


@dataclass
class Change:
    """One pull request as the reader sees it."""

    attempts: list[dict[str, Any]]
    closed: dict[str, Any] | None

    @property
    def first(self) -> datetime:
        return parse(self.attempts[0]["ts"])

    @property
    def opened(self) -> date:
        return monday(self.first)

    @property
    def state(self) -> str | None:
        return self.closed["state"] if self.closed else None

    @property
    def closed_week(self) -> date | None:
        return monday(parse(self.closed["ts"])) if self.closed else None

    def cost(self) -> tuple[Decimal, str | None] | None:
        """What every armed attempt cost, or None when one has no cost or they are in two currencies."""
        calls = [cost_of(line) for line in self.attempts if line["model_call_allowed"]]
        if any(call is None for call in calls) or len({call[1] for call in calls if call}) > 1:
            return None
        return sum((call[0] for call in calls if call), Decimal(0)), next((call[1] for call in calls if call), None)

    def verdict(self) -> str | None:
        """Taken at the merge: the last attempt up to it, a person other than the author, an approval of the
        merged head (one of no commit: after the attempt) or the label set by a person, neither after it."""
        if self.state != "merged":
            return None
        merge = parse(self.closed["merged_at"] or self.closed["ts"])
        last = [line for line in self.attempts if parse(line["ts"]) <= merge][-1:] or self.attempts[-1:]
        if not last[0]["quarantine"]:
            return None
        author = self.closed["author"]["login"]

        def someone(value: dict[str, Any] | None) -> bool:
            return person(value) and value is not None and value["login"] != author

        if self.closed["auto_merge"] or not someone(self.closed["merged_by"]):
            return "credit_bug"
        after, head = parse(last[0]["ts"]), self.closed["head"]
        approved = any(someone(review) and parse(review["submitted_at"]) <= merge
                       and (review["commit_id"] == head if review["commit_id"]
                            else parse(review["submitted_at"]) > after)
                       for review in self.closed.get("approvals") or [])
        labelled = any(label["name"] == "lanelog:accept-quarantine" and someone(label.get("set_by"))
                       and "via_app" not in label and parse(label["set_at"]) <= merge
                       and ("removed_at" not in label or parse(label["removed_at"]) > merge)
                       for label in self.closed["labels"])
        return "reviewed_exception" if approved or labelled else "credit_bug"


def read(lines: list[dict[str, Any]], repo: str | None) -> dict[tuple[str, int], Change]:
    attempts: dict[tuple[str, int], list[dict[str, Any]]] = {}
    closed: dict[tuple[str, int], tuple[datetime, int, dict[str, Any]]] = {}
    seen = set()
    for index, line in enumerate(lines):
        key = (line["pull_request"]["repository"], line["pull_request"]["number"])
        if line.get("kind") == "outcome":
            if line["outcome_id"] in seen:
                continue
            seen.add(line["outcome_id"])
            if key not in closed or (parse(line["ts"]), index) > closed[key][:2]:
                closed[key] = (parse(line["ts"]), index, line)
        elif line["producer"] == "lanelog-route" and (repo is None or line["repo"] == repo):
            attempts.setdefault(key, []).append(line)
    return {key: Change(sorted(tried, key=lambda line: (parse(line["ts"]), line["attempt_id"])),
                        closed[key][2] if key in closed else None)
            for key, tried in attempts.items()}


def in_scope(week: date | None, filters: Filters) -> bool:
    return week is not None and (filters.since is None or week >= filters.since - timedelta(days=6)) \
        and (filters.until is None or week <= filters.until)


def figures(merged: list[Change], closed: list[Change]) -> dict[str, Any]:
    def spent(changes: list[Change]) -> tuple[list[tuple[Decimal, str | None]], int]:
        known = [cost for cost in (change.cost() for change in changes) if cost is not None]
        return known, len(changes) - len(known)

    known, unknown = spent(merged)
    lost, lost_unknown = spent(closed)
    currencies = {cost[1] for cost in known + lost if cost[1]}
    total = sum((cost[0] for cost in known), Decimal(0))
    hours = [(parse(change.closed["merged_at"]) - change.first).total_seconds() / 3600 for change in merged]
    decided = len(merged) + len(closed)
    verdicts = [change.verdict() for change in merged]
    first_try = sum(len(change.attempts) == 1 for change in merged)
    return {
        "merged": len(merged), "merged_cost_known": len(known),
        "cost_coverage": round(len(known) / len(merged), 4) if merged else None,
        "closed_without_merge": len(closed),
        "merge_rate": round(len(merged) / decided, 4) if decided else None, "merge_rate_denominator": decided,
        "cost_per_merged_pr": float(round(total / len(known), 10)) if known and len(currencies) <= 1 else None,
        "merged_cost_unknown": unknown,
        "currency": min(currencies) if len(currencies) == 1 else None,
        "costs_in_several_currencies": len(currencies) > 1,
        "spend_closed_without_merge": float(round(sum((cost[0] for cost in lost), Decimal(0)), 10))
        if lost and len(currencies) <= 1 else None,
        "closed_cost_unknown": lost_unknown,
        "median_hours_to_merge": round(statistics.median(hours), 2) if hours else None,
        "rejected_then_merged": sum(change.attempts[0]["probe"] == "reject" for change in merged),
        "merge_credit_bugs": verdicts.count("credit_bug"),
        "reviewed_exceptions": verdicts.count("reviewed_exception"),
        "first_try_merges": first_try, "first_try_rate": round(first_try / len(merged), 4) if merged else None,
    }


def expected(lines: list[dict[str, Any]], filters: Filters) -> dict[str, Any]:
    everyone = list(read(lines, filters.repo).values())
    changes = [change for change in everyone if in_scope(change.opened, filters) or in_scope(change.closed_week,
                                                                                                  filters)]
    tried = [line for change in everyone for line in change.attempts if in_scope(monday(parse(line["ts"])), filters)]
    weeks = sorted({monday(parse(line["ts"])) for line in tried}
                   | {change.opened for change in changes if in_scope(change.opened, filters)}
                   | {change.closed_week for change in changes if in_scope(change.closed_week, filters)})

    def week_row(week: date) -> dict[str, Any]:
        here = [line for line in tried if monday(parse(line["ts"])) == week]
        end = datetime.combine(week + timedelta(days=7), datetime.min.time())
        return {
            "week": week.isoformat(), "pull_requests_opened": sum(change.opened == week for change in everyone),
            "attempts": len(here), "probe_rejects": sum(line["probe"] == "reject" for line in here),
            "calls_armed": sum(bool(line["model_call_allowed"]) for line in here),
            "lanes_held": sum(line["lane"] == "hold" for line in here),
            **figures([c for c in everyone if c.state == "merged" and c.closed_week == week],
                      [c for c in everyone if c.state == "closed" and c.closed_week == week]),
            "open_at_week_end": sum(change.opened <= week and not (change.closed and parse(change.closed["ts"]) < end)
                                    for change in everyone),
            "stale_open": sum(stale(change) for change in everyone if change.opened == week),
        }

    def stale(change: Change) -> bool:
        return change.state is None and change.first < stale_day(filters)

    def over_range(group: list[Change]) -> dict[str, Any]:
        return {**figures([c for c in group if c.state == "merged" and in_scope(c.closed_week, filters)],
                          [c for c in group if c.state == "closed" and in_scope(c.closed_week, filters)]),
                "open": sum(change.state is None for change in group),
                "stale_open": sum(stale(change) for change in group)}

    def cohort(week: date) -> dict[str, Any]:
        opened = [change for change in everyone if change.opened == week]
        return {"week": week.isoformat(), "opened": len(opened),
                "merged": sum(change.state == "merged" for change in opened),
                "closed_without_merge": sum(change.state == "closed" for change in opened),
                "open": sum(change.state is None for change in opened)}

    def grouped(name: str, key: Any) -> list[dict[str, Any]]:
        values = sorted({key(c) for c in changes}, key=lambda value: (value is None, value or ""))
        return [{name: value, "pull_requests": len([c for c in changes if key(c) == value]),
                 **over_range([c for c in changes if key(c) == value])} for value in values]

    def agent(change: Change) -> str | None:
        return next((line["agent"] for line in reversed(change.attempts) if line.get("agent")), None)

    return {
        "weeks": [week_row(week) for week in weeks],
        "totals": {"pull_requests": len(changes), **over_range(changes)},
        "by_agent": grouped("agent", agent),
        "by_repo": grouped("repo", lambda change: change.attempts[-1]["repo"]),
        "cohorts": [cohort(week) for week in weeks if any(change.opened == week for change in everyone)],
    }


def lanelog_figures(tmp_path: Path, lines: list[dict[str, Any]], filters: Filters) -> dict[str, Any]:
    log = tmp_path / "lane-log.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    con = store.open_memory()
    ingest.ingest_paths(con, [log])
    found = queries.outcome_figures(con, filters, today=TODAY)
    return {key: found[key] for key in ("weeks", "totals", "by_agent", "by_repo", "cohorts")}


SCOPES = {
    "everything": Filters(),
    "orders": Filters(repo="orders"),
    "october": Filters(since=date(2026, 10, 1), until=date(2026, 10, 31)),
}


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("scope", sorted(SCOPES))
def test_outcome_figures_equal_an_independent_reader(tmp_path: Path, seed: int, scope: str) -> None:
    lines = history(seed)
    assert lanelog_figures(tmp_path, lines, SCOPES[scope]) == expected(lines, SCOPES[scope])


def test_the_generated_histories_hold_every_case_the_rules_name() -> None:
    """The twelve histories hold what the rules distinguish, so the comparison above can tell them apart."""
    everything = [change for seed in range(12) for change in read(history(seed), None).values()]
    verdicts = {change.verdict() for change in everything}
    assert {"credit_bug", "reviewed_exception", None} <= verdicts
    assert {change.state for change in everything} == {"merged", "closed", None}
    assert any(change.cost() is None and change.state == "merged" for change in everything)
    assert any(change.cost() is not None and change.cost()[1] == "EUR" for change in everything)
    assert any(change.attempts[0]["probe"] == "reject" and change.state == "merged" for change in everything)
    assert {len(change.attempts) == 1 for change in everything if change.state == "merged"} == {True, False}
    assert {change.first < stale_day(Filters())
            for change in everything if change.state is None} == {True, False}


FIRST = START + timedelta(days=2)


def merged_before_tried(tmp_path: Path) -> Path:
    """A log of two merged pull requests: #1's merge stamped 130 hours before its first attempt, #2's 10 after."""
    rng = random.Random(7)
    lines: list[dict[str, Any]] = []
    for number, closed in ((1, FIRST - timedelta(hours=130)), (2, FIRST + timedelta(hours=10))):
        attempt = {"schema": 1, "attempt_id": f"c-{number}", "ts": stamp(FIRST), "repo": "orders",
                   "producer": "lanelog-route", "probe": "pass", "model_call_allowed": False, "lane": "not_started",
                   "quarantine": [], "merge_credit": 0, "pull_request": {"repository": "acme/orders", "number": number}}
        lines += [attempt, outcome(rng, "acme/orders", "orders", number, closed, "merged", (FIRST, "d" * 40))]
    log = tmp_path / "lane-log.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return log


def test_a_merge_recorded_before_its_first_attempt_is_named_and_kept_out_of_the_median(tmp_path: Path) -> None:
    """A close stamped 130 hours before the pull request's first attempt gave a median of -130 hours to merge."""
    con = store.open_memory()
    ingest.ingest_paths(con, [merged_before_tried(tmp_path)])
    found = queries.outcome_figures(con, Filters())
    assert found["totals"]["merged"] == 2
    assert found["totals"]["median_hours_to_merge"] == 10.0
    assert [(pr["pr_number"], pr["closed_at"]) for pr in found["contradicting_times"]] == [
        (1, (FIRST - timedelta(hours=130)).replace(tzinfo=None).isoformat())]


def test_the_review_names_a_merge_recorded_before_its_first_attempt(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from lanelog.cli import cli

    for form in ("text", "markdown"):
        done = CliRunner().invoke(cli, ["report", str(merged_before_tried(tmp_path)), "--format", form])
        assert done.exit_code == 0, done.output
        assert "1 pull request(s) closed before their first attempt" in done.stdout
        assert "orders#1 (closed 2026-09-03" in done.stdout.replace("\\", "")


def report_of(tmp_path: Path, *args: str) -> str:
    from click.testing import CliRunner

    from lanelog.cli import cli

    log = tmp_path / "lane-log.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in history(3)), encoding="utf-8")
    done = CliRunner().invoke(cli, ["report", str(log), "--today", "2026-12-01", *args])
    assert done.exit_code == 0, done.output
    return done.stdout


def test_every_report_format_shows_the_first_try_merges_the_stale_and_the_cohorts(tmp_path: Path) -> None:
    outcomes = json.loads(report_of(tmp_path, "--format", "json"))["outcomes"]
    totals = outcomes["totals"]
    assert outcomes["cohorts"] and totals["merged"] and totals["open"]
    for form in ("text", "markdown"):
        shown = report_of(tmp_path, "--format", form).replace("\\", "")
        assert f"Merged at the first try (one routed attempt): {totals['first_try_merges']}," in shown
        assert f"Open now (no outcome line yet): {totals['open']}, of which {totals['stale_open']} stale" in shown
        assert "By the week they opened (what became of them, as of now)" in shown
        assert "open at week's end" in shown
    rows = list(csv.DictReader(io.StringIO(report_of(tmp_path, "--format", "csv"))))
    weeks = {row["week"]: row for row in outcomes["weeks"]}
    for cohort in outcomes["cohorts"]:
        row = next(row for row in rows if row["week"] == cohort["week"])
        assert (row["cohort_merged"], row["cohort_open"], row["open_at_week_end"], row["stale_open"]) == (
            str(cohort["merged"]), str(cohort["open"]), str(weeks[cohort["week"]]["open_at_week_end"]),
            str(weeks[cohort["week"]]["stale_open"]))


def test_stale_days_moves_which_open_pull_requests_are_stale(tmp_path: Path) -> None:
    """Every open pull request is stale at 0 days on 2026-12-01, none at 36500; the days count to --until when given."""
    def totals(*args: str) -> dict[str, Any]:
        return dict(json.loads(report_of(tmp_path, "--format", "json", *args))["outcomes"]["totals"])

    assert totals("--stale-days", "0")["stale_open"] == totals()["open"] > 0
    assert totals("--stale-days", "36500")["stale_open"] == 0
    # Counted apart from the lines: the pull requests with no outcome line, by their first routed attempt.
    firsts: dict[tuple[str, int], datetime] = {}
    closed = set()
    for line in history(3):
        key = (line["pull_request"]["repository"], line["pull_request"]["number"])
        if line.get("producer") == "lanelog-outcome":
            closed.add(key)
        elif line.get("producer") == "lanelog-route":
            ts = datetime.fromisoformat(line["ts"].replace("Z", "+00:00")).replace(tzinfo=None)
            firsts[key] = min(ts, firsts.get(key, ts))
    still = sorted(ts for key, ts in firsts.items() if key not in closed)

    def expected(until: date) -> tuple[int, int]:
        """Open pull requests in the range up to `until` (their first week by then), and of them the stale."""
        mine = [ts for ts in still if ts.date() - timedelta(days=ts.weekday()) <= until]
        edge = datetime.combine(until - timedelta(days=14), datetime.min.time())
        return len(mine), sum(ts < edge for ts in mine)

    # The oldest open pull request is not stale on the 14th day after its first attempt, and is on the 15th.
    day = still[0].date()
    for until in (day + timedelta(days=14), day + timedelta(days=15)):
        found = totals("--until", until.isoformat())
        assert (found["open"], found["stale_open"]) == expected(until)
    assert expected(day + timedelta(days=15))[1] == expected(day + timedelta(days=14))[1] + 1


def test_a_stale_days_lanelog_cannot_count_is_refused_by_name(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from lanelog.cli import cli

    done = CliRunner().invoke(cli, ["report", "--stale-days", "-1"])
    assert done.exit_code == 2
    assert "Invalid value for '--stale-days': -1 is not in the range 0<=x<=36500." in done.stderr
