"""The patches of a commit range, read from git: each commit on its first parent, how the
range's merges were read (a pull request or a branch sync), and the copies of a change made
twice (git patch-id)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any

from lanelog.errors import GitError, ReplayError
from lanelog.router.gitfacts import Checkout, check_ref
from lanelog.router.merges import MERGE_KINDS, MergeReader, sync_pattern
from lanelog.router.paths import printable
from lanelog.router.replay_result import Patch

# git log's fields, NUL-separated with -z: no commit text can hold a NUL (git cuts a
# message there), so no subject can add or shift a field.
COMMIT_ID = re.compile(rb"[0-9a-f]{40}(?:[0-9a-f]{24})?\Z")
SECONDS = re.compile(rb"-?[0-9]{1,30}\Z")


def commits_in(checkout: Checkout, span: str, first_parent: bool = False, *, syncs: str | None = None,
               include_syncs: bool = False) -> tuple[list[Patch], list[dict[str, Any]], dict[str, Any]]:
    """The patches of A..B on their first parent, on their committer day (UTC), and how the range was read.

    By default every non-merge commit is a patch.  With ``first_parent`` every commit
    on B's first-parent chain is one, a merge as its first-parent diff (the merged pull
    request, as CI routed it); the commits behind merges are counted, not replayed.  Each
    merge is a pull request or a branch sync (router/merges.py; ``syncs`` is --sync-merges):
    a sync is listed apart and not returned, unless ``include_syncs``.
    One `git log` lists them all; a root commit has no parent to diff against and is skipped.
    The counts (merge_counts) are of the patches returned.
    """
    start, dots, end = span.partition("..")
    if not dots or not start or not end or end.startswith("."):
        raise ReplayError(f"--commits {span!r}: give a range A..B")
    for ref in (start, end):
        check_ref(ref)
    low, high = (checkout.resolve(ref) for ref in (start, end))
    shortened = None
    if low is None and high is not None:
        low, shortened = _history_start(checkout, start, high)
    if low is None or high is None:
        missing = [ref for ref, found in zip((start, end), (low, high)) if found is None]
        raise ReplayError(f"--commits {span!r}: {', '.join(missing)} names no commit")
    pattern = sync_pattern(syncs) if syncs is not None else None
    walk = ("--first-parent",) if first_parent else ("--no-merges",)
    # A merge's body tells GitLab's merge requests; only --first-parent reads merges.
    fields = "%H%x00%P%x00%ct%x00%s" + ("%x00%b" if first_parent else "")
    out = checkout.git("log", "-z", *walk, "--reverse", f"--format={fields}", f"{low}..{high}", "--").stdout
    through = _through_merges(checkout, low, high)
    reading = _Reading(Counter(through.values()), through,
                       MergeReader(checkout, low, branch_of(checkout, end), pattern) if first_parent else None)
    for record in _records(out, 5 if first_parent else 4):
        reading.add(*record)
    patches = [patch for patch in reading.patches if patch.merge != "sync" or include_syncs]
    about = merge_counts(patches, first_parent) | ({"shortened": shortened} if shortened else {})
    if first_parent:
        about.update(merge_kinds={kind: reading.kinds[kind] for kind in MERGE_KINDS}, syncs=reading.syncs,
                     syncs_included=include_syncs,
                     sync_rule="--sync-merges" if syncs is not None else "long-lived branches")
    return patches, reading.skipped, about


ANCESTOR = re.compile(r"(?P<ref>.+)~(?P<count>[0-9]+)\Z")


def _history_start(checkout: Checkout, start: str, high: str) -> tuple[str | None, str | None]:
    """A range's start `REF~N` past the start of REF's history (a young repository): its first commit,
    which replay never diffs (it has no parent), so the range is the whole history; and a note that says
    so.  (None, None) for any other start that names no commit: an error, as before."""
    found = ANCESTOR.fullmatch(start)
    ref = checkout.resolve(found["ref"]) if found else None
    if found is None or ref is None:
        return None, None
    chain = checkout.git("rev-list", "--first-parent", ref, "--").stdout.split()
    if len(chain) > int(found["count"]):
        return None, None
    first = chain[-1].decode()
    return first, (f"{start} is before the start of {found['ref']}'s history ({len(chain)} commit(s) on its "
                   f"first-parent chain): every commit of it is replayed")


@dataclass
class _Reading:
    """The range's commits read one by one: the patches, the skipped commits, the merges told apart."""

    brought: Counter[str]
    through: dict[str, str]
    merges: MergeReader | None  # with --first-parent
    patches: list[Patch] = field(default_factory=list)
    skipped: list[dict[str, Any]] = field(default_factory=list)
    syncs: list[dict[str, Any]] = field(default_factory=list)
    kinds: Counter[str] = field(default_factory=Counter)

    def add(self, commit: bytes, parents: bytes, seconds: bytes, subject: bytes, *body: bytes) -> None:
        """One commit of `git log`, checked field by field before it is read."""
        listed = parents.split()
        if not COMMIT_ID.match(commit) or not all(COMMIT_ID.match(p) for p in listed) or not SECONDS.match(seconds):
            raise GitError("git log answered in a shape replay does not read: "
                           f"{printable(commit[:80].decode('ascii', 'replace'))!r}")
        head, text = commit.decode("ascii"), subject.decode("utf-8", "replace")
        day = commit_day(int(seconds))
        if not listed:
            self.skipped.append({"head": head, "subject": text, "reason": "a root commit: no parent to diff against"})
            return
        if day is None:
            self.skipped.append({"head": head, "subject": text,
                                 "reason": f"committer time {int(seconds)} is outside the years 1 to 9999"})
            return
        kind = why = None
        if self.merges is not None and len(listed) > 1:
            kind, why = self.merges.kind(head, [p.decode("ascii") for p in listed], text,
                                         body[0].decode("utf-8", "replace") if body else "")
            self.kinds[kind] += 1
        if kind == "sync":
            self.syncs.append({"head": head, "subject": text, "day": day.isoformat(),
                               "brought": self.brought[head], "why": why})
        self.patches.append(Patch(base=listed[0].decode("ascii"), head=head, today=day, subject=text,
                                  brought=self.brought[head] if kind else None, through=self.through.get(head),
                                  merge=kind))


