"""The demo's weeks: three throwaway repositories and what the agent and humans do in each week.

Every reject reason the router can honestly give on a patch shows up in the
first three weeks; later weeks repeat the mix, with the agent making more
narrow patches as it learns.  The human side changes `main` now and then: a
new freeze, a broken policy fixed the week after, a flaky row without an owner.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from datetime import date, timedelta
from pathlib import Path

from lanelog.cli.demo import agent
from lanelog.cli.demo.agent import Outcome, Patch
from lanelog.cli.demo.repos import (
    LANES_BILLING,
    LANES_BILLING_INVALID,
    LANES_ORDERS,
    DemoRepo,
    flaky_yaml,
    module_source,
)

# A Monday; the seed's example clock (2026-10-08) falls in the third week and its
# freeze (test_export_race, expires 2026-10-22) dies during the fifth.
START = date(2026, 9, 21)

EXPORT_RACE = ("test_export_race", date(2026, 10, 22), "ci-team", "shared clock in the export fixture")
SHARED_TMPDIR = ("test_shared_tmpdir", date(2026, 11, 27), "storage-team", "tests share one tmp dir")
LEDGER_CLOCK = ("test_ledger_clock", date(2026, 12, 18), "billing-team", "month-end rollover in CI")
OLD_FREEZE = ("test_cache_warmup", date(2026, 9, 1), "ci-team", "cold cache on the first run")

# The agents' accounts: one makes the narrow patches (and narrows a wide one when the probe
# rejects it), the other everything else.
TIDY_BOT, SWEEP_BOT = "tidy-bot[bot]", "sweep-bot[bot]"

# Outcomes asked of the runner by narrow patches, in turn: most hold, some fail,
# some answer in prose (unresolved), one runner crashes (unresolved too).
OUTCOMES: list[dict[str, str]] = [
    {"*": "hold"},
    {"*": "hold"},
    {"prop_idempotent_put": "fail"},
    {"*": "hold"},
    {"prop_round_trip": "prose"},
    {"*": "hold"},
    {"prop_reject_empty": "fail", "prop_balanced_ledger": "fail"},
    {"*": "crash"},
]


@dataclass
class Repos:
    orders: DemoRepo
    billing: DemoRepo
    search: DemoRepo
    tarball: Path  # a folder that is not a checkout


def build_repos(root: Path) -> Repos:
    """The three repositories as they stand the week before the demo starts."""
    before = START - timedelta(days=7)
    orders = DemoRepo(root / "orders-service", "orders-service")
    orders.commit_on_main(
        {
            "lanes.yaml": LANES_ORDERS,
            "flaky.yaml": flaky_yaml([EXPORT_RACE, OLD_FREEZE]),
            "store.py": module_source("store"),
            "api.py": module_source("api"),
            "export.py": module_source("export"),
            "tests/test_store.py": "def test_put():\n    assert True\n",
            "fixtures/order.fixture.json": '{"id": 1, "total": 10}\n',
            "docs/notes.md": "# Notes\n",
        },
        "orders service with a lane policy",
        before,
    )
    billing = DemoRepo(root / "billing-service", "billing-service")
    billing.commit_on_main(
        {
            "lanes.yaml": LANES_BILLING,
            "flaky.yaml": flaky_yaml([LEDGER_CLOCK]),
            "ledger.py": module_source("ledger"),
            "api.py": module_source("api"),
        },
        "billing service with a lane policy",
        before,
    )
    search = DemoRepo(root / "search-service", "search-service")
    search.commit_on_main({"index.py": module_source("index")}, "search service, no lane policy yet", before)
    return Repos(orders, billing, search, root / "search-export-tarball")


def human_changes(repos: Repos, week: int, monday: date) -> None:
    """Reviewed changes to main at the start of a week."""
    if week == 1:
        repos.billing.commit_on_main({"lanes.yaml": LANES_BILLING_INVALID}, "map refunds", monday)
    if week == 2:
        repos.billing.commit_on_main({"lanes.yaml": LANES_BILLING}, "revert: map refunds", monday)
        repos.orders.commit_on_main(
            {"flaky.yaml": flaky_yaml([EXPORT_RACE, OLD_FREEZE, SHARED_TMPDIR])}, "freeze tmpdir test", monday
        )
        bad_row = flaky_yaml([LEDGER_CLOCK]) + "  - id: test_refund_retry\n    expires: 2026-12-01\n"
        repos.billing.commit_on_main({"flaky.yaml": bad_row}, "freeze refund retry", monday)
    if week == 3:
        repos.billing.commit_on_main({"flaky.yaml": flaky_yaml([LEDGER_CLOCK])}, "drop ownerless row", monday)


def week_patches(repos: Repos, week: int, monday: date, numbers: Iterator[int]) -> list[tuple[date, Patch]]:
    """The agent's attempts of one week, each with the weekday it ran (Monday to Friday)."""
    out: list[tuple[date, Patch]] = []

    def add(make: Callable[..., Patch], repo: DemoRepo, *extra: object, bot: str = SWEEP_BOT) -> None:
        day = monday + timedelta(days=len(out) % 5)
        n = next(numbers)
        patch = make(repo, n, day, *extra)
        out.append((day, replace(patch, pull_request=patch.pull_request or n, agent=bot)))

    def follow_up(outcome: Outcome) -> None:
        """The next day, a narrower patch on the pull request the probe rejected as too wide."""
        day, first = out[-1][0] + timedelta(days=1), out[-1][1]
        patch = agent.narrowed(first.repo, next(numbers), day, first, outcome)
        out.append((day, replace(patch, agent=first.agent)))

    orders, billing = repos.orders, repos.billing
    for i in range(2 + week // 3):
        add(agent.narrow, orders, "store.py", OUTCOMES[(week + i) % len(OUTCOMES)], bot=TIDY_BOT)
    add(agent.narrow, orders, "api.py", OUTCOMES[(week + 3) % len(OUTCOMES)], bot=TIDY_BOT)
    add(agent.generated_bulk, orders, OUTCOMES[(week + 5) % len(OUTCOMES)], bot=TIDY_BOT)
    add(agent.narrow, billing, "ledger.py", OUTCOMES[(week + 2) % len(OUTCOMES)])
    add(agent.narrow, billing, "api.py", OUTCOMES[(week + 6) % len(OUTCOMES)])
    add(agent.narrow, repos.search, "index.py", {"*": "hold"})
    if week < 4 or week % 2 == 0:  # the agent widens less often as it learns
        add(agent.too_wide, orders, bot=TIDY_BOT)
        follow_up({"*": "hold"})
    add(agent.fixture_and_test, orders)
    add(agent.assertion_removed if week % 2 == 0 else agent.unmapped, orders)
    add(agent.over_budget if week % 2 == 0 else agent.policy_change, orders)
    if week % 2 == 0:  # billing's policy holds a cost cap (in week 1 the policy is broken)
        add(agent.over_cost_cap, billing)
    add(agent.binary_file if week % 2 == 1 else agent.unmapped, orders)
    rare = (agent.base_missing, agent.head_missing, agent.not_a_repo)[week % 3]
    if rare is agent.not_a_repo:
        add(rare, orders, repos.tarball)
    else:
        add(rare, orders)
    return out
