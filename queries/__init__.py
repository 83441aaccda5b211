"""The named figures: what the CLI's reports and the dashboard's pages show, from ``queries/*.sql``.

    from lanelog.queries import Filters, report
    figures = report(con, Filters.parse(since="2026-10-01"))   # con: DuckDB, or an Engine (Spark)

The door of the layer: other layers import these names, never its modules.  Each is
imported from its module when first used, so `lanelog report` loads neither pandas
(the pages' tables, views.py) nor Spark (spark_lake.py).  The modules:
figures.py (the weekly figures' keys and words), filters.py (the scope), named.py (every
SQL block by name), engine.py (the engine seam), reporting.py, shadow.py, costs.py (the
report's JSON), views.py (the pages' tables), periods.py, budget_file.py and budgets.py
(the budget model), source.py (where figures are read), and Spark's spark*.py.
"""

from typing import TYPE_CHECKING

from lanelog.lazy import lazy_attributes

_HOMES = {
    **dict.fromkeys(("CREDIT_COUNTS", "FIGURES", "FIRST_DAY", "LABELS", "LAST_DAY", "TABLE", "WEEKLY", "Comparison",
                     "Figure", "compare_latest", "day_outside", "label", "supported_week"), "figures"),
    "Filters": "filters",
    **dict.fromkeys(("ACCEPT_LABEL", "SQL", "QUERIES"), "named"),
    **dict.fromkeys(("BUDGETS", "DATABASE", "FRAMES", "JOBS", "SESSION", "SPIKES", "Engine", "DuckDBEngine",
                     "engine_class", "engines_that", "records"), "engine"),
    **dict.fromkeys(("Checked", "Review", "checked", "money", "report", "review", "totals"), "reporting"),
    **dict.fromkeys(("CreditBugs", "credit_bugs", "split_words"), "credit"),
    **dict.fromkeys(("SHADOW_FIGURES", "shadow_report", "shadow_flips"), "shadow"),
    **dict.fromkeys(("HOOK_FIGURES", "hook_report"), "hooks"),
    **dict.fromkeys(("RULE_WORDS", "STALE_DAYS", "PullRequest",
                     "outcome_figures", "pull_requests"), "outcomes"),
    **dict.fromkeys(("ESTIMATE", "ESTIMATE_WORDS"), "costs"),
    **dict.fromkeys(("weekly", "reject_reasons", "credit_bug_rows", "audit", "spend_by_property", "spend_by_repo",
                     "freezes", "freeze_summary", "producers", "freeze_owners", "lanes_weekly", "unresolved_units",
                     "property_results", "repos", "sources", "rejected_lines", "type_anomalies", "undated",
                     "undated_counts", "undated_outcomes"), "views"),
    **dict.fromkeys(("PERIODS", "Period", "period", "today_or_now", "week_of"), "periods"),
    **dict.fromkeys(("Budget", "parse_budgets", "read_budget_text", "read_budgets"), "budget_file"),
    **dict.fromkeys(("Spend", "Spike", "SpikeRule", "Status", "judge", "weekly_spend"), "budgets"),
    **dict.fromkeys(("Source", "SparkSettings", "choose_source"), "source"),
}

if TYPE_CHECKING:
    from lanelog.queries.budget_file import Budget, parse_budgets, read_budget_text, read_budgets
    from lanelog.queries.budgets import Spend, Spike, SpikeRule, Status, judge, weekly_spend
    from lanelog.queries.costs import ESTIMATE, ESTIMATE_WORDS
    from lanelog.queries.credit import CreditBugs, credit_bugs, split_words
    from lanelog.queries.engine import (
        BUDGETS,
        DATABASE,
        FRAMES,
        JOBS,
        SESSION,
        SPIKES,
        DuckDBEngine,
        Engine,
        engine_class,
        engines_that,
        records,
    )
    from lanelog.queries.figures import (
        CREDIT_COUNTS,
        FIGURES,
        FIRST_DAY,
        LABELS,
        LAST_DAY,
        TABLE,
        WEEKLY,
        Comparison,
        Figure,
        compare_latest,
        day_outside,
        label,
        supported_week,
    )
    from lanelog.queries.filters import Filters
    from lanelog.queries.hooks import HOOK_FIGURES, hook_report
    from lanelog.queries.named import ACCEPT_LABEL, QUERIES, SQL
    from lanelog.queries.outcomes import (
        RULE_WORDS,
        STALE_DAYS,
        PullRequest,
        outcome_figures,
        pull_requests,
    )
    from lanelog.queries.periods import PERIODS, Period, period, today_or_now, week_of
    from lanelog.queries.reporting import Checked, Review, checked, money, report, review, totals
    from lanelog.queries.shadow import SHADOW_FIGURES, shadow_flips, shadow_report
    from lanelog.queries.source import Source, SparkSettings, choose_source
    from lanelog.queries.views import (
        audit,
        credit_bug_rows,
        freeze_owners,
        freeze_summary,
        freezes,
        lanes_weekly,
        producers,
        property_results,
        reject_reasons,
        rejected_lines,
        repos,
        sources,
        spend_by_property,
        spend_by_repo,
        type_anomalies,
        undated,
        undated_counts,
        undated_outcomes,
        unresolved_units,
        weekly,
    )

__getattr__ = lazy_attributes(__name__, _HOMES)

__all__ = [
    "ACCEPT_LABEL", "BUDGETS", "CREDIT_COUNTS", "DATABASE", "ESTIMATE", "ESTIMATE_WORDS", "FIGURES", "FIRST_DAY",
    "FRAMES", "HOOK_FIGURES", "JOBS", "LABELS", "LAST_DAY", "PERIODS", "QUERIES", "RULE_WORDS", "SESSION",
    "SHADOW_FIGURES", "SPIKES", "SQL", "STALE_DAYS", "TABLE", "WEEKLY", "Budget", "Checked", "Comparison", "CreditBugs",
    "DuckDBEngine", "Engine", "Figure", "Filters", "Period", "PullRequest", "Review", "Source", "SparkSettings",
    "Spend", "Spike", "SpikeRule", "Status", "audit", "checked", "choose_source", "compare_latest", "credit_bug_rows",
    "credit_bugs", "day_outside", "engine_class", "engines_that", "freeze_owners", "freeze_summary", "freezes",
    "hook_report", "judge", "label", "lanes_weekly", "money", "outcome_figures", "parse_budgets", "period",
    "producers", "property_results", "pull_requests", "read_budget_text", "read_budgets", "records", "reject_reasons",
    "rejected_lines", "report", "repos", "review", "shadow_flips", "shadow_report", "sources", "spend_by_property",
    "spend_by_repo", "split_words", "supported_week", "today_or_now", "totals", "type_anomalies", "undated",
    "undated_counts", "undated_outcomes", "unresolved_units", "week_of", "weekly", "weekly_spend",
]
