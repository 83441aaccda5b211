"""The SQL loader: names, docstrings and parameters are checked when the files load."""

from pathlib import Path

import pytest

from lanelog import queries
from lanelog.errors import QueryError
from lanelog.store.sqlfile import load_folder as load
from lanelog.store.sqlfile import parse

GOOD = """-- A file comment.

-- name: by_repo
-- Attempts of one repo.
-- params: repo
SELECT count(*) FROM attempts WHERE repo = $repo AND probe <> '$not_a_param?' -- $nor?
"""


def test_a_block_gives_name_docstring_params_and_sql() -> None:
    (query,) = parse(GOOD, "good.sql")
    assert (query.name, query.doc, query.params) == ("by_repo", "Attempts of one repo.", ("repo",))
    assert query.sql.startswith("SELECT count(*)")
    assert query.origin == "good.sql:3"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("-- name: q\n-- Doc.\nSELECT 1", "has no '-- params:' line"),
        ("-- name: q\n-- params:\nSELECT 1", "has no docstring"),
        ("-- name: q\n-- Doc.\n-- params:\n", "has no SQL"),
        ("-- name: q\n-- Doc.\n-- params:\nSELECT $repo", "declares [] but its SQL uses ['repo']"),
        ("-- name: q\n-- Doc.\n-- params: repo, since\nSELECT $repo", "declares ['repo', 'since']"),
        ("-- name: q\n-- Doc.\n-- params: repo, repo\nSELECT $repo", "declares ['repo', 'repo']"),
        ("-- name: q\n-- Doc.\n-- params:\nSELECT ?", "use named $parameters, not '?'"),
        ("-- name: Weekly\n-- Doc.\n-- params:\nSELECT 1", "is not a lower-case identifier"),
        ("SELECT 1\n-- name: q\n-- Doc.\n-- params:\nSELECT 1", "good.sql:1: SQL before the first"),
    ],
)
def test_a_malformed_block_is_refused_naming_file_and_line(text: str, message: str) -> None:
    with pytest.raises(QueryError, match="good.sql:1") as caught:
        parse(text, "good.sql")
    assert message in caught.value.message


def test_a_name_defined_twice_is_refused(tmp_path: Path) -> None:
    (tmp_path / "a.sql").write_text("-- name: q\n-- Doc.\n-- params:\nSELECT 1\n")
    (tmp_path / "b.sql").write_text("\n-- name: q\n-- Doc.\n-- params:\nSELECT 2\n")
    with pytest.raises(QueryError, match=r"b.sql:2: query 'q' is already defined at a.sql:1"):
        load(tmp_path)


def test_bind_takes_exactly_the_declared_parameters() -> None:
    (query,) = parse(GOOD, "good.sql")
    assert query.bind({"repo": "svc"}) == {"repo": "svc"}
    with pytest.raises(QueryError, match=r"missing \['repo'\], unknown \['since'\]"):
        query.bind({"since": None})


def test_every_shipped_query_loads_with_a_docstring() -> None:
    assert {"scope", "figures", "credit_bug_rows", "audit", "lanes_weekly"} <= set(queries.QUERIES)
    assert all(query.doc for query in queries.QUERIES.values())


def test_every_block_is_an_attribute_of_sql_and_every_attribute_a_block() -> None:
    """Queries are asked for by attribute (queries.SQL.figures), never by a string."""
    assert {name: getattr(queries.SQL, name) for name in queries.QUERIES} == queries.QUERIES


def test_a_block_without_an_attribute_or_an_attribute_without_a_block_fails_the_import() -> None:
    from lanelog.queries.named import Named

    renamed = {("figures_renamed" if name == "figures" else name): query for name, query in queries.QUERIES.items()}
    with pytest.raises(QueryError) as raised:
        Named(renamed)
    assert str(raised.value) == ("queries/*.sql and lanelog.queries.named disagree: blocks without an attribute "
                                 "['figures_renamed'], attributes without a block ['figures']")
