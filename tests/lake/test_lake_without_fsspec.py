"""A lake in a folder is read with the db extra alone, which holds no fsspec."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

# The child makes `import fsspec` fail, as in a venv of the db extra, then reads the lake.
WITHOUT_FSSPEC = """
import json, sys
sys.modules["fsspec"] = None
from lanelog.store import open_lake
con = open_lake(sys.argv[1])
print(json.dumps(con.execute("SELECT count(*) FROM attempts").fetchall()[0][0]))
"""


def test_a_folder_lake_opens_without_fsspec(generated: tuple[Path, Path]) -> None:
    db, lake = generated
    done = subprocess.run([sys.executable, "-P", "-c", WITHOUT_FSSPEC, str(lake)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) > 0
