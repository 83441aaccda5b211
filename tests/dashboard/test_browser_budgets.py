"""The budgets on the pages, in a real browser: `lanelog dashboard --budgets FILE` on the demo database."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path

import pytest

from tests.dashboard.browser_support import FINISHED, chromium, free_port, stop, wait_until_healthy
from tests.dashboard.test_browser import ARTIFACTS, WIDTHS, drawn_page, legend_entries, open_expanders, overflow

pytestmark = pytest.mark.browser


def last_week(db: Path) -> dict[str, object]:
    """The demo's last dated week of the report's money section, as `lanelog report` gives it."""
    done = subprocess.run([sys.executable, "-m", "lanelog", "report", "--db", str(db), "--format", "json"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    weeks = [row for row in json.loads(done.stdout)["money"]["weeks"] if row["week"]]
    assert weeks[-1]["cost"] and weeks[-1]["currency"] == "USD"
    return weeks[-1]


@pytest.fixture(scope="module")
def budgeted(demo_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, float]]:
    """The dashboard on a copy of the demo database, judged on the Sunday of its last week, with
    one budget at 80% of that week's cost, one over it, and a month's budget of one repository."""
    root = tmp_path_factory.mktemp("budgeted")
    db = root / "served.duckdb"
    shutil.copy(demo_db, db)
    week = last_week(db)
    cost = float(week["cost"])  # type: ignore[arg-type]
    sunday = date.fromisoformat(str(week["week"])) + timedelta(days=6)
    (root / "budgets.yaml").write_text(f"""\
budgets:
  - name: all-spend
    amount: {cost / 0.85:.6f}
    currency: USD
    period: week
  - name: weekly-cap
    amount: {cost * 0.9:.6f}
    currency: USD
    period: week
  - name: orders-month
    amount: 1.0
    currency: USD
    period: month
    repo: "orders-*"
  - name: euro-desk
    amount: 5.0
    currency: EUR
    period: week
    repo: "no-such-repo-*"
""")
    port = free_port()
    server = subprocess.Popen(
        [str(Path(sys.executable).parent / "lanelog"), "dashboard", "--db", str(db), "--port", str(port),
         "--budgets", str(root / "budgets.yaml"), "--today", sunday.isoformat()],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    wait_until_healthy(server, url, lambda: server.stdout.read() if server.stdout else "")
    try:
        yield url, cost
    finally:
        stop(server, 10)


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with chromium() as launched:
        yield launched


def test_the_spend_review_draws_each_budget_at_two_widths(budgeted: tuple[str, float], browser: object) -> None:
    url, _ = budgeted
    for width in WIDTHS:
        page = drawn_page(browser, f"{url}/spend", "spend", width)
        assert page.locator('[data-testid="stException"]').count() == 0
        main = page.locator('[data-testid="stMain"]').inner_text()
        # Charts first: the budgets and the cost per week come before the first table.
        assert main.index("Budgets") < main.index("Cost per week") < main.index("Tables")
        assert "weekly-cap: " in main and "(111%)" in main and "all-spend: " in main and "(85%)" in main
        assert "budget euro-desk: repo 'no-such-repo-*' matches no repository in the database" in main
        legends = legend_entries(page)
        shares, costs_usd = legends[:2]
        assert shares == ["spent so far", "spent so far, past an alert threshold", "spent so far, over the amount",
                          "projected by the period's end", "alert threshold"]
        assert costs_usd[0] == "cost per week (USD)"
        # The budgets of all spend over the weekly cost; the one scoped to a repository over its own spend.
        assert [entry.split(":")[0] for entry in costs_usd[1:]] == ["budget all-spend", "budget weekly-cap"]
        assert main.index("Scoped budgets") < main.index("Budget orders-month: repositories orders-*, in USD")
        assert any(entries[0] == "cost in its scope per week (USD)"
                   and [entry.split(":")[0] for entry in entries[1:]] == ["budget orders-month"]
                   for entries in legends[2:]), legends
        # Nothing in the euro budget's scope was spent: a sentence says so, not a chart of nothing.
        assert ("No spend in these weeks in the scope of euro-desk (repositories no-such-repo-*): nothing to draw."
                in main)
        assert "budget euro-desk:" not in " ".join(" ".join(entries) for entries in legends)
        open_expanders(page)
        spill = overflow(page)
        assert spill["page"] <= 0 and not spill["labels"] and not spill["values"], spill
        assert all(extra <= 0 for extra in spill["tables"]), spill
        tall = page.evaluate("""() => Math.max(...[...document.querySelectorAll(
            '[data-testid="stMain"], [data-testid="stMainBlockContainer"]')].map(e => e.scrollHeight))""")
        page.set_viewport_size({"width": width, "height": max(1000, int(tall) + 40)})
        page.wait_for_selector(FINISHED, timeout=60_000)
        page.wait_for_timeout(500)  # the charts redraw for the new window
        page.screenshot(path=str(ARTIFACTS / f"budgets-spend-{width}.png"), full_page=True)
        page.close()


def test_the_overview_names_the_budgets_past_80_percent(budgeted: tuple[str, float], browser: object) -> None:
    url, _ = budgeted
    page = drawn_page(browser, url, "overview", 1000)
    alerts = [box.inner_text().strip() for box in
              page.locator('[data-testid="stAlert"] [data-testid="stMarkdownContainer"]').all()]
    named = [text for text in alerts if text.startswith("Budget ")]
    assert [text.split(":")[0] for text in named] == ["Budget all-spend is nearly spent",
                                                      "Budget weekly-cap is over its amount"], alerts
    assert all(text.endswith("See the Spend review.") for text in named)
    page.close()
