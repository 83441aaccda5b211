"""One attempt, end to end: collect facts, apply the table, run the lane, build the line.

``run_route`` never raises for anything the checkout, the policy or git can
do: every failure becomes a reject with a reason, so every call leaves a line.
"""

from __future__ import annotations

import functools
import os
import tempfile
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from lanelog.errors import FlakyInvalid, NotARepo, PolicyInvalid, RepoNameInvalid
from lanelog.router import cost
from lanelog.router.decide import PatchFacts, Plan, Problem, lane_for, route
from lanelog.router.evidence import AssertionEvidence, assertion_evidence
from lanelog.router.flaky import FreezeRow, freeze_expiry, parse_flaky
from lanelog.router.gitfacts import Checkout, check_ref
from lanelog.router.lane import LaneContext, LaneRunner, run_lane
from lanelog.router.lane_log import build_line
from lanelog.router.paths import printable
from lanelog.router.policy import Policy, parse_policy

POLICY_FILE = "lanes.yaml"
FLAKY_FILE = "flaky.yaml"


@dataclass
class RouteOptions:
    """The inputs of one ``lanelog route`` call (the CLI's flags)."""

    repo: Path = Path(".")
    base: str = "origin/main"
    head: str = "HEAD"
    policy: Path | None = None
    flaky: Path | None = None
    required_tests: list[str] | None = None
    today: date | None = None
    repo_name: str | None = None
    runner: LaneRunner | None = None
    now: Callable[[], datetime] = field(default=lambda: datetime.now(UTC))
    # A policy or flaky list already read (replay's candidate): used as it is, never
    # read from the base commit, so a patch touching it is not policy_changed.
    policy_data: tuple[Path, bytes] | None = None
    flaky_data: tuple[Path, bytes] | None = None
    # An already opened checkout (replay's, which remembers what git said), else --repo is opened.
    checkout: Checkout | None = None
    # The line's pull_request, agent and ci_run (router/change.py), known before the patch is routed;
    # an internal error's line keeps them too.
    change: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        check_ref(self.base)
        check_ref(self.head)
        if self.repo_name is not None:
            check_repo_name(self.repo_name)



