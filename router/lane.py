"""The property lane: run the user's runner once per selected property.

The seed: "Require a result token of hold or fail. Anything else, including
prose, is unresolved."  The runner is any command (a local test, a model
call); it runs without a shell, from the repository root, and gets the
property, its statement, the fixture hash and the patch in its environment.
A runner may also say what its call used (usage.py): in a JSON last line
beside the token, or in the file ``$LANELOG_USAGE_FILE``.
"""

from __future__ import annotations

import json
import os
import selectors
import shlex
import signal
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lanelog.errors import RunnerCommandError, RunnerUnavailable
from lanelog.router.result_line import MAX_MEMBER, Oversized, ResultLine
from lanelog.router.usage import UsageInvalid, check_usage, priced, read_usage_file

TOKEN_SOURCES = ("stdout", "exit")
DEFAULT_TIMEOUT = 600.0
# The last line is the token; a runner's chatter before it need not be held.
MAX_TAIL = 64 * 1024
REAP_TIMEOUT = 5.0
# The bundled model runner (router/model.py): looked for beside the interpreter running
# lanelog before PATH, so `/venv/bin/lanelog route --run lanelog-model` finds the venv's.
BUNDLED_RUNNER = "lanelog-model"
# A JSON last line ({"token": ..., "usage": {...}}) up to this long is read from the tail;
# a longer one as it streams (result_line.py), its usage kept up to MAX_MEMBER bytes.
MAX_RESULT_LINE = 16 * 1024



@dataclass(frozen=True)
class LaneRunner:
    """How to run one property: the argv template and how to read its token."""

    argv: tuple[str, ...]
    token_from: str = "stdout"
    timeout: float = DEFAULT_TIMEOUT

    @classmethod
    def from_command(cls, command: str, token_from: str = "stdout",
                     timeout: float = DEFAULT_TIMEOUT) -> LaneRunner:
        """Split ``command`` like a shell would, without running one."""
        try:
            argv = tuple(shlex.split(command))
        except ValueError as exc:
            raise RunnerCommandError(f"cannot split the command {command!r}: {exc}") from None
        if not argv:
            raise RunnerCommandError("the command is empty")
        if token_from not in TOKEN_SOURCES:
            raise RunnerCommandError(f"token source must be one of {TOKEN_SOURCES}")
        if not timeout > 0:
            raise RunnerCommandError("the timeout must be more than 0 seconds")
        return cls(argv, token_from, float(timeout))

    def argv_for(self, prop: str) -> list[str]:
        """The argv with ``{property}`` replaced inside each argument, never re-split."""
        return [arg.replace("{property}", prop) for arg in self.argv]


@dataclass(frozen=True)
class LaneContext:
    """What every run of one attempt shares."""

    cwd: Path
    says: Mapping[str, str]
    fixture_hash: str
    patch_file: Path
    attempt_id: str
    # The policy's price table (model -> policy.Price), for a usage without its cost.
    prices: Mapping[str, Any] = field(default_factory=dict)


def run_lane(runner: LaneRunner, properties: Sequence[str], quarantine: Sequence[str],
             context: LaneContext, notify: Callable[[str], None] = lambda _: None,
             usage: dict[str, dict[str, Any]] | None = None,
             setup_errors: list[str] | None = None) -> dict[str, str]:
    """Run each selected property in order; quarantined ids are never run.

    ``usage``, when given, receives each run's checked usage by property id;
    ``setup_errors`` why a run could not start (its property is unresolved), each once.
    """
    results: dict[str, str] = {}
    for prop in properties:
        if prop in quarantine or prop in results:
            continue
        try:
            token, note, used = run_property_usage(runner, prop, context, notify)
        except RunnerUnavailable as exc:
            if setup_errors is not None and str(exc) not in setup_errors:
                setup_errors.append(str(exc))
                notify(f"setup error: {exc}")
            token, note, used = "unresolved", "setup error", None
        results[prop] = token
        if used is not None and usage is not None:
            usage[prop] = used
        notify(f"{prop}: {token}" + (f" ({note})" if note else ""))
    return results