def branch_of(checkout: Checkout, ref: str) -> str | None:
    """The branch ``ref`` names ("origin/main" and "main" are main), None for a commit id or a tag."""
    out = checkout.git("rev-parse", "--symbolic-full-name", "--end-of-options", ref, ok=(0, 128)).stdout
    full = out.decode("utf-8", "replace").strip()
    if full.startswith("refs/heads/"):
        return full.removeprefix("refs/heads/")
    if full.startswith("refs/remotes/") and full.count("/") >= 3:
        return full.split("/", 3)[3]
    return None


def merge_counts(patches: list[Patch], first_parent: bool) -> dict[str, Any]:
    """How the range's merges were replayed, counted over these patches (what is skipped or
    left out is not replayed, so it is not counted).

    Without first_parent: the merges of B's first-parent chain that brought a patch in,
    and those patches, each replayed on its own.  With it: the merges of the chain, each
    replayed as one patch, and the commits behind them, not replayed.
    """
    if first_parent:
        merges = [patch.brought for patch in patches if patch.brought is not None]
        return {"first_parent": True, "merges": len(merges), "behind_merges": sum(merges)}
    through = [patch.through for patch in patches if patch.through is not None]
    return {"first_parent": False, "merges": len(set(through)), "through_merges": len(through)}


