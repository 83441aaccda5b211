"""The Spark SQL of the named queries in queries/*.sql, transpiled from DuckDB's dialect.

One definition per figure: sqlglot reads the DuckDB SQL, the scope (the ``in_scope``
table macro of scope.sql, which Spark lacks) is inlined as a subquery, and the few list
functions sqlglot leaves in DuckDB's spelling are renamed.  GROUPING SETS stay Spark's own,
one aggregate, except in the per-set form (see ``_grouping_sets``), which a query with an
empty grouping set is asked in again when the aggregate found no rows.  Values stay bound:
``$since`` becomes Spark's ``:since`` marker.  sqlglot is imported only when a Spark query
is first made.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from lanelog.errors import QueryError
from lanelog.queries.named import CONSTANTS, QUERIES

# The named queries `report` and `check` run (every format).
SPARK_QUERIES = ("figures", "rejected_line_count", "credit_bug_rows", "audit", "reject_reasons",
                 "money_by_property", "money_currencies", "shadow_figures", "shadow_errors", "pull_request_rows",
                 "outcome_weeks", "outcome_groups", "hook_figures", "hook_sessions")
# scope.sql's scalar macros (DuckDB's temporary macros), by the name a query calls: inlined for Spark.
SCALAR_MACROS = {"is_person": "person", "week_in_scope": "week_scope", "week_of": "week_of"}
# The table macros of queries/*.sql (DuckDB's temporary macros), by the name a query reads, in the order they
# are inlined for Spark (a macro's body may read the ones after it).
TABLE_MACROS = {"agent_pull_requests": "agent_pull_requests", "in_scope": "scope", "hook_scope": "hook_scope"}
# DuckDB list functions that sqlglot passes through by name, and Spark's word for each.
_RENAMED = {"LIST_INTERSECT": "ARRAY_INTERSECT"}
# The column of the numbered form that holds each row's place in the query's ORDER BY.
ORDER_COLUMN = "lanelog_order"


@cache
def spark_sql(name: str, *, per_set: bool = False, numbered: bool = False, attempts: str = "attempts") -> str:
    """The Spark SQL of a named query in queries/*.sql (its scope inlined, its values bound as :name).

    per_set: GROUPING SETS as one select per set (see ``_grouping_sets``), else Spark's own.
    numbered: the ORDER BY as a column instead, ORDER_COLUMN (each row's place), so that the
    rows keep their order when they travel in one job with other queries' rows.
    attempts: the table read as the attempts (a cached projection of the lake's).
    """
    from sqlglot import exp

    tree = _tree(name)

    def constants(node: exp.Expression) -> exp.Expression:
        # Spark binds no list; a constant of the project's own (never a caller's value) is
        # written into the query as a literal instead.
        if isinstance(node, exp.Placeholder) and node.name in CONSTANTS:
            value = CONSTANTS[node.name]
            if isinstance(value, str):
                return exp.Literal.string(value)
            return exp.Array(expressions=[exp.Literal.string(item) for item in value])
        return node

    def spark_words(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Length):
            return exp.ArraySize(this=node.this)  # len() in the queries is only ever a list's
        if isinstance(node, exp.ArrayOverlaps):
            return exp.Anonymous(this="ARRAYS_OVERLAP", expressions=[node.this, node.expression])
        if isinstance(node, exp.Anonymous) and node.name.upper() in _RENAMED:
            return exp.Anonymous(this=_RENAMED[node.name.upper()], expressions=node.expressions)
        return node

    def reading(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Table) and node.name == "attempts" and attempts != "attempts":
            return exp.Table(this=exp.to_identifier(attempts), alias=exp.TableAlias(this=exp.to_identifier(
                node.alias or "attempts")))
        return node

    for table in TABLE_MACROS:
        tree = tree.transform(_inline_table(table))
    # Twice: a macro's argument may call one (week_in_scope(week_of(t), ...)), and a transform leaves what it made.
    tree = _scalars_joined(tree.transform(_scalar_inlined).transform(_scalar_inlined).transform(constants)
                           .transform(spark_words)
                           .transform(reading))
    if per_set:
        tree = tree.transform(_grouping_sets)
    if numbered:
        tree = _numbered(tree)
    text: str = tree.sql(dialect="spark")
    return text


def _scalar_inlined(node: Any) -> Any:
    """Spark has no macros: a call of one of scope.sql's scalar macros (is_person) becomes its body."""
    from sqlglot import exp

    if isinstance(node, exp.Anonymous) and node.name.lower() in SCALAR_MACROS:
        return _macro_body(SCALAR_MACROS[node.name.lower()], node.expressions)
    return node


def _tree(name: str) -> Any:
    import sqlglot

    if name not in SPARK_QUERIES:
        raise QueryError(f"query {name!r} has no Spark form; known: {', '.join(SPARK_QUERIES)}")
    return sqlglot.parse_one(QUERIES[name].sql, read="duckdb")


@cache
def has_empty_set(name: str) -> bool:
    """Whether the query groups by an empty grouping set: over no rows, only its per-set form has that row.

    Standard SQL (and DuckDB) gives the empty set's row (the total row) even over no rows;
    Spark's GROUPING SETS give none.  When Spark's aggregate gives no rows at all, the
    per-set form gives what DuckDB gives, and otherwise both forms are the same rows.
    """
    from sqlglot import exp

    return any(isinstance(item, exp.Tuple) and not item.expressions
               for sets in _tree(name).find_all(exp.GroupingSets) for item in sets.expressions)


def columns_read(names: list[str], columns: list[str]) -> list[str]:
    """Which of the attempts' columns the named queries read (all, if one reads ``*`` unqualified)."""
    import sqlglot
    from sqlglot import exp

    read: set[str] = set()
    for name in names:
        tree = sqlglot.parse_one(spark_sql(name), read="spark")
        if any(isinstance(star.parent, exp.Select) for star in tree.find_all(exp.Star)):
            return list(columns)
        # A column named by the outcomes table (outcomes.head) is none of the attempts'.
        read.update(column.name for column in tree.find_all(exp.Column) if column.table != "outcomes")
    return [column for column in columns if column in read]


def _scalars_joined(tree: Any) -> Any:
    """The outermost select's scalar subqueries of one row by construction as a joined relation's columns.

    Spark runs a scalar subquery as a job of its own; a select of a global aggregate (no
    GROUP BY, no HAVING), directly or through a WITH query, is exactly one row, so a cross
    join of it gives each row the same value.  The hint makes the join a cartesian product
    in the query's own job, not a broadcast (which is a job too).
    """
    from sqlglot import exp

    if not isinstance(tree, exp.Select):
        return tree
    tree = tree.copy()
    ctes = {cte.alias_or_name: cte.this for cte in (tree.args["with_"].expressions if tree.args.get("with_") else [])}
    scalars = [node for item in tree.expressions for node in item.find_all(exp.Subquery)
               if isinstance(node.this, exp.Select) and _one_row(node.this, ctes)]
    for number, node in enumerate(scalars):
        name = f"lanelog_scalar_{number}"
        select = node.this
        select.set("expressions", [exp.alias_(select.expressions[0].unalias(), name)])
        node.replace(exp.column(name, table=name))
        tree = tree.join(exp.Subquery(this=select, alias=exp.TableAlias(this=exp.to_identifier(name))),
                         join_type="CROSS", copy=False)
    if scalars:
        hinted = [exp.to_table(f"lanelog_scalar_{number}") for number in range(len(scalars))]
        tree.set("hint", exp.Hint(expressions=[exp.JoinHint(this="SHUFFLE_REPLICATE_NL", expressions=hinted)]))
    return tree


def _one_row(select: Any, ctes: Mapping[str, Any]) -> bool:
    """Whether a select of one column is one row: a global aggregate, or a plain select of a WITH query that is."""
    from sqlglot import exp

    if len(select.expressions) != 1 or any(select.args.get(key) for key in ("group", "having", "limit", "joins")):
        return False
    if any(function.find_ancestor(exp.Select) is select and not function.find_ancestor(exp.Window)
           for function in select.expressions[0].find_all(exp.AggFunc)):
        return True
    source = select.args.get("from_")
    table = source.this if source is not None else None
    body = ctes.get(table.name) if isinstance(table, exp.Table) and not table.db else None
    return select.args.get("where") is None and isinstance(body, exp.Select) and _one_row(body, {})


def _numbered(tree: Any) -> Any:
    """The query with its ORDER BY turned into ORDER_COLUMN, each row's place (0 for every row without one)."""
    from sqlglot import exp

    order = tree.args.get("order")
    ctes = tree.args.get("with_")
    inner = tree.copy()
    inner.set("order", None)
    inner.set("with_", None)
    if order is not None:
        # The outer select sees the inner one's columns by name alone: `per_pr.pr_repository`
        # in the ORDER BY is `pr_repository` there (Spark: UNRESOLVED_COLUMN).
        order = order.copy()
        for column in order.find_all(exp.Column):
            column.set("table", None)
    place: exp.Expression = exp.Literal.number(0) if order is None else \
        exp.Window(this=exp.RowNumber(), order=order)
    outer = exp.select(exp.Star(), exp.alias_(place, ORDER_COLUMN)).from_(
        exp.Subquery(this=inner, alias=exp.TableAlias(this=exp.to_identifier("numbered"))))
    if ctes is not None:
        outer.set("with_", ctes.copy())
    return outer


def _grouping_sets(node: Any) -> Any:
    """GROUPING SETS over columns as a UNION ALL of one select per set.

    Over no rows at all, standard SQL (and DuckDB) still gives the row of the empty
    grouping set (the total row); Spark gives none.  Written as one select per set,
    Spark gives it too.  In each select, grouping(column) is 1 for a column outside
    the set, and such a column, outside an aggregate, is NULL.
    """
    from sqlglot import exp

    group = node.args.get("group") if isinstance(node, exp.Select) else None
    sets = group.expressions if group is not None else []
    if len(sets) != 1 or not isinstance(sets[0], exp.GroupingSets):
        return node
    chosen: list[list[str]] = []
    for item in sets[0].expressions:
        columns = item.expressions if isinstance(item, exp.Tuple) else [item]
        columns = [column.unnest() if isinstance(column, exp.Paren) else column for column in columns]
        if not all(isinstance(column, exp.Column) for column in columns):
            raise QueryError("only GROUPING SETS over columns have a Spark form")
        chosen.append([column.name for column in columns])
    keys = {name for names in chosen for name in names}

    def projection(select: Any, names: list[str]) -> Any:
        def replace(inner: Any) -> Any:
            if isinstance(inner, exp.Grouping):
                return exp.Literal.number(0 if inner.expressions[0].name in names else 1)
            if isinstance(inner, exp.Column) and inner.name in keys and inner.name not in names \
                    and not inner.find_ancestor(exp.AggFunc):
                return exp.Null()
            return inner
        # A key left out of the set keeps its name: the union's columns are the first select's.
        select.set("expressions", [exp.alias_(exp.Null(), item.name) if isinstance(item, exp.Column)
                                   and item.name in keys and item.name not in names else item.transform(replace)
                                   for item in select.expressions])
        select.set("group", exp.Group(expressions=[exp.column(name) for name in names]) if names else None)
        return select

    selects = [projection(node.copy(), names) for names in chosen]
    union = selects[0]
    for select in selects[1:]:
        union = exp.union(union, select, distinct=False)
    return union


def _inline_table(name: str) -> Any:
    """A transform that puts the body of the table macro `name` where a query reads it, as a subquery."""
    from sqlglot import exp

    def inline(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Table) and isinstance(node.this, exp.Anonymous) and node.this.name.lower() == name:
            alias = exp.TableAlias(this=exp.to_identifier(node.alias or name))
            return exp.Subquery(this=_macro_body(TABLE_MACROS[name], node.this.expressions), alias=alias)
        return node

    return inline


def _macro_body(block: str, arguments: Any) -> Any:
    """The body of the macro a block installs (scope.sql's, outcomes.sql's), its parameters replaced by the
    call's arguments."""
    import sqlglot
    from sqlglot import exp

    made = sqlglot.parse_one(QUERIES[block].sql, read="duckdb")
    names = [identifier.name for identifier in made.this.expressions]
    if len(names) != len(arguments):
        raise QueryError(f"{made.this.name} takes {names}, called with {len(arguments)} values")
    given = dict(zip(names, arguments))
    body = made.expression.copy()

    def substitute(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Column) and not node.table and node.name in given:
            value: exp.Expression = given[node.name].copy()
            return value
        return node

    return body.transform(substitute)