def check_repo_name(name: str, what: str = "", hint: str = "") -> str:
    """Refuse a repo name that is not UTF-8 text (undecodable bytes held as surrogates)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        raise RepoNameInvalid(f"{what + ' ' if what else ''}{printable(name)} is not UTF-8 text{hint}") from None
    return name


def _repo_name(options: RouteOptions, folder: Path) -> str:
    """``--repo-name``, else the folder's name, which must be UTF-8 text.

    The repo field is what the lane log is grouped by; an escaped stand-in
    would be a name nobody chose, so the caller is asked for one instead.
    """
    if options.repo_name is not None:
        return options.repo_name
    return check_repo_name(folder.name, "the checkout folder's name", ": name the repo with --repo-name")


@dataclass
class _Attempt:
    """What is known so far; an internal error keeps whatever was learned."""

    repo: str
    checkout: Checkout | None = None
    base: str | None = None
    head: str | None = None
    start: str | None = None
    files: list[str] = field(default_factory=list)
    policy: Policy | None = None
    freezes: dict[str, FreezeRow] = field(default_factory=dict)
    setup_errors: list[str] = field(default_factory=list)  # why the lane could not run


def run_route(options: RouteOptions, notify: Callable[[str], None] = lambda _: None,
              ) -> dict[str, Any]:
    """Route one attempt and return its lane-log line (not yet written).

    Raises ``RepoNameInvalid`` (and writes no line) when the repo field would
    have to come from a folder name that is not UTF-8 text.
    """
    now = options.now()
    today = options.today or now.astimezone(UTC).date()
    # The job clock: --today moves the date (a replayed or simulated day)
    # and keeps the time of day, so lines stay in order within a day.
    ts = datetime.combine(today, now.astimezone(UTC).time().replace(microsecond=0),
                          tzinfo=UTC)
    attempt_id = uuid.uuid4().hex
    # A stand-in until the probe knows the checkout: only a failure before
    # that (internal_error) leaves it in the line.
    attempt = _Attempt(repo=options.repo_name
                       or printable(Path(os.path.abspath(options.repo)).name))
    results: dict[str, str] = {}
    usage: dict[str, dict[str, Any]] = {}
    try:
        plan = _probe(options, today, attempt)
        lane = "not_started"
        if plan.model_call_allowed and options.runner is not None:
            results = _lane(options.runner, plan, attempt, attempt_id, notify, usage)
            lane = lane_for(results)
    except RepoNameInvalid:
        raise  # no line: it would carry a name nobody chose
    except Exception as exc:  # the router's promise: a line for every call
        message = " ".join(f"{type(exc).__name__}: {exc}".split())
        plan = route(None, today, {}, None, problems=[Problem("internal_error", message)])
        lane, results, usage = "not_started", {}, {}
    return build_line(ts=ts, attempt_id=attempt_id, repo=attempt.repo, base=attempt.base,
                      head=attempt.head, plan=plan, files=attempt.files, policy=attempt.policy,
                      lane=lane, results=results, freezes=attempt.freezes,
                      usage={prop: used for prop, used in usage.items() if prop in results},
                      setup_error="; ".join(attempt.setup_errors) or None, change=options.change)


def exit_code(line: dict[str, Any], require_hold: bool = False) -> int:
    """0 pass, 1 reject, 3 when a hold was required and the lane is not hold."""
    if line["probe"] != "pass":
        return 1
    if require_hold and line["lane"] != "hold":
        return 3
    return 0


def _probe(options: RouteOptions, today: date, attempt: _Attempt) -> Plan:
    """The checkout opened, its refs resolved, the policy and flaky list read from the base, the patch routed."""
    problems: list[Problem] = []
    try:
        checkout = options.checkout or Checkout.open(options.repo)
    except NotARepo as exc:
        attempt.repo = _repo_name(options, Path(os.path.abspath(options.repo)))
        return route(None, today, {}, None, problems=[Problem("not_a_repo", str(exc))])
    attempt.checkout = checkout
    attempt.repo = _repo_name(options, checkout.toplevel)
    _resolve(options, checkout, attempt, problems)
    policy_path: str | Path = (options.policy_data[0] if options.policy_data
                               else _locate(options.policy, POLICY_FILE, checkout))
    flaky_path: str | Path = (options.flaky_data[0] if options.flaky_data
                              else _locate(options.flaky, FLAKY_FILE, checkout))
    given: dict[str | Path, bytes | None] = {
        given[0]: given[1] for given in (options.policy_data, options.flaky_data) if given}
    sources = _read_sources(checkout, attempt.base, [path for path in (policy_path, flaky_path)
                                                     if path not in given])
    sources.update(given)
    attempt.policy = _load_policy(policy_path, sources, problems, attempt.base)
    rows = _load_flaky(flaky_path, sources, problems)
    if attempt.start is None or attempt.head is None:
        return route(None, today, freeze_expiry(rows), attempt.policy, problems=problems)
    # The policy's path when the base holds none: a patch that brings it adopts it.
    adopted = policy_path if isinstance(policy_path, str) and sources.get(policy_path) is None else None
    in_repo = {path for path in (policy_path, flaky_path) if isinstance(path, str)}
    facts = _facts(options, checkout, attempt, rows, in_repo, adopted)
    return route(facts, today, freeze_expiry(rows), attempt.policy, problems=problems)


def _resolve(options: RouteOptions, checkout: Checkout, attempt: _Attempt, problems: list[Problem]) -> None:
    """The base, the head and where the patch starts (their merge base), or why one is missing."""
    attempt.base = checkout.resolve(options.base)
    attempt.head = checkout.resolve(options.head)
    if attempt.base is None:
        problems.append(Problem("base_missing", f"{options.base!r} names no commit in "
                                f"{checkout.toplevel}; fetch it, or pass --base"))
    if attempt.head is None:
        problems.append(Problem("head_missing", f"{options.head!r} names no commit"))
    if attempt.base and attempt.head:
        attempt.start = checkout.merge_base(attempt.base, attempt.head)
        if attempt.start is None:
            problems.append(Problem("base_missing", f"{options.base!r} and {options.head!r} "
                                    "share no history"))


def _facts(options: RouteOptions, checkout: Checkout, attempt: _Attempt, rows: list[FreezeRow],
           in_repo: set[str], new_policy: str | None) -> PatchFacts:
    """What the decision table reads of the patch: its size, files, assertions, freezes and cost.

    in_repo: the policy files' paths in the checkout; new_policy: the policy's path when the
    base holds none (a patch that brings it adopts it).
    """
    assert attempt.start is not None and attempt.head is not None
    renames = attempt.policy.renames if attempt.policy is not None else "detect"
    diff = checkout.diff(attempt.start, attempt.head, renames=renames)
    counts = diff.line_counts
    attempt.files = diff.paths
    evidence = (assertion_evidence(diff.hunk_lines(), attempt.policy) if attempt.policy is not None
                else AssertionEvidence())
    # A freeze scoped to paths or properties guards only the patches in its scope;
    # --required-tests narrows further.
    selected = ({prop for path in attempt.files for prop in attempt.policy.properties_for(path)}
                if attempt.policy is not None else set())
    out_of_scope = {row.id for row in rows if not row.applies_to(attempt.files, selected)}
    wanted = options.required_tests if options.required_tests is not None else [row.id for row in rows]
    attempt.freezes = {row.id: row for row in rows}
    return PatchFacts(
        lines_changed=sum(count or 0 for count in counts.values()),
        files=attempt.files,
        assertion_deletions=evidence.removed,
        flaky_ids=[test_id for test_id in wanted if test_id not in out_of_scope],
        line_counts=counts,
        policy_touched=bool(in_repo & set(attempt.files)),
        policy_adopted=new_policy is not None and new_policy in attempt.files,
        renamed=diff.renamed,
        assertion_additions=evidence.added,
        assertion_restored=evidence.restored,
        assertion_files=evidence.files,
        assertion_lines=evidence.lines,
        assertion_excerpts=evidence.excerpts,
        assertion_added_lines=evidence.added_lines,
        assertion_restoring=evidence.restoring,
        patch_bytes=cost.patch_bytes(checkout, attempt.start, attempt.head, attempt.policy),
    )


def _locate(option: Path | None, default: str, checkout: Checkout) -> str | Path:
    """A repo-relative path (read from the base commit) or a file outside the checkout."""
    if option is None:
        return default
    target = Path(os.path.abspath(option))
    top = Path(os.path.abspath(checkout.toplevel))
    for candidate, root in ((target, top), (target.resolve(), top.resolve())):
        if candidate.is_relative_to(root) and candidate != root:
            return candidate.relative_to(root).as_posix()
    return target


def _read_sources(checkout: Checkout, base: str | None,
                  paths: list[str | Path]) -> dict[str | Path, bytes | None]:
    """The policy and flaky files' bytes: from the base commit, or from disk."""
    found: dict[str | Path, bytes | None] = {}
    in_repo = [path for path in paths if isinstance(path, str)]
    if base is not None and in_repo:
        found.update(checkout.read_files(base, in_repo))
    for path in paths:
        if isinstance(path, Path):
            found[path] = path.read_bytes() if path.is_file() else None
    return found


