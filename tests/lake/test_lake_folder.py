"""A lake folder is not trusted: planted links, a root that is no folder, glob characters, stray weeks."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from lanelog.cli import cli
from tests.lake.conftest import make_db


def run(*args: str | Path) -> Result:
    return CliRunner().invoke(cli, [str(arg) for arg in args])


def report_json(*args: str | Path) -> str:
    result = run("report", *args, "--format", "json")
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture(scope="module")
def small_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_db(tmp_path_factory.mktemp("small"), seed=21, lines=150, weeks=3)


def exported(db: Path, lake: Path) -> Path:
    result = run("export", "--db", db, "--lake", lake, "--quiet")
    assert result.exit_code == 0, result.output
    return lake


def victim(tmp_path: Path) -> Path:
    """A folder outside the lake whose files nothing may touch."""
    folder = tmp_path / "precious"
    folder.mkdir()
    (folder / "notes.txt").write_text("keep me")
    (folder / ".draft.tmp").write_text("keep me too")
    return folder


def test_a_link_planted_as_a_week_folder_never_makes_export_delete_its_target(small_db: Path,
                                                                             tmp_path: Path) -> None:
    lake = exported(small_db, tmp_path / "lake")
    target = victim(tmp_path)
    week = min((lake / "attempts").iterdir())
    stray = lake / "attempts" / "week=2001-01-01"
    stray.symlink_to(target, target_is_directory=True)
    # A week the database has, replaced by a link: export writes a real folder again.
    shutil.rmtree(week)
    week.symlink_to(target, target_is_directory=True)
    for _ in range(2):  # and every later run still works
        result = run("export", "--db", small_db, "--lake", lake, "--format", "json", "--quiet")
        assert result.exit_code == 0, result.output
    assert sorted(os.listdir(target)) == [".draft.tmp", "notes.txt"]
    assert (target / "notes.txt").read_text() == "keep me"
    assert not stray.exists() and not stray.is_symlink()
    assert week.is_dir() and not week.is_symlink() and (week / "data.parquet").is_file()
    assert report_json("--lake", lake) == report_json("--db", small_db)


def test_a_lake_root_that_is_not_a_folder_is_refused_with_exit_2(small_db: Path, tmp_path: Path) -> None:
    regular = tmp_path / "lake-file"
    regular.write_text("not a lake")
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    for root, why in ((regular, "it is not a folder"), (loop, "Too many levels of symbolic links")):
        for args in (("export", "--db", small_db, "--lake", root), ("report", "--lake", root),
                     ("check", "--lake", root)):
            result = run(*args)
            assert result.exit_code == 2, (args, result.output)
            assert result.stderr == f"Error: cannot use {root} as a lake: {why}\n"
            assert result.exception is None or isinstance(result.exception, SystemExit)
    assert regular.read_text() == "not a lake"


@pytest.mark.parametrize("name", ["lake*", "lake[1]", "lake{a,b}", "lake?"])
def test_glob_characters_in_the_lake_path_are_never_read_as_patterns(small_db: Path, tmp_path: Path,
                                                                    name: str) -> None:
    other_db = make_db(tmp_path, seed=22, lines=120, weeks=3)
    lake = exported(small_db, tmp_path / name)
    # Siblings each pattern would match, holding other attempts.
    for sibling in ("lake-other", "lake1", "lakea", "lakeX"):
        exported(other_db, tmp_path / sibling)
    assert report_json("--lake", lake) == report_json("--db", small_db)
    assert run("check", "--lake", lake, "--format", "json").stdout == \
        run("check", "--db", small_db, "--format", "json").stdout


def test_readers_take_the_weeks_the_state_lists_not_every_folder(small_db: Path, tmp_path: Path) -> None:
    lake = exported(small_db, tmp_path / "lake")
    expected = report_json("--lake", lake)
    weeks = sorted((lake / "attempts").iterdir())
    # A stray folder with a real data file in it, and a copy of a listed week under another name.
    shutil.copytree(weeks[0], lake / "attempts" / "week=2001-01-01")
    shutil.copytree(weeks[1], lake / "attempts" / "week=copy")
    assert report_json("--lake", lake) == expected
    state = json.loads((lake / "_lanelog" / "lake.json").read_text())
    assert "2001-01-01" not in state["attempts"]


def test_a_state_file_naming_a_path_outside_the_lake_is_refused(small_db: Path, tmp_path: Path) -> None:
    lake = exported(small_db, tmp_path / "lake")
    state_file = lake / "_lanelog" / "lake.json"
    state = json.loads(state_file.read_text())
    state["attempts"]["../../elsewhere"] = {"attempts": 1, "digest": "0"}
    state_file.write_text(json.dumps(state))
    result = run("report", "--lake", lake)
    assert result.exit_code == 2
    assert result.stderr == (f"Error: {lake}/_lanelog/lake.json: not a lanelog lake state file "
                             "(week '../../elsewhere' is not a Monday or __HIVE_DEFAULT_PARTITION__)\n")


def test_a_state_file_too_large_to_be_one_is_refused(tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    (lake / "_lanelog").mkdir(parents=True)
    (lake / "_lanelog" / "lake.json").write_bytes(b" " * (16 * 1024 * 1024) + b"{}")
    result = run("report", "--lake", lake)
    assert result.exit_code == 2
    assert result.stderr == f"Error: {lake}/_lanelog/lake.json: not a lanelog lake state file (too large)\n"
