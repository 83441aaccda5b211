"""Forges behind one door: what a forge and its CI tell the router, as forge-neutral records.

A forge (GitHub, ...) is where the pull requests live and whose CI runs ``lanelog route`` and
``lanelog outcome``.  Everything that knows one forge's shapes (its CI's variables, its event
payloads, the files its API prints, its accounts and which of them are people) is one module
here, an adapter subclassing ``Forge``; the router reads only the records below.  The table is
the package itself: every module here not named with a leading ``_`` is one forge's adapter,
its name the module's, its adapter the module's ``FORGE``.  Adding a forge is that module, its
page (docs/forges/NAME.md) and its example CI file (docs/architecture.md says how).

An adapter checks every value it reads (router/facts.py) and raises FactInvalid or
InputFileInvalid naming the file or variable and the key, never the value.  A login or a label
name the line refuses is no reason to lose the close it belongs to: an adapter leaves it out
through ``kept``, and ``omit`` hears of it (an ``Omission``); by default it still refuses.
"""

from __future__ import annotations

import importlib
import pkgutil
from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from lanelog.errors import FactInvalid, ForgeUnknown
from lanelog.router.jsonfile import read_json
from lanelog.router.paths import printable

__all__ = [
    "DEFAULT_FORGE", "FORGES", "Account", "Approval", "AutoMerge", "Change", "Close", "Forge",
    "LabelEvent", "Omission", "Omit", "PullRequest", "Run", "chosen_forge", "every_forge", "forge", "job_forge",
    "kept", "names_repository", "noted", "outside_ci", "refuse",
]

T = TypeVar("T")

# What a saved file is read as when no forge is named and no forge's CI runs the job.
DEFAULT_FORGE = "github"


@dataclass(frozen=True)
class Account:
    """An account as a line keeps it: its login and its kind (``User``, ``Bot``, ...; None when unknown).
    GitHub's kind is its own word; another forge's adapter writes ``User`` for a person by that forge's
    rule and ``Bot`` for an app, so that one rule (queries/scope.sql's is_person) judges every forge."""

    login: str
    type: str | None

    def line(self) -> dict[str, Any]:
        return {"login": self.login, "type": self.type}


@dataclass(frozen=True)
class PullRequest:
    """A pull request (a merge request) as a line names it: ``OWNER/NAME``, its number, its web address."""

    repository: str
    number: int
    url: str | None = None

    def line(self) -> dict[str, Any]:
        return {"repository": self.repository, "number": self.number,
                **({"url": self.url} if self.url is not None else {})}


@dataclass(frozen=True)
class Run:
    """A CI run: its id and attempt where the CI numbers them, its web address where known."""

    id: str | None = None
    attempt: int | None = None
    url: str | None = None

    def line(self) -> dict[str, Any]:
        return {key: value for key, value in (("id", self.id), ("attempt", self.attempt), ("url", self.url))
                if value is not None}


@dataclass(frozen=True)
class Change:
    """Which change an attempt belongs to, as a CI job tells it: each None when unknown."""

    pull_request: PullRequest | None = None
    agent: str | None = None
    ci_run: Run | None = None


@dataclass(frozen=True)
class AutoMerge:
    """A pull request's auto-merge: who enabled it and how it merges, each None when unknown."""

    enabled_by: Account | None
    merge_method: str | None

    def line(self) -> dict[str, Any]:
        return {"enabled_by": None if self.enabled_by is None else self.enabled_by.line(),
                "merge_method": self.merge_method}


@dataclass(frozen=True)
class Close:
    """A pull request's close, checked: what the outcome line says of it (None: unknown, never guessed)."""

    pull_request: PullRequest
    head: str | None
    state: str                 # "merged", or "closed" without merge
    merged_at: str | None
    closed_at: str
    merged_by: Account | None
    auto_merge: AutoMerge | None
    author: Account | None
    labels: tuple[str, ...]
    merge_commit: str | None
    # The approvals the payload itself carries (Bitbucket's participants), None where it carries none.
    approvals: tuple[Approval, ...] | None = None
    forge: str | None = None            # the forge that read it, where the line names it
    short: tuple[str, ...] = ()         # the fields ("head", "merge_commit") holding an abbreviated commit id