def _label(path: str | Path) -> str:
    return f"{path} (base commit)" if isinstance(path, str) else str(path)


# A replay routes hundreds of patches whose base commits hold the same few policy texts;
# parsing YAML was half its time. Parsed values are frozen; an invalid text is not kept
# (it raises again, with its message, each time).
@functools.lru_cache(maxsize=64)
def _parsed_policy(text: str, name: str) -> Policy:
    return parse_policy(text, name)


@functools.lru_cache(maxsize=64)
def _parsed_flaky(text: str, name: str) -> tuple[FreezeRow, ...]:
    return tuple(parse_flaky(text, name))


def _load_policy(path: str | Path, sources: dict[str | Path, bytes | None],
                 problems: list[Problem], base: str | None = None) -> Policy | None:
    if path not in sources:
        return None  # no base commit to read it from; base_missing says so
    data = sources[path]
    if data is None and isinstance(path, str):
        # A path inside the checkout is never read from disk: say so, or a user who
        # sees the file in front of them cannot tell why it is "missing".
        problems.append(Problem("policy_missing", f"{path} is not in the base commit "
                                f"{(base or '?')[:12]}; the router reads the policy from the base "
                                "commit, never from the checkout's files, so a patch cannot change "
                                "its own rules: merge the policy first in its own pull request, or "
                                "pass --policy a file outside the checkout"))
        return None
    if data is None:
        problems.append(Problem("policy_missing", f"no {_label(path)}: the router fails "
                                "closed without a policy"))
        return None
    try:
        return _parsed_policy(data.decode("utf-8"), _label(path))
    except UnicodeDecodeError:
        problems.append(Problem("policy_invalid", f"{_label(path)}: not UTF-8 text"))
    except PolicyInvalid as exc:
        problems.append(Problem("policy_invalid", str(exc)))
    return None


def _load_flaky(path: str | Path, sources: dict[str | Path, bytes | None],
                problems: list[Problem]) -> list[FreezeRow]:
    data = sources.get(path)
    if data is None:
        return []  # a missing flaky list is an empty list
    try:
        return list(_parsed_flaky(data.decode("utf-8"), _label(path)))
    except UnicodeDecodeError:
        problems.append(Problem("flaky_invalid", f"{_label(path)}: not UTF-8 text"))
    except FlakyInvalid as exc:
        problems.append(Problem("flaky_invalid", str(exc)))
    return []


def _lane(runner: LaneRunner, plan: Plan, attempt: _Attempt, attempt_id: str,
          notify: Callable[[str], None], usage: dict[str, dict[str, Any]]) -> dict[str, str]:
    """Run the property lane; a lane that cannot start leaves every id unresolved."""
    # Only a passing probe reaches here, and it could not pass without these.
    assert attempt.checkout and attempt.policy and attempt.start and attempt.head
    to_run = [prop for prop in plan.properties if prop not in plan.quarantine]
    try:
        with tempfile.TemporaryDirectory(prefix="lanelog-lane-") as scratch:
            patch_file = Path(scratch) / "patch.diff"
            with patch_file.open("wb") as out:
                attempt.checkout.write_patch(attempt.start, attempt.head, out)
            context = LaneContext(
                cwd=attempt.checkout.toplevel,
                says={prop: attempt.policy.properties[prop].says for prop in to_run},
                fixture_hash=attempt.checkout.fixture_hash(attempt.head, attempt.policy.is_fixture),
                patch_file=patch_file,
                attempt_id=attempt_id,
                prices=attempt.policy.prices,
            )
            return run_lane(runner, plan.properties, plan.quarantine, context, notify, usage,
                            attempt.setup_errors)
    except Exception as exc:  # the probe stands; only the lane is left without a result
        message = f"the property lane could not run: {type(exc).__name__}: {exc}"
        attempt.setup_errors.append(" ".join(message.split()))
        notify(f"setup error: {message}")
        return dict.fromkeys(to_run, "unresolved")