def run_property_usage(runner: LaneRunner, prop: str, context: LaneContext,
                       notify: Callable[[str], None] = lambda _: None,
                       relay: Callable[[bytes], None] | None = None,
                       ) -> tuple[str, str, dict[str, Any] | None]:
    """One run: the token, why it is unresolved (or ""), and the usage it reported.

    The usage file is a fresh private file next to the patch file, made for
    this run alone and removed after it; what the run reported is checked, and
    a usage that is not well formed is left out with a note, whatever the token.
    RunnerUnavailable when the command cannot be started.
    """
    fd, usage_name = tempfile.mkstemp(prefix="usage-", suffix=".json", dir=context.patch_file.parent)
    os.close(fd)
    usage_file = Path(usage_name)
    try:
        token, note, reported = _run(runner, prop, context, usage_file, relay)
        try:
            if isinstance(reported, Oversized):
                raise UsageInvalid(f"larger than {MAX_MEMBER} bytes of JSON ({reported.size} bytes)")
            if reported is None:
                reported = read_usage_file(usage_file)
            used = priced(check_usage(reported), context.prices) if reported is not None else None
        except UsageInvalid as exc:
            notify(f"{prop}: usage left out: {exc}")
            used = None
    finally:
        usage_file.unlink(missing_ok=True)
    return token, note, used


def _run(runner: LaneRunner, prop: str, context: LaneContext, usage_file: Path,
         relay: Callable[[bytes], None] | None) -> tuple[str, str, Any]:
    env = dict(os.environ)
    env.update(
        LANELOG_PROPERTY=prop,
        LANELOG_PROPERTY_SAYS=context.says.get(prop, ""),
        LANELOG_FIXTURE_HASH=context.fixture_hash,
        LANELOG_PATCH_FILE=str(context.patch_file),
        LANELOG_ATTEMPT_ID=context.attempt_id,
        LANELOG_USAGE_FILE=str(usage_file),
    )
    argv = runner.argv_for(prop)
    program = argv[0]
    if program == BUNDLED_RUNNER:
        argv[0] = bundled_runner() or program
    try:
        # A session of its own, so a timeout ends the runner's children too; pipes of
        # its own (relayed), so nothing it leaves running holds route's stdout or stderr.
        proc = subprocess.Popen(argv, cwd=context.cwd, env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True)
    except OSError as exc:
        where = (f" (not beside {sys.executable} nor on PATH)" if program == BUNDLED_RUNNER
                 else " (not on PATH)" if os.sep not in program else "")
        raise RunnerUnavailable(f"cannot start {program!r}: {exc.strerror or exc}"
                                + (where if isinstance(exc, FileNotFoundError) else "")) from None
    deadline = time.monotonic() + runner.timeout
    scanned = ResultLine()
    try:
        stdout = _read_until(proc, deadline, relay or to_stderr, scanned)
        proc.wait(timeout=max(deadline - time.monotonic(), 0))
    except subprocess.TimeoutExpired:
        _stop(proc)
        return "unresolved", f"timed out after {runner.timeout:g} s", None
    finally:
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.close()
        proc.stderr.close()
    return read_result(runner.token_from, proc.returncode, stdout, scanned.last())


def bundled_runner() -> str | None:
    """The lanelog-model script installed with the lanelog that runs, when there is one.

    Beside sys.executable (a venv's bin, unresolved: a venv's python links out of it),
    else in this interpreter's scripts folder.
    """
    for folder in (Path(sys.executable).parent, Path(sysconfig.get_path("scripts"))):
        candidate = folder / BUNDLED_RUNNER
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return None


def to_stderr(chunk: bytes) -> None:
    """Relay a runner's stderr to route's own, as it comes."""
    stream = sys.stderr
    try:
        stream.flush()
        buffer = getattr(stream, "buffer", None)
        if buffer is not None:
            buffer.write(chunk)
            buffer.flush()
        else:
            stream.write(chunk.decode("utf-8", "replace"))
            stream.flush()
    except OSError:
        pass  # route's stderr is gone: the runner's chatter has nowhere to go, the run goes on


