"""The tiers' table says how tests share workers: each file is one unit of work, every Spark file one together.

pytest-xdist's loadgroup once lost the groups on pytest 9.2 (it wrote them into an id pytest no
longer reads), and a file's tests ran on both workers, each making its module fixtures: so the
run itself is checked, not only the table.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.tiers import work_unit

ROOT = Path(__file__).parents[1]


def test_a_tests_unit_of_work_is_its_file_and_every_spark_file_shares_one() -> None:
    assert work_unit("tests/router/test_route_cli.py::test_usage[a::b]") == "tests/router/test_route_cli.py"
    assert work_unit("tests/alerts/test_post.py::test_x@tests/alerts/test_post.py") == "tests/alerts/test_post.py"
    assert work_unit("tests/lake/test_spark.py::test_a") == work_unit("tests/lake/test_spark_master.py::test_b") \
        == "spark"


def test_each_files_tests_run_on_one_worker() -> None:
    files = ["tests/test_files.py", "tests/alerts/test_post.py"]
    done = subprocess.run([sys.executable, "-m", "pytest", "-n", "2", "-v", "-p", "no:cacheprovider", *files],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:]
    workers: dict[str, set[str]] = {}
    for worker, path in re.findall(r"^\[(gw\d+)\] \[ *\d+%\] PASSED (\S+?)::", done.stdout, re.MULTILINE):
        workers.setdefault(path, set()).add(worker)
    assert sorted(workers) == sorted(files)
    assert all(len(found) == 1 for found in workers.values()), workers
