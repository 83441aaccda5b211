"""The Spark SQL of the named queries in queries/*.sql, transpiled from DuckDB's dialect.

One definition per figure: sqlglot reads the DuckDB SQL, the scope (the ``in_scope``
table macro of scope.sql, which Spark lacks) is inlined as a subquery, GROUPING SETS
become one select per set (see ``_grouping_sets``), and the few list functions sqlglot
leaves in DuckDB's spelling are renamed.  Values stay bound: ``$since`` becomes Spark's
``:since`` marker.  sqlglot is imported only when a Spark query is first made.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from lanelog.errors import QueryError
from lanelog.store.sqlfile import Query

# The named queries `report` and `check` run (every format).
SPARK_QUERIES = ("figures", "rejected_line_count", "credit_bug_rows", "audit", "reject_reasons",
                 "money_by_property", "money_currencies", "shadow_figures", "shadow_errors")
# DuckDB list functions that sqlglot passes through by name, and Spark's word for each.
_RENAMED = {"LIST_INTERSECT": "ARRAY_INTERSECT"}


def _queries() -> Mapping[str, Query]:
    from lanelog.queries import QUERIES

    return QUERIES


def _constants() -> Mapping[str, Any]:
    from lanelog.queries import CONSTANTS

    return CONSTANTS


@cache
def spark_sql(name: str) -> str:
    """The Spark SQL of a named query in queries/*.sql (its scope inlined, its values bound as :name)."""
    import sqlglot
    from sqlglot import exp

    if name not in SPARK_QUERIES:
        raise QueryError(f"query {name!r} has no Spark form; known: {', '.join(SPARK_QUERIES)}")
    tree = sqlglot.parse_one(_queries()[name].sql, read="duckdb")

    def inline_scope(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Table) and isinstance(node.this, exp.Anonymous) \
                and node.this.name.lower() == "in_scope":
            alias = exp.TableAlias(this=exp.to_identifier(node.alias or "in_scope"))
            return exp.Subquery(this=_scope_select(*node.this.expressions), alias=alias)
        return node

    def constants(node: exp.Expression) -> exp.Expression:
        # Spark binds no list; a constant of the project's own (never a caller's value) is
        # written into the query as a literal instead.
        if isinstance(node, exp.Placeholder) and node.name in _constants():
            value = _constants()[node.name]
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

    tree = tree.transform(inline_scope).transform(constants).transform(_grouping_sets).transform(spark_words)
    text: str = tree.sql(dialect="spark")
    return text


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


def _scope_select(*arguments: Any) -> Any:
    """scope.sql's in_scope body with the macro's parameters replaced by the call's arguments."""
    import sqlglot
    from sqlglot import exp

    macro = sqlglot.parse_one(_queries()["scope"].sql, read="duckdb")
    names = [identifier.name for identifier in macro.this.expressions]
    if len(names) != len(arguments):
        raise QueryError(f"in_scope takes {names}, called with {len(arguments)} values")
    given = dict(zip(names, arguments))
    body = macro.expression.copy()

    def substitute(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Column) and not node.table and node.name in given:
            value: exp.Expression = given[node.name].copy()
            return value
        return node

    return body.transform(substitute)
