"""How --first-parent tells a merged pull request from a branch sync.

A merge of a long-lived branch (the base branch, main, master, stable, a version line such as
3.0.x or 2.x-maintenance, release/...) brings in commits a person or a forge already merged
there: a **sync**, which no CI routed as one patch.  Every other merge is a **pull request**,
whatever its subject: GitHub's "Merge pull request #N from ...", a "title (#N)" merge commit,
a security advisory's merge, git's own "Merge branch 'feature-2'" of a branch merged by hand,
an octopus of feature branches.

The subject is read first, for the branch names git (or a title written in git's words,
"Merge stable into main (#3479)") gives it; when it names none, or it is a forge's pull
request subject, git decides: the merge is a sync when its merged-in commit is still on a
long-lived branch of the checkout that does not hold the merge (origin/stable).  A merge whose
subject names a pull request (GitHub's "Merge pull request #N from OWNER/BRANCH" of a branch
that is not long-lived, or a title's "#N") is a pull request whatever branches point at its
parents later: pytest cut its release branches from the heads of the pull requests that
prepared them.  Such a title is a sync only by what its second parent brings, a line that lived
beside the branch (it does not start at the first parent) and is still on a long-lived branch.
Subjects are untrusted text: they are only matched with bounded patterns, never run, and the
names kept are shown printable.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import re2

from lanelog.errors import GitError, ReplayError
from lanelog.router.gitfacts import Checkout
from lanelog.router.paths import printable
from lanelog.router.policy import Pattern

MERGE_KINDS = ("pull_request", "sync")
# The subjects a forge writes when it merges a pull (merge) request: GitHub's, its security
# advisories', and GitLab's with "See merge request group/project!N" in the body.
GITHUB_PULL = re.compile(r"Merge pull request #[0-9]+ from (?:[^\s/]+/)?(?P<branch>\S+)")
GITHUB_ADVISORY = re.compile(r"Merge pull request from GHSA-")
GITLAB_BRANCH = re.compile(r"Merge branch '[^']+' into '[^']+'")
GITLAB_REQUEST = re.compile(r"^See merge request \S+![0-9]+", re.MULTILINE)
# A pull request's number in a title ("Preparing release version 5.3.4 (#6516)"); bounded, so a
# hostile subject costs a linear scan.
PULL_NUMBER = re.compile(r"#[0-9]{1,12}(?![0-9])")
# git's merge messages ("Merge branch 'a'", "Merge branches 'a' and 'b'", "Merge remote-tracking
# branch 'origin/a'", "Merge tag 'v1'", "... of URL", "... into b"), and titles written the same way.
MERGE_WORDS = re.compile(r"merge\s+(?:(?P<remote>remote-tracking\s+|remote\s+)?"
                         r"(?P<kind>branch(?:es)?|tags?|commits?)\s+)?", re.IGNORECASE)
NAME = re.compile(r"'(?P<single>[^']+)'|`(?P<tick>[^`]+)`|\"(?P<double>[^\"]+)\"|(?P<bare>[\w][\w./:@+-]*)")
BETWEEN = re.compile(r",\s*(?:and\s+)?|\s+and\s+")
OF = re.compile(r"\s+of\s+\S+")
INTO = re.compile(r"\s+into\s+")
# What may follow an unquoted name for the subject to be a merge's and not a sentence
# ("Merge app and request context" names no branch): the end, punctuation, or "(#N)".
BARE_END = re.compile(r"\s*(?:[.;:,!]\s*)*(?:\(#[0-9]+\)\s*)?\Z|\s*;")
# The branches that live on beside the base: the default branches, a stable line, a version
# line (3.0.x, 2.x-maintenance, 1.0), a release or maintenance folder.
LONG_LIVED = re.compile(r"(?:main|master|trunk|develop|stable|v?[0-9]+(?:\.[0-9]+)*\.x|[0-9]+(?:\.[0-9]+)+"
                        r"|v?[0-9]+(?:\.[0-9]+)*(?:\.x)?-maint(?:enance)?|(?:release|releases|maintenance)/.+)\Z")
# The remotes that hold the project's own branches, by convention; another remote is a contributor's fork.
PROJECT_REMOTES = ("origin", "upstream")
# Long-lived branches of the checkout read for the structural test, at most.
MAX_LIVE_REFS = 16


def sync_pattern(text: str) -> Pattern:
    """``--sync-merges``: an RE2 pattern searched in a merge's subject (linear time, as the
    policy's patterns); ReplayError naming it when RE2 refuses it."""
    options = re2.Options()
    options.log_errors = False
    try:
        compiled: Pattern = re2.compile(text, options)
    except re2.error as exc:
        problem = exc.args[0] if exc.args else "refused"
        shown = problem.decode("utf-8", "replace") if isinstance(problem, bytes) else str(problem)
        raise ReplayError(f"--sync-merges {text!r} is not an RE2 pattern ({shown}); patterns run in "
                          "linear time, without lookaround or backreferences") from None
    return compiled


@dataclass(frozen=True)
class Named:
    """The branches a merge subject names, as git's words give them."""

    branches: list[str]
    remote: bool = False  # "remote-tracking branch": each name starts with its remote
    tag: bool = False
    into: str | None = None