def _through_merges(checkout: Checkout, start: str, end: str) -> dict[str, str]:
    """Each commit of start..end off end's first-parent chain, with the merge of that chain
    that brought it in: the oldest one that reaches it through a parent other than its first.

    One `git rev-list --parents` lists the range.  The chain is walked oldest first, each
    merge's other parents followed to the commits no older merge of the chain reached.
    """
    out = checkout.git("rev-list", "--parents", f"{start}..{end}", "--").stdout
    parents: dict[str, list[str]] = {}
    for row in out.splitlines():
        fields = row.split()
        if not fields or not all(COMMIT_ID.match(field) for field in fields):
            raise GitError("git rev-list answered in a shape replay does not read: "
                           f"{printable(row[:80].decode('ascii', 'replace'))!r}")
        parents[fields[0].decode("ascii")] = [field.decode("ascii") for field in fields[1:]]
    chain: list[str] = []
    commit: str | None = end
    while commit is not None and commit in parents:
        chain.append(commit)
        commit = parents[commit][0] if parents[commit] else None
    reached = set(chain)
    through: dict[str, str] = {}
    for merge in reversed(chain):
        # What the merge's first parent reaches in the range was reached by an older
        # commit of the chain (or is outside the range): only its other parents bring commits in.
        waiting = [parent for parent in parents[merge][1:] if parent in parents]
        while waiting:
            commit = waiting.pop()
            if commit in reached:
                continue
            reached.add(commit)
            through[commit] = merge
            waiting += [parent for parent in parents[commit] if parent in parents and parent not in reached]
    return through


def dedupe(checkout: Checkout, patches: list[Patch]) -> tuple[list[Patch], list[dict[str, Any]]]:
    """Leave out each patch whose change (`git patch-id --stable`) an earlier patch already made.

    A cherry-picked commit is the same change twice: replayed once, the copy listed.
    A patch with no diff has no patch id and is always kept.
    """
    if not patches:
        return patches, []
    # Patches of --commits sit on their first parent: one git diff-tree lists each head's
    # first-parent diff under "commit <id>" (nothing a commit's text can write), and one
    # git patch-id reads them all.
    listing = b"".join(f"{patch.head}\n".encode() for patch in patches)
    diffs = checkout.git("diff-tree", "--stdin", "-p", "--no-color", "--no-ext-diff", "--no-textconv",
                         "--no-renames", "--diff-merges=first-parent", "--pretty=tformat:commit %H",
                         stdin=listing).stdout
    ids = checkout.git("patch-id", "--stable", stdin=diffs).stdout
    change = {}
    for row in ids.splitlines():
        fields = row.split()
        if len(fields) == 2 and COMMIT_ID.match(fields[1]):
            change[fields[1].decode("ascii")] = fields[0]
    kept: list[Patch] = []
    first: dict[bytes, str] = {}
    left_out: list[dict[str, Any]] = []
    for patch in patches:
        key = change.get(patch.head)
        if key is not None and key in first:
            left_out.append({"head": patch.head, "subject": patch.subject,
                             "reason": f"the same change as {first[key][:12]} (git patch-id): replayed once"})
            continue
        if key is not None:
            first[key] = patch.head
        kept.append(patch)
    return kept, left_out


def _records(out: bytes, width: int) -> Iterator[list[bytes]]:
    """git's -z output as records of ``width`` NUL-separated fields (the last record has no end NUL)."""
    if not out:
        return
    fields = out.removesuffix(b"\0").split(b"\0")
    if len(fields) % width:
        raise GitError(f"git log gave {len(fields)} fields, not a multiple of {width}")
    for start in range(0, len(fields), width):
        yield fields[start:start + width]


def commit_day(seconds: int) -> date | None:
    """The UTC day of a committer time, or None when no date of years 1 to 9999 holds it."""
    try:
        return datetime.fromtimestamp(seconds, UTC).date()
    except (OverflowError, ValueError, OSError):
        return None


def subjects(checkout: Checkout, heads: Iterable[str]) -> dict[str, str]:
    """git's %s of each head, in one call."""
    wanted = sorted(set(heads))
    if not wanted:
        return {}
    out = checkout.git("log", "-z", "--no-walk=unsorted", "--format=%H%x00%s", *wanted, "--").stdout
    found = {}
    for commit, subject in _records(out, 2):
        if not COMMIT_ID.match(commit):
            raise GitError("git log answered in a shape replay does not read")
        found[commit.decode("ascii")] = subject.decode("utf-8", "replace")
    return found
