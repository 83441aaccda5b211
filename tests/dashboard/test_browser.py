"""`lanelog dashboard` as a user meets it: a real server, headless Chromium, and an ingest alongside."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path

import pytest

from lanelog.dashboard import live_shadow
from lanelog.dashboard.cells import CELL_PADDING_PX
from lanelog.dashboard.health_tables import REJECTED_WIDTHS, SOURCE_COUNTS
from lanelog.dashboard.outcome_charts import OPEN_WIDTHS
from lanelog.dashboard.present import METRICS, alert_text
from lanelog.dashboard.triage_tables import MERGE_WIDTHS, TRIAGE_WIDTHS
from lanelog.dashboard.whatif_tables import FLIP_WIDTHS
from lanelog.queries import FIGURES, compare_latest
from tests.dashboard.browser_support import CHROMIUM, FINISHED, chromium, free_port, stop, wait_until_healthy
from tests.dashboard.dashboard_support import line

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"

if not CHROMIUM.exists() and os.environ.get("CI") != "true":
    pytest.skip(
        "no /usr/bin/chromium on this machine (outside CI only: .ci/run installs it and CI never skips)",
        allow_module_level=True,
    )

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def served(demo_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """`lanelog dashboard` on a copy of the demo database, on a free localhost port."""
    db = tmp_path_factory.mktemp("served") / "served.duckdb"
    shutil.copy(demo_db, db)
    with serving(db) as url:
        yield url, db


@contextlib.contextmanager
def serving(db: Path, cwd: Path | None = None) -> Iterator[str]:
    """`lanelog dashboard --db DB` on a free localhost port, stopped afterwards (started in `cwd`)."""
    port = free_port()
    server = subprocess.Popen(
        [str(Path(sys.executable).parent / "lanelog"), "dashboard", "--db", str(db), "--port", str(port)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=cwd,
    )
    url = f"http://127.0.0.1:{port}"
    wait_until_healthy(server, url, lambda: server.stdout.read() if server.stdout else "")
    try:
        yield url
    finally:
        stop(server, 10)


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with chromium() as launched:
        yield launched


def open_page(browser: object, url: str, hosts: set[str]) -> object:
    """The overview page once its first run has drawn all of it.

    The app reports "not running" before its first run has started, and the
    first metric of a page still being drawn was seen to read 7 for a moment
    where the finished page reads 14.  So the page is ready once the
    credit-bug chart's heading, drawn after the metrics, is there and the run
    has finished.
    """
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.on("request", lambda request: hosts.add(request.url.split("/")[2]))
    page.goto(url)
    page.get_by_text("Credit bugs per week").wait_for(timeout=60_000)
    page.wait_for_selector(FINISHED, timeout=60_000)
    return page


def test_browser_shows_the_alert_banner_and_fetches_nothing_outside(
    served: tuple[str, Path], browser: object, demo_dir: Path
) -> None:
    url, _ = served
    summary = json.loads((demo_dir / "summary.json").read_text())
    # The faulty producer's lines, and the pull request auto-merged over a live freeze.
    credit_bugs, merges = summary["credit_bugs"], summary["pull_requests"]["auto_merged_over_quarantine"]
    hosts: set[str] = set()
    page = open_page(browser, url, hosts)
    banner = page.locator('[data-testid="stAlertContentError"] [data-testid="stMarkdownContainer"]').first
    banner.wait_for(timeout=30_000)
    assert banner.inner_text().strip() == alert_text(credit_bugs, merges=merges)
    assert credit_bugs > 1 and merges == 1
    assert alert_text(credit_bugs, merges=merges).startswith(f"{credit_bugs + 1} credit bugs in range: ")
    page.get_by_text("Patch rejects and armed calls").wait_for()
    page.locator('[data-testid="stVegaLiteChart"]').first.wait_for()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "dashboard-overview.png"), full_page=True)
    assert hosts == {url.split("/")[2]}, f"requests left localhost: {sorted(hosts)}"
    page.close()


def test_the_dashboard_runs_from_a_folder_that_holds_a_lanelog_folder(
    demo_db: Path, browser: object, tmp_path: Path
) -> None:
    """`cd ~ && lanelog dashboard` with the clone at ~/lanelog: the pages import the installed package."""
    home = tmp_path / "home"
    (home / "lanelog").mkdir(parents=True)
    (home / "lanelog" / "__init__.py").write_text("raise ImportError('the working folder was imported')\n")
    db = home / "demo.duckdb"
    shutil.copy(demo_db, db)
    with serving(db, cwd=home) as url:
        page = open_page(browser, url, set())
        assert page.locator('[data-testid="stException"]').count() == 0
        assert "the working folder was imported" not in page.locator("body").inner_text()
        page.close()


def latest_week_attempts(db: Path) -> int:
    """The overview's first figure as `lanelog report` computes it from the database."""
    done = subprocess.run(
        [sys.executable, "-m", "lanelog", "report", "--db", str(db), "--format", "json"],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return compare_latest(json.loads(done.stdout)["weeks"]).latest["attempts"]


def wait_for_attempts(page: object, expected: int) -> None:
    """Until the overview shows its whole metric row with `expected` attempts first.

    A page reads as finished while a rerun is still drawing it: one such page
    held two metrics of six, the first of them another figure.  So the test
    waits for the figure the database gives, in a complete row, not for the
    first value that differs.
    """
    page.wait_for_function(
        """([sel, count, want]) => {
            const values = document.querySelectorAll(sel);
            return values.length === count && values[0].innerText.trim() === want;
        }""",
        # The weekly figures, then Quarantined and the week's Cost.
        arg=['[data-testid="stMetricValue"]', len(METRICS) + 2, str(expected)], timeout=60_000,
    )


def test_ingest_succeeds_while_the_dashboard_serves_the_same_database(
    served: tuple[str, Path], browser: object, tmp_path: Path
) -> None:
    url, db = served
    page = open_page(browser, url, set())
    before = latest_week_attempts(db)
    wait_for_attempts(page, before)

    log = tmp_path / "more.jsonl"
    log.write_text("".join(
        json.dumps({"attempt_id": f"late-{tmp_path.name}-{i}", **line("2026-10-16", repo="orders-service")}) + "\n"
        for i in range(7)
    ))
    done = subprocess.run(
        [sys.executable, "-m", "lanelog", "ingest", "--db", str(db), "--format", "json", "--wait", "30", str(log)],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["attempts_added"] == 7
    assert latest_week_attempts(db) == before + 7

    page.get_by_role("button", name="Refresh").click()
    wait_for_attempts(page, before + 7)
    page.close()


def test_filters_live_in_the_url_so_a_view_can_be_shared(served: tuple[str, Path], browser: object) -> None:
    url, _ = served
    page = open_page(browser, f"{url}/?repo=billing-service", set())
    repo = page.get_by_role("combobox", name="Repository")
    assert repo.input_value() == "billing-service"
    repo.click()
    page.get_by_role("option", name="orders-service", exact=True).click()
    page.wait_for_url("**repo=orders-service**", timeout=30_000)
    page.wait_for_selector(FINISHED, timeout=60_000)
    assert repo.input_value() == "orders-service"
    page.close()


def test_a_reversed_week_range_in_the_url_shows_a_note_not_an_exception(
    served: tuple[str, Path], browser: object
) -> None:
    url, db = served
    page = open_page(browser, f"{url}/?weeks=2026-10-12&weeks=2026-09-01", set())
    wait_for_attempts(page, latest_week_attempts(db))
    page.get_by_text("The week range in the address is not a range of days in order").wait_for(timeout=30_000)
    assert page.locator('[data-testid="stException"]').count() == 0
    body = page.locator("body").inner_text()
    assert "Traceback" not in body and "site-packages" not in body and "QueryError" not in body
    page.close()


# The stored names of figures and columns: a page says each in words ("armed calls", "not
# started"), never so.  (Reason codes such as line_cap, and the raw JSON of a line, are the
# log's own words and are shown as they are.)
STORED_NAMES = re.compile(r"\b(" + "|".join([
    *(name for name in FIGURES if "_" in name), "armed_per_reject", "lanes_run", "unresolved_share",
    "not_started", "no_call_armed",
    "quarantine_id", "first_seen", "last_seen", "expired_reports", "bytes_read", "lines_read", "source_id",
    "spent_units", "first_ingested", "last_ingested", "line_no", "baseline_probe", "candidate_probe",
]) + r")\b")


def open_expanders(page: object) -> None:
    """Open every expander, so the tables inside are drawn, measured and read."""
    for summary in page.locator('[data-testid="stExpander"] summary').all():
        summary.click()
    page.wait_for_selector(FINISHED, timeout=60_000)
    page.wait_for_timeout(300)


def stored_names(page: object) -> list[str]:
    """Stored names in the page's visible text: its words, table cells (drawn on a canvas, so read
    from the grid's accessible copy) and chart text, the raw lines in code blocks left out."""
    text = page.evaluate(
        """() => {
            const main = document.querySelector('[data-testid="stMain"]').cloneNode(true);
            main.querySelectorAll('[data-testid="stCode"]').forEach(e => e.remove());
            return main.textContent;
        }"""
    )
    return sorted(set(STORED_NAMES.findall(text)))


PAGE_PATHS = {"overview": "", "triage": "triage", "spend": "spend", "outcomes": "outcomes", "probe": "probe",
              "quarantine": "quarantine", "health": "health", "whatif": "whatif"}
TITLES = {"overview": "Overview", "triage": "Credit-bug triage", "spend": "Spend review", "outcomes": "Outcomes",
          "probe": "Probe", "quarantine": "Quarantine", "health": "Data health", "whatif": "What-if"}
# The tables whose cells are cut to their column (page, what they show, their widths): on the triage
# page the lines' table and the merges' two (credit bugs, then reviewed exceptions).
FITTED = (("triage", "lines", TRIAGE_WIDTHS), ("triage", "merges", MERGE_WIDTHS),
          ("outcomes", "open pull requests", OPEN_WIDTHS))
WIDTHS = (1400, 1000)


@pytest.fixture(scope="module")
def long_history(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """The dashboard on a generated history of 66 weeks and five repositories; the whole range in the URL."""
    from tests.dashboard.dashboard_support import write_long_history

    root = tmp_path_factory.mktemp("long")
    log, db = root / "history.jsonl", root / "history.duckdb"
    write_long_history(log)
    done = subprocess.run([sys.executable, "-m", "lanelog", "ingest", "--db", str(db), str(log)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    weeks = [row["week"] for row in report_of(db)["weeks"] if row["week"]]
    assert len(weeks) >= 60
    last_sunday = (date.fromisoformat(weeks[-1]) + timedelta(days=6)).isoformat()
    with serving(db) as url:
        yield url, f"?weeks={weeks[0]}&weeks={last_sunday}"


def report_of(db: Path) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-m", "lanelog", "report", "--db", str(db), "--format", "json"],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def drawn_page(browser: object, url: str, name: str, width: int) -> object:
    """A page once its run has finished and every chart on it has drawn."""
    page = browser.new_page(viewport={"width": width, "height": 1000})
    page.goto(url)
    page.get_by_role("heading", name=TITLES[name], exact=True).wait_for(timeout=60_000)
    page.wait_for_selector(FINISHED, timeout=60_000)
    # Charts and tables load their code lazily: a placeholder stands until they have drawn.
    page.wait_for_function(
        """() => !document.querySelector('[data-testid="stSkeleton"]')
                 && [...document.querySelectorAll('[data-testid="stVegaLiteChart"]')]
                    .every(chart => chart.querySelector('canvas, svg'))""", timeout=60_000)
    return page


def legend_entries(page: object) -> list[list[str]]:
    """The legend labels each chart shows whole: inside its chart's box, left to right, top to bottom."""
    return page.evaluate(
        """() => [...document.querySelectorAll('[data-testid="stVegaLiteChart"]')].map(chart => {
            const box = chart.getBoundingClientRect();
            return [...chart.querySelectorAll('.role-legend-label text')]
                .filter(t => { const r = t.getBoundingClientRect();
                               return r.width > 0 && r.left >= box.left && r.right <= box.right; })
                .map(t => t.textContent);
        })"""
    )


def plot_heights(page: object) -> list[float]:
    """The drawn height of each chart's quantitative y axis: a legend must not squash the plot."""
    return page.evaluate(
        """() => [...document.querySelectorAll('[data-testid="stVegaLiteChart"] [aria-label^="Y-axis"]')]
                 .filter(axis => axis.getAttribute('aria-label').includes('linear scale'))
                 .map(axis => axis.getBoundingClientRect().height)"""
    )


def overflow(page: object) -> dict[str, object]:
    """What spills sideways: the page itself, each table or code block wider than its box
    (one that scrolls sideways), and the metric labels and values cut short (Streamlit ends
    one too wide for its column with "…")."""
    return page.evaluate(
        """() => ({
            page: document.documentElement.scrollWidth - document.documentElement.clientWidth,
            tables: [...document.querySelectorAll('[data-testid="stDataFrame"] .dvn-scroller')]
                    .filter(s => s.clientWidth > 0)  // a table in a closed expander is not drawn
                    .map(s => s.scrollWidth - s.clientWidth),
            static: [...document.querySelectorAll('[data-testid="stTable"], [data-testid="stTable"] *')]
                    .filter(e => e.clientWidth > 0 && getComputedStyle(e).overflowX !== 'visible')
                    .map(e => e.scrollWidth - e.clientWidth),
            code: [...document.querySelectorAll('[data-testid="stCode"] pre, [data-testid="stCode"] code')]
                  .filter(e => e.clientWidth > 0)
                  .map(e => e.scrollWidth - e.clientWidth),
            labels: [...document.querySelectorAll('[data-testid="stMetricLabel"] *')]
                    .filter(e => e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1)
                    .map(e => e.textContent),
            values: [...document.querySelectorAll('[data-testid="stMetricValue"], [data-testid="stMetricValue"] *')]
                    .filter(e => e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1)
                    .map(e => e.textContent),
        })"""
    )


def tables_with(page: object, widths: dict[str, int]) -> list[int]:
    """The places among the page's tables of those whose headers are the columns `widths` names."""
    page.wait_for_timeout(300)
    return page.evaluate("""names => [...document.querySelectorAll('[data-testid="stDataFrame"]')]
        .map((table, index) => [index, [...table.querySelectorAll('thead tr > *')].map(cell => cell.textContent)])
        .filter(([, heads]) => names.every(name => heads.includes(name))).map(([index]) => index)""",
        list(widths))


def cells_cut_short(page: object, widths: dict[str, int], table: int = 0) -> list[str]:
    """The cells of the page's `table`-th table whose text is wider than its column shows (the
    canvas clips such text with no ellipsis), measured in the tables' font once the table's rows
    are there; each cell is matched to its column's header by its place in the row."""
    page.wait_for_function(
        """index => (document.querySelectorAll('[data-testid="stDataFrame"]')[index]
                     ?.querySelectorAll('tbody tr').length || 0) > 0""", arg=table, timeout=30_000)
    return page.evaluate(
        """async ([widths, padding, index]) => {
            const table = document.querySelectorAll('[data-testid="stDataFrame"]')[index];
            const heads = [...table.querySelectorAll('thead tr > *')].map(cell => cell.textContent);
            const measure = document.createElement('canvas').getContext('2d');
            // The font the tables draw in (Streamlit's body font at 14 px), loaded, never a fallback.
            const font = '14px "Source Sans"';
            if (!(await document.fonts.load(font)).length) { return ['the table font did not load']; }
            measure.font = font;
            return [...table.querySelectorAll('tbody tr')].flatMap(row => [...row.children].flatMap((cell, at) =>
                heads[at] in widths && measure.measureText(cell.textContent).width > widths[heads[at]] - padding
                    ? [`${heads[at]}: ${cell.textContent}`] : []));
        }""",
        [widths, CELL_PADDING_PX, table],
    )


@pytest.mark.parametrize("dataset", ["demo", "history"])
def test_every_page_is_saved_at_two_widths_and_nothing_spills_sideways(
    dataset: str, served: tuple[str, Path], long_history: tuple[str, str], browser: object
) -> None:
    """Full-page screenshots of all seven pages, at 1400 and 1000 px, to tests/artifacts/ for a look."""
    url, query = (served[0], "") if dataset == "demo" else long_history
    ARTIFACTS.mkdir(exist_ok=True)
    spills, legends, heights, names, cut_short = {}, {}, {}, {}, {}
    for width in WIDTHS:
        for name, path in PAGE_PATHS.items():
            page = drawn_page(browser, f"{url}/{path}{query}", name, width)
            assert page.locator('[data-testid="stException"]').count() == 0, (name, width)
            open_expanders(page)
            spills[name, width] = overflow(page)
            for fitted, shown, widths in FITTED:
                for number, index in enumerate(tables_with(page, widths) if fitted == name else []):
                    cut_short.setdefault(width, {})[shown, number] = cells_cut_short(page, widths, index)
            names[name, width] = stored_names(page)
            heights[name, width] = plot_heights(page)
            if name == "overview":
                legends[width] = legend_entries(page)[0]
            # The app scrolls inside its main block, not the document: grow the window to the
            # content's height so the screenshot holds the whole page.
            tall = page.evaluate("""() => Math.max(...[...document.querySelectorAll(
                '[data-testid="stMain"], [data-testid="stMainBlockContainer"]')].map(e => e.scrollHeight))""")
            page.set_viewport_size({"width": width, "height": max(1000, int(tall) + 40)})
            page.wait_for_selector(FINISHED, timeout=60_000)
            page.wait_for_timeout(500)  # the charts redraw for the new window
            page.screenshot(path=str(ARTIFACTS / f"{dataset}-{name}-{width}.png"), full_page=True)
            page.close()
    for (name, width), drawn in heights.items():  # every chart keeps a readable plot above its legend
        assert all(height >= 150 for height in drawn), (name, width, drawn)
    for width, entries in legends.items():  # the rejects chart names all three series, none cut off
        assert entries == ["patch rejects", "armed calls", "armed calls per patch reject"], (width, entries)
    assert not {key: found for key, found in names.items() if found}, names
    # A long cell is cut with "…" where it ends; the demo has every table (the history has no pull requests).
    assert all(found == [] for cut in cut_short.values() for found in cut.values()), cut_short
    fitted = {("lines", 0), ("merges", 0), ("merges", 1), ("open pull requests", 0)} if dataset == "demo" \
        else {("lines", 0)}
    assert {width: set(cut) for width, cut in cut_short.items()} == dict.fromkeys(WIDTHS, fitted)
    for (name, width), spill in spills.items():
        assert spill["page"] <= 0, (name, width, spill)
        assert not spill["labels"] and not spill["values"], (name, width, spill)
        for kind in ("tables", "static", "code"):
            assert all(extra <= 0 for extra in spill[kind]), (name, width, kind, spill)
        if name in ("triage", "health"):
            assert spill["tables"], (name, width)  # the tables were drawn, and measured


def test_the_what_if_page_draws_a_stored_replay_at_two_widths(
    replay_run: tuple[Path, dict[str, object]], browser: object, tmp_path: Path
) -> None:
    db = tmp_path / "replay.duckdb"
    shutil.copy(replay_run[0], db)
    flips = len(replay_run[1]["flips"])
    with serving(db) as url:
        for width in WIDTHS:
            page = drawn_page(browser, f"{url}/whatif", "whatif", width)
            page.get_by_text(f"Patches whose probe flips ({flips})").wait_for(timeout=30_000)
            # The guarded assert's flip: its lines hold the new guard, a statement over three lines
            # and the unchanged lines around them, in code blocks measured with the rest (spill["code"]).
            chosen = page.get_by_role("combobox", name="Flip")
            chosen.click()
            page.keyboard.type("Guard an assert")
            page.keyboard.press("Enter")
            page.evaluate("() => document.activeElement.blur()")  # the screenshot shows no focus ring
            page.wait_for_selector(FINISHED, timeout=60_000)
            page.get_by_text("if PUT_COPIES:", exact=False).first.wait_for(timeout=30_000)
            page.get_by_text("Why the baseline rejects: the lines it decided on.").wait_for(timeout=30_000)
            assert page.locator('[data-testid="stException"]').count() == 0
            spill = overflow(page)
            assert not stored_names(page), stored_names(page)
            assert cells_cut_short(page, FLIP_WIDTHS, table=1) == []  # the flips: a long subject ends in "…"
            legends = legend_entries(page)
            tall = page.evaluate("""() => document.querySelector('[data-testid="stMain"]').scrollHeight""")
            page.set_viewport_size({"width": width, "height": max(1000, int(tall) + 40)})
            page.wait_for_selector(FINISHED, timeout=60_000)
            page.wait_for_timeout(500)  # the chart redraws for the new window
            ARTIFACTS.mkdir(exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / f"replay-whatif-{width}.png"), full_page=True)
            page.close()
            assert spill["page"] <= 0 and spill["tables"] and all(extra <= 0 for extra in spill["tables"]), spill
            assert all(extra <= 0 for extra in spill["code"]), spill
            assert legends == [["baseline", "candidate"]], legends


def test_the_what_if_page_draws_the_live_shadow_beside_a_replay_at_two_widths(
    replay_run: tuple[Path, dict[str, object]], browser: object, tmp_path: Path
) -> None:
    """The live shadow's weeks and flips under a stored replay, saved at 1400 and 1000 px for a look."""
    db = tmp_path / "shadow.duckdb"
    shutil.copy(replay_run[0], db)
    shadow = {"policy": "/ci/lanes-net.yaml", "policy_sha256": "ab" * 32, "probe": "pass", "reasons": [],
              "units": 2, "model_call_allowed": True, "lines_changed": 3, "message": None}
    rejecting = {**shadow, "probe": "reject", "reasons": ["fixture_and_test", "assertion_removed", "line_cap"],
                 "model_call_allowed": False}
    lines = []
    for n, day in enumerate(["2026-09-14", "2026-09-15", "2026-09-22", "2026-09-23", "2026-09-29", "2026-10-01"]):
        live_reject = n % 2 == 0
        lines.append({"schema": 1, "attempt_id": f"ci-run-{n}-{'x' * 30}", "ts": f"{day}T10:00:00Z",
                      "repo": "orders-service", "head": f"{n:040x}", "producer": "lanelog-route",
                      "probe": "reject" if live_reject else "pass",
                      "reasons": ["assertion_removed", "no_properties"] if live_reject else [],
                      "model_call_allowed": not live_reject, "units": 0 if live_reject else 1,
                      "shadow": shadow if live_reject else (rejecting if n == 3 else shadow)})
    # An older candidate, watched before this one (a choice of its own), and a line whose shadow
    # file could not be read (counted apart, in the warning above the choice).
    lines.append({**lines[1], "attempt_id": "ci-run-older", "ts": "2026-09-08T10:00:00Z",
                  "shadow": {**rejecting, "policy": "/ci/lanes-old.yaml", "policy_sha256": "cd" * 32}})
    lines.append({**lines[1], "attempt_id": "ci-run-unread", "ts": "2026-09-30T10:00:00Z",
                  "shadow": {"policy": "/ci/lanes-gone.yaml", "policy_sha256": None, "error": "policy_missing",
                             "message": "policy_missing: /ci/lanes-gone.yaml: no such file"}})
    log = tmp_path / "shadow.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in lines))
    done = subprocess.run([sys.executable, "-m", "lanelog", "ingest", str(log), "--db", str(db)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert [entry["policy_sha256"] for entry in report_of(db)["shadow"]["policies"]] == ["ab" * 32, "cd" * 32]
    flips = report_of(db)["shadow"]["policies"][0]["totals"]["flips"]
    assert flips == 4  # by hand: the three live rejects the shadow passes, and n=3 the other way
    with serving(db) as url:
        for width in WIDTHS:
            page = drawn_page(browser, f"{url}/whatif", "whatif", width)
            page.get_by_text(f"Attempts whose probe would flip ({flips})").wait_for(timeout=30_000)
            assert page.locator('[data-testid="stException"]').count() == 0
            spill = overflow(page)
            # replay: about, flips, the chosen flip; live: weeks, then the flips, each cut with "…"
            assert cells_cut_short(page, live_shadow.FLIP_WIDTHS, table=4) == []
            legends = legend_entries(page)
            tall = page.evaluate("""() => document.querySelector('[data-testid="stMain"]').scrollHeight""")
            page.set_viewport_size({"width": width, "height": max(1000, int(tall) + 40)})
            page.wait_for_selector(FINISHED, timeout=60_000)
            page.wait_for_timeout(500)  # the charts redraw for the new window
            ARTIFACTS.mkdir(exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / f"shadow-whatif-{width}.png"), full_page=True)
            page.close()
            assert spill["page"] <= 0 and not spill["labels"] and not spill["values"], spill
            # replay: about, flips, the chosen flip; live: weeks, flips, the chosen flip
            assert len(spill["tables"]) == 6 and all(extra <= 0 for extra in spill["tables"]), spill
            assert legends == [["baseline", "candidate"]] * 2, legends


def week_labels(page: object) -> list[list[str]]:
    """The week labels each chart's x axis draws (a label the axis leaves out for overlap is hidden)."""
    return page.evaluate(
        """() => [...document.querySelectorAll('[data-testid="stVegaLiteChart"] [aria-label^="X-axis"]')]
            .map(axis => [...axis.querySelectorAll('.role-axis-label text')]
                 .filter(text => text.getAttribute('opacity') !== '0' && getComputedStyle(text).opacity !== '0')
                 .map(text => text.textContent))"""
    )


@pytest.mark.parametrize("span", [12, 16])
def test_every_week_is_labelled_up_to_16_weeks_in_half_and_whole_columns(
    span: int, long_history: tuple[str, str], browser: object
) -> None:
    """12 weeks draw two charts side by side, 16 each across the column: every week is labelled."""
    from tests.dashboard.dashboard_support import HISTORY_START, HISTORY_WEEKS

    last = date.fromisoformat(HISTORY_START) + timedelta(weeks=HISTORY_WEEKS - 1)
    weeks = [(last - timedelta(weeks=back)).isoformat() for back in reversed(range(span))]
    query = f"?weeks={weeks[0]}&weeks={(last + timedelta(days=6)).isoformat()}"
    for width in WIDTHS:
        for name in ("overview", "spend"):
            page = drawn_page(browser, f"{long_history[0]}/{PAGE_PATHS[name]}{query}", name, width)
            side_by_side = page.locator('[data-testid="stColumn"] [data-testid="stVegaLiteChart"]').count()
            labels = week_labels(page)
            page.close()
            assert (side_by_side > 0) == (span <= 12), (name, width, side_by_side)
            assert labels and all(drawn == weeks for drawn in labels), (name, width, labels)


def test_logs_from_a_bucket_are_named_by_key_and_fit_at_two_widths(browser: object, tmp_path: Path) -> None:
    """Data health and triage on logs read from a bucket (the source rows as an ingest of
    s3://acme-ci-logs/lanelog/ records them), saved at 1400 and 1000 px for a look."""
    from lanelog import ingest, store

    runs = ["12345678901-1", "12345678957-2", "12345679003-1"]
    logs = []
    for n, run in enumerate(runs):
        lines = [line(f"2026-10-0{5 + n}", attempt_id=f"{run}-a{i}") for i in range(3)]
        if n == 1:
            lines.append(line("2026-10-06", attempt_id=f"{run}-bug", producer="legacy-promoter", merge_credit=1,
                              quarantine=["test_export_race", "test_shared_tmpdir"]))
        log = tmp_path / f"{run}.jsonl"
        log.write_text("".join(json.dumps(row) + "\n" for row in lines) + ("not json\n" if n == 1 else ""))
        logs.append(log)
    db = tmp_path / "bucket.duckdb"
    con = store.open_db(db)
    try:
        ingest.ingest_paths(con, logs)
        for n, (run, log) in enumerate(zip(runs, logs)):
            url = f"s3://acme-ci-logs/lanelog/orders-service/{run}/lane-log.jsonl"
            con.execute("UPDATE sources SET path = ? WHERE path = ?", [url, str(log)])
            if n < 2:  # the last listing held the first two; the third was deleted since
                con.execute("INSERT INTO objects_read VALUES (?, 'etag', 1, now())", [url])
    finally:
        con.close()
    ARTIFACTS.mkdir(exist_ok=True)
    with serving(db) as url:
        for width in WIDTHS:
            for name in ("health", "triage"):
                page = drawn_page(browser, f"{url}/{PAGE_PATHS[name]}", name, width)
                assert page.locator('[data-testid="stException"]').count() == 0
                spill = overflow(page)
                if name == "health":
                    cut = cells_cut_short(page, SOURCE_COUNTS) + cells_cut_short(page, REJECTED_WIDTHS, table=2)
                    body = page.locator('[data-testid="stMain"]').inner_text()
                else:
                    cut = cells_cut_short(page, TRIAGE_WIDTHS)
                tall = page.evaluate("""() => document.querySelector('[data-testid="stMain"]').scrollHeight""")
                page.set_viewport_size({"width": width, "height": max(1000, int(tall) + 40)})
                page.wait_for_selector(FINISHED, timeout=60_000)
                page.wait_for_timeout(500)
                page.screenshot(path=str(ARTIFACTS / f"bucket-{name}-{width}.png"), full_page=True)
                page.close()
                assert spill["page"] <= 0 and all(extra <= 0 for extra in spill["tables"]), (name, width, spill)
                assert cut == [], (name, width, cut)
            assert "1 log was not in the bucket when ingest last listed it" in body
            assert "no longer at their recorded path" not in body