def named(subject: str) -> Named | None:
    """The branches a subject in git's words names ("Merge branch 'a' into b"), or None when it
    names none: a forge's or a person's own words, or a merge of a commit."""
    found = MERGE_WORDS.match(subject)
    if found is None:
        return None
    kind = (found.group("kind") or "").lower()
    if kind.startswith("commit"):
        return None
    at, names, bare = found.end(), [], False
    while True:
        name = NAME.match(subject, at)
        if name is None:
            return None
        names.append(next(value for value in name.groupdict().values() if value is not None))
        bare = bare or name.group("bare") is not None
        at = name.end()
        between = BETWEEN.match(subject, at)
        if between is None:
            break
        at = between.end()
    of = OF.match(subject, at)
    at = of.end() if of else at
    into = None
    if INTO.match(subject, at):
        target = NAME.match(subject, INTO.match(subject, at).end())  # type: ignore[union-attr]
        into = next((value for value in target.groupdict().values() if value), None) if target else None
    elif bare and of is None and BARE_END.match(subject, at) is None:
        return None
    return Named(names, remote=bool(found.group("remote")), tag=kind.startswith("tag"), into=into)


def branch_name(name: str, remote: bool) -> str | None:
    """A branch as the project calls it: "origin/stable" and "pallets:stable" are stable; a branch of
    another remote ("sourya/master") is a contributor's, None."""
    name = name.removeprefix("refs/heads/").removeprefix("refs/remotes/")
    owner, colon, rest = name.partition(":")
    if colon and "/" not in owner:
        name = rest
    first, slash, rest = name.partition("/")
    if slash and first in PROJECT_REMOTES:
        return rest
    if slash and remote:
        return None
    return name


def long_lived(name: str | None, base: str | None) -> bool:
    """Whether a branch lives on beside the base: the base itself, or LONG_LIVED's names."""
    return name is not None and (name == base or LONG_LIVED.match(name) is not None)


@dataclass
class MergeReader:
    """Tells each merge of a first-parent chain apart: ``kind`` gives ("pull_request" | "sync", why).

    ``base`` is the replayed branch's name (None for a commit id); ``low`` the range's start.
    The checkout's long-lived branches are read once, on the first merge whose subject does not
    decide it: one `git for-each-ref`, and one `git rev-list` per such branch (at most MAX_LIVE_REFS).
    """

    checkout: Checkout
    low: str
    base: str | None
    syncs: Pattern | None = None
    _live: dict[str, set[str]] | None = field(default=None, repr=False)

    def kind(self, head: str, parents: list[str], subject: str, body: str) -> tuple[str, str | None]:
        """The merge's kind and, for a sync, why."""
        if self.syncs is not None:
            return ("sync", "its subject matches --sync-merges") if self.syncs.search(subject) is not None \
                else ("pull_request", None)
        if GITHUB_ADVISORY.match(subject) or (GITLAB_BRANCH.match(subject) and GITLAB_REQUEST.search(body)):
            return "pull_request", None
        pull = GITHUB_PULL.match(subject)
        if pull is not None and not long_lived(branch_name(pull["branch"], False), self.base):
            return "pull_request", None
        words = None if pull is not None else named(subject)
        if words is not None:
            return self._by_name(words)
        holder = self._holder(head, parents[1:])
        if holder is not None and not (PULL_NUMBER.search(subject) and self._on_first_parent(parents)):
            return "sync", f"its merged-in commit is on {holder}, a long-lived branch that does not hold the merge"
        return "pull_request", None

    def _on_first_parent(self, parents: list[str]) -> bool:
        """Whether what the merge brings starts at its first parent: made on the branch as it was, not
        a line that lived beside it."""
        return len(parents) == 2 and self.checkout.merge_base(parents[0], parents[1]) == parents[0]

    def _by_name(self, words: Named) -> tuple[str, str | None]:
        names = [branch_name(name, words.remote) for name in words.branches]
        shown = ", ".join(printable(name) for name in words.branches)
        if words.into is not None and len(names) == 1 and names[0] == branch_name(words.into, False):
            return "sync", f"it merges {shown} into the branch of the same name (a pull)"
        if words.tag or all(long_lived(name, self.base) for name in names):
            return "sync", f"it merges {shown}, a long-lived branch" if len(names) == 1 \
                else f"it merges {shown}, long-lived branches"
        return "pull_request", None

    def _holder(self, merge: str, merged: list[str]) -> str | None:
        """A long-lived branch of the checkout that holds a merged-in commit but not the merge."""
        for ref, reach in self._branches().items():
            if merge not in reach and any(commit in reach for commit in merged):
                return ref
        return None

    def _branches(self) -> dict[str, set[str]]:
        """Each long-lived branch of the checkout (not the base) and the commits it holds past ``low``."""
        if self._live is None:
            self._live = {}
            listed = self.checkout.git("for-each-ref", "--format=%(objectname) %(refname)",
                                       "refs/heads", "refs/remotes").stdout.decode("utf-8", "replace")
            for row in listed.splitlines():
                commit, _, ref = row.partition(" ")
                short = ref.removeprefix("refs/heads/").removeprefix("refs/remotes/")
                name = branch_name(short.split("/", 1)[1], False) if ref.startswith("refs/remotes/") \
                    and "/" in short else short
                if name == self.base or name == "HEAD" or not long_lived(name, None):
                    continue
                if len(self._live) == MAX_LIVE_REFS:
                    break
                self._live[printable(short)] = self._reach(commit)
        return self._live

    def _reach(self, commit: str) -> set[str]:
        if not re.fullmatch(r"[0-9a-f]{40}(?:[0-9a-f]{24})?", commit):
            raise GitError(f"git for-each-ref answered in a shape replay does not read: {printable(commit[:80])!r}")
        out = self.checkout.git("rev-list", commit, "--not", self.low, "--").stdout.decode("ascii", "replace")
        return set(out.split())