@dataclass(frozen=True)
class Approval:
    """An approving review by the forge's rule: who, when, and of which commit (None when unknown; an
    approval of no known time never counts)."""

    account: Account
    submitted_at: str | None
    commit_id: str | None

    def line(self) -> dict[str, Any]:
        return {**self.account.line(), "submitted_at": self.submitted_at, "commit_id": self.commit_id}


@dataclass(frozen=True)
class LabelEvent:
    """The last time a label was set on a pull request, and by whom (None: an account since deleted); the app
    that set it for them, where one did (GitHub's ``performed_via_github_app``: no person's own act); and
    when it was removed after that, where it was (a label removed before the merge says nothing of it)."""

    name: str
    set_at: str
    set_by: Account | None
    via_app: str | None = None
    removed_at: str | None = None

    def line(self) -> dict[str, Any]:
        return {**({"set_by": self.set_by.line()} if self.set_by is not None else {}), "set_at": self.set_at,
                **({"via_app": self.via_app} if self.via_app is not None else {}),
                **({"removed_at": self.removed_at} if self.removed_at is not None else {})}


@dataclass(frozen=True)
class Omission:
    """A value the line refuses (a login, a label name), left out so that the close is still recorded."""

    field: str      # the line's field it belongs to: author, merged_by, auto_merge.enabled_by, approvals, labels
    key: str        # where it was in its input: pull_request.user.login, [3].user.login
    why: str        # what is wrong with it, never the value: holds the ... bidi character U+202E
    message: str    # the whole error, naming the file too (for stderr)

    def line(self) -> dict[str, str]:
        return {"field": self.field, "key": self.key, "why": self.why}


Omit = Callable[[Omission], None]


def refuse(omission: Omission) -> None:
    """The strict ``omit``: the value's error, as if it were not left out."""
    raise FactInvalid(omission.message)


def kept(check: Callable[[Any, str], T], value: Any, where: str, field: str, named: str, omit: Omit) -> T | None:
    """``check(value, where)``, or None when the value is refused (``NAMED, key KEY: WHY``), which ``omit``
    hears of as belonging to the line's ``field``."""
    try:
        return check(value, where)
    except FactInvalid as exc:
        message = str(exc)
        key, _, why = message.removeprefix(f"{named}, key ").partition(": ")
        omit(Omission(field, key, why, message))
        return None


class Forge(ABC):
    """One forge's adapter: its CI job's environment and its files, read into the records above."""

    name: ClassVar[str]             # its key in FORGES, the value of `lanelog outcome --forge`
    # How messages name what it reads, when one is missing.
    repository_words: ClassVar[str]  # where a job's repository comes from: "$GITHUB_REPOSITORY under GitHub Actions"
    event_words: ClassVar[str]       # what --event FILE holds: "a saved pull_request closed event"
    job_words: ClassVar[str]         # how a job has a close: "run it under GitHub Actions on a ... event"

    @abstractmethod
    def runs_here(self, environ: Mapping[str, str]) -> bool:
        """Whether this process is a job of the forge's CI."""

    @abstractmethod
    def owns_variable(self, name: str) -> bool:
        """Whether an environment variable is one the forge's CI sets (a job started without them is none)."""

    @abstractmethod
    def job_repository(self, environ: Mapping[str, str]) -> str | None:
        """``OWNER/NAME`` of the repository the job runs in; None off the forge's CI or when it names none."""

    @abstractmethod
    def job_change(self, environ: Mapping[str, str], wanted: Collection[str],
                   notify: Callable[[str], None]) -> Change:
        """What the job tells of the fields in ``wanted`` (``pull_request``, ``agent``, ``ci_run``: the line's
        names), each read only when wanted; one that cannot be read is None, with one note naming it (the
        route goes on)."""

    def job_close(self, environ: Mapping[str, str], omit: Omit = refuse) -> Close | None:
        """The close the job runs on (its closed event); None off the forge's CI or without an event, and
        always for a forge whose CI job carries no payload of the close (``--event FILE`` gives it).  A login
        or label the line refuses goes to ``omit`` (here and below), and is left out."""
        del environ, omit
        return None

    def summary_path(self, environ: Mapping[str, str]) -> str | None:
        """The file the job's summary in Markdown is appended to; None where the CI keeps none."""
        del environ
        return None

    def read_close(self, path: Path, environ: Mapping[str, str], omit: Omit = refuse) -> Close:
        """The close a saved event payload (``--event FILE``) holds."""
        named = printable(str(path))
        return self.close_of(read_json(path, named), named, environ, omit)

    @abstractmethod
    def close_of(self, event: Any, named: str, environ: Mapping[str, str], omit: Omit = refuse) -> Close:
        """The close an event payload holds, as the forge sends it (read from the file ``named``)."""

    @abstractmethod
    def read_approvals(self, path: Path, pull_request: PullRequest, omit: Omit = refuse) -> list[Approval]:
        """The approving reviews a reviews file (``--reviews FILE``) holds, in the order submitted."""

    @abstractmethod
    def read_label_events(self, path: Path, omit: Omit = refuse) -> dict[str, LabelEvent]:
        """Who set each label last, and when, by label name (``--label-events FILE``)."""

    @abstractmethod
    def is_person(self, account: Account) -> bool:
        """The forge's rule for a person, not an app: only a person's review or label makes an exception."""


