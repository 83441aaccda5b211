"""Every named block of ``queries/*.sql`` as an attribute of ``SQL``: no figure is asked for by a string.

The attributes are declared here, one per block, and checked against the files when
the package is imported: a block without an attribute, or an attribute without a
block, fails the import (and CI), so a renamed query is found at once, not on a page.
Each block's scope values ($since, $until, $repo) and the project's constants are bound
by ``scoped``; the engines run them (lanelog.queries.engine).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lanelog.errors import QueryError
from lanelog.queries.filters import Filters
from lanelog.reasons import SETUP_REASONS
from lanelog.store import Query, load_folder

QUERIES: dict[str, Query] = load_folder(Path(__file__).parent)
# Values some queries bind that are the project's own definitions, not a caller's choice.
# The label a person sets on a pull request to say its live quarantine may go at the merge.
ACCEPT_LABEL = "lanelog:accept-quarantine"
CONSTANTS: dict[str, Any] = {"setup_reasons": sorted(SETUP_REASONS), "accept_label": ACCEPT_LABEL}


class Named:
    """The blocks of queries/*.sql by name (their docstrings are in the files)."""

    # scope.sql: the macros other blocks read
    scope: Query
    hook_scope: Query
    week_scope: Query
    week_of: Query
    undated_why: Query
    person: Query
    # weekly.sql
    figures: Query
    reject_reasons: Query
    rejected_line_count: Query
    producers: Query
    # triage.sql
    credit_bug_rows: Query
    audit: Query
    # spend.sql
    spend_by_property: Query
    spend_by_repo: Query
    repo_names: Query
    # money.sql
    money_by_property: Query
    money_currencies: Query
    # budgets.sql
    budget_spend: Query
    property_names: Query
    # lanes.sql
    lanes_weekly: Query
    unresolved_units: Query
    property_results: Query
    # freezes.sql
    freezes: Query
    freeze_summary: Query
    freeze_owners: Query
    # health.sql
    sources: Query
    rejected_lines: Query
    type_anomalies: Query
    undated: Query
    undated_counts: Query
    undated_outcomes: Query
    # outcomes.sql
    agent_pull_requests: Query
    pull_request_rows: Query
    outcome_groups: Query
    outcome_weeks: Query
    # shadow.sql
    shadow_figures: Query
    shadow_errors: Query
    shadow_flips: Query
    # hooks.sql
    hook_figures: Query
    hook_sessions: Query

    def __init__(self, queries: dict[str, Query]) -> None:
        declared = set(type(self).__annotations__)
        if declared != set(queries):
            raise QueryError(f"queries/*.sql and lanelog.queries.named disagree: blocks without an attribute "
                             f"{sorted(set(queries) - declared)}, attributes without a block "
                             f"{sorted(declared - set(queries))}")
        for name, query in queries.items():
            setattr(self, name, query)


SQL = Named(QUERIES)


def scoped(query: Query, filters: Filters | None, values: dict[str, Any]) -> dict[str, Any]:
    """Every value the query binds: the filter's it takes (a query of all weeks takes the repo alone), the
    constants it reads, and `values`."""
    scope = {key: value for key, value in (filters or Filters()).bound().items() if key in query.params}
    constants = {key: value for key, value in CONSTANTS.items() if key in query.params}
    return query.bind({**scope, **constants, **values})
