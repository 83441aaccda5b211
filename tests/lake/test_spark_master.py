"""Spark that cannot run says why in one line, exit 2: a master that is not there, YARN without its
configuration, a cluster that gives the job no executor.  Each runs `lanelog` in its own process
(its own JVM, or none), with a bounded wall time, on loopback only."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

# Generous bounds for a loaded 2-core machine; the commands end well inside them.
COMMAND_TIMEOUT = 300


def lanelog(*args: str | Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", **(env or {})}
    return subprocess.run([sys.executable, "-m", "lanelog", *map(str, args)], capture_output=True, text=True,
                          env=environment, timeout=COMMAND_TIMEOUT, check=False)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_an_unreachable_master_ends_at_once_with_its_address(generated: tuple[Path, Path]) -> None:
    _, lake = generated
    port = free_port()  # nothing listens there
    result = lanelog("report", "--lake", lake, "--engine", "spark", "--spark-master", f"spark://127.0.0.1:{port}")
    assert result.returncode == 2
    assert result.stderr == (f"Error: cannot reach the Spark master at spark://127.0.0.1:{port} "
                             f"(127.0.0.1:{port}: Connection refused)\n")
    assert result.stdout == ""


def test_yarn_without_its_configuration_says_so(generated: tuple[Path, Path]) -> None:
    _, lake = generated
    env = {key: value for key, value in os.environ.items() if key not in ("HADOOP_CONF_DIR", "YARN_CONF_DIR")}
    result = subprocess.run([sys.executable, "-m", "lanelog", "check", "--lake", str(lake), "--engine", "spark",
                             "--spark-master", "yarn"], capture_output=True, text=True, env=env,
                            timeout=COMMAND_TIMEOUT, check=False)
    assert result.returncode == 2
    assert result.stderr == ("Error: --spark-master yarn needs HADOOP_CONF_DIR or YARN_CONF_DIR set to the "
                             "folder holding the cluster's yarn-site.xml and core-site.xml\n")


@pytest.fixture
def master_without_workers(tmp_path: Path) -> Iterator[str]:
    """A real standalone Spark master on 127.0.0.1 with no worker: it can give no executor."""
    from lanelog.queries.spark import java_environment

    java_environment()
    import pyspark

    jars = Path(pyspark.__file__).parent / "jars"
    port = free_port()
    java = Path(os.environ["JAVA_HOME"]) / "bin" / "java"
    log = (tmp_path / "master.log").open("wb")
    master = subprocess.Popen([str(java), "-Xmx256m", "-cp", f"{jars}/*", "org.apache.spark.deploy.master.Master",
                               "--host", "127.0.0.1", "--port", str(port), "--webui-port", str(free_port())],
                              stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "SPARK_LOCAL_IP": "127.0.0.1"})
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert master.poll() is None, (tmp_path / "master.log").read_text()
                assert time.monotonic() < deadline, "the Spark master did not start in 120 s"
                time.sleep(0.5)
        yield f"spark://127.0.0.1:{port}"
    finally:
        master.terminate()
        try:
            master.wait(timeout=30)
        except subprocess.TimeoutExpired:
            master.kill()
            master.wait(timeout=30)
        log.close()


def test_a_cluster_that_gives_no_executor_ends_after_the_wait_with_one_quiet_line(
        generated: tuple[Path, Path], master_without_workers: str) -> None:
    _, lake = generated
    result = lanelog("report", "--lake", lake, "--engine", "spark", "--spark-master", master_without_workers,
                     "--spark-conf", "spark.lanelog.executorWait=3",
                     "--spark-conf", "spark.driver.host=127.0.0.1",
                     "--spark-conf", "spark.driver.bindAddress=127.0.0.1",
                     "--spark-conf", "spark.ui.enabled=false")
    assert result.returncode == 2
    # One line on stderr: no progress bar, no JVM log, no traceback.
    assert result.stderr == (f"Error: no Spark executor joined within 3 s on {master_without_workers}: "
                             "no worker offers what the job asks (spark.executor.memory=default, "
                             "spark.executor.cores=default), or none is running; "
                             "set spark.lanelog.executorWait=SECONDS to wait longer\n")
    assert result.stdout == ""