def _read_until(proc: subprocess.Popen[bytes], deadline: float,
                relay: Callable[[bytes], None], scanned: ResultLine) -> bytes:
    """The tail of the run's stdout up to its end, its stderr relayed; TimeoutExpired at the deadline.

    The pipes are read against the deadline rather than to their end: a child
    that leaves the runner's session (setsid) and keeps a pipe open would
    otherwise hold the router for the child's whole life.  The pipes are the
    runner's own, so once route closes them such a child holds nothing of
    route's.  Only the tail of stdout is kept, which holds the last line, the
    only one read, when it is short; ``scanned`` reads a long JSON last line as it comes.
    """
    assert proc.stdout is not None and proc.stderr is not None
    out_fd = proc.stdout.fileno()
    tail = b""
    with selectors.DefaultSelector() as selector:
        selector.register(out_fd, selectors.EVENT_READ)
        selector.register(proc.stderr.fileno(), selectors.EVENT_READ)
        while selector.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                raise subprocess.TimeoutExpired(proc.args, 0)
            ready = selector.select(left)
            if not ready:
                raise subprocess.TimeoutExpired(proc.args, 0)
            for key, _ in ready:
                chunk = os.read(key.fd, 65536)
                if not chunk:
                    selector.unregister(key.fd)
                elif key.fd == out_fd:
                    tail = (tail + chunk)[-MAX_TAIL:]
                    scanned.feed(chunk)
                else:
                    relay(chunk)
    return tail


def read_result(token_from: str, returncode: int, stdout: bytes,
                long_line: tuple[int, dict[str, Any] | None] = (0, None)) -> tuple[str, str, Any]:
    """The token, why it is unresolved (or ""), and the usage the last line reported (unchecked).

    The last line is the bare token, or a JSON object ``{"token": ..., "usage": {...}}``;
    either way the token must be exactly hold or fail.  The usage of an object line is
    kept whatever its token: a call that answered prose was spent all the same.
    ``long_line`` is the last line's length and members as ResultLine read them: a JSON
    line longer than MAX_RESULT_LINE is read from them, its usage Oversized past
    MAX_MEMBER bytes (left out with a note); any other member that long makes it no result.
    """
    if returncode < 0:
        return "unresolved", f"killed by signal {-returncode}", None
    lines = [line.strip() for line in stdout.decode("utf-8", "replace").splitlines()]
    last = next((line for line in reversed(lines) if line), "")
    reported: Any = None
    length, members = long_line
    result: Any = None
    if length > MAX_RESULT_LINE and members is not None:
        if not any(isinstance(value, Oversized) for key, value in members.items() if key != "usage"):
            result = members
    elif last.startswith("{") and len(last) <= MAX_RESULT_LINE:
        try:
            # Python's reader, which takes NaN and Infinity: a usage holding them is
            # refused when checked, and the token beside it still counts.
            result = json.loads(last)
        except (ValueError, RecursionError):
            result = None
    if isinstance(result, dict) and "token" in result:
        reported = result.get("usage")
        last = result["token"] if isinstance(result["token"], str) else repr(result["token"])
    if token_from == "exit":
        if returncode in (0, 1):
            return ("hold", "", reported) if returncode == 0 else ("fail", "", reported)
        return "unresolved", f"exit code {returncode} is neither 0 (hold) nor 1 (fail)", reported
    if returncode not in (0, 1):
        return "unresolved", f"exit code {returncode}: the run did not finish", reported
    if last in ("hold", "fail"):
        return last, "", reported
    why = "no output" if not last else f"last line is not a token: {last[:80]!r}"
    return "unresolved", why, reported


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """Kill the runner's process group and reap the runner, within a bound.

    A child that left the group is out of reach here; closing the pipe
    (the caller does) is what stops the router from waiting for it.
    """
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass  # the group is gone already; the runner may still need reaping
    try:
        proc.wait(timeout=REAP_TIMEOUT)
    except subprocess.TimeoutExpired:
        pass  # SIGKILL cannot be refused; a process stuck in the kernel is reaped later