def _adapters() -> dict[str, str]:
    """Every public module of this package, by name: each is one forge's adapter (its ``FORGE``)."""
    return {info.name: f"{__name__}.{info.name}" for info in sorted(pkgutil.iter_modules(__path__),
                                                                     key=lambda info: info.name)
            if not info.name.startswith("_")}


# Forge name -> its adapter's module, imported when the forge is asked for.
FORGES = _adapters()


@cache
def forge(name: str) -> Forge:
    """The adapter of the forge named ``name``; ForgeUnknown naming the forges there are."""
    module = FORGES.get(name)
    if module is None:
        raise ForgeUnknown(f"no forge named {name!r}; known: {', '.join(FORGES)}")
    adapter: Forge = importlib.import_module(module).FORGE
    return adapter


def every_forge() -> list[Forge]:
    """Every forge's adapter, in FORGES' order."""
    return [forge(name) for name in FORGES]


def job_forge(environ: Mapping[str, str]) -> Forge | None:
    """The forge whose CI runs this process, or None (a laptop, another CI)."""
    return next((found for found in every_forge() if found.runs_here(environ)), None)


def chosen_forge(name: str | None, environ: Mapping[str, str]) -> Forge:
    """The forge ``name`` says, else the one whose CI runs the job, else DEFAULT_FORGE."""
    if name is not None:
        return forge(name)
    return job_forge(environ) or forge(DEFAULT_FORGE)


def names_repository(found: Forge | None, environ: Mapping[str, str]) -> bool:
    """Whether the job's environment names its repository at all (well formed or not: the read says which)."""
    if found is None:
        return False
    try:
        return found.job_repository(environ) is not None
    except FactInvalid:
        return True


def noted(read: Callable[[], Any], field: str, notify: Callable[[str], None]) -> Any:
    """What ``read`` finds, or None, with a note, when a value it reads is not well formed."""
    try:
        return read()
    except FactInvalid as exc:
        notify(f"{field} left out: {exc}")
        return None


def change_read(readers: Mapping[str, Callable[[], Any]], wanted: Collection[str],
                notify: Callable[[str], None]) -> Change:
    """A job's Change from one reader per field it can tell (``pull_request``, ``agent``, ``ci_run``): each read
    only when wanted, one that cannot be read None with its note (noted); a field with no reader is None."""
    return Change(**{field: noted(read, field, notify) for field, read in readers.items() if field in wanted})


def outside_ci(environ: Mapping[str, str]) -> dict[str, str]:
    """``environ`` without any forge's CI variables: a process started with it is no CI job."""
    adapters = every_forge()
    return {name: value for name, value in environ.items()
            if not any(adapter.owns_variable(name) for adapter in adapters)}
