"""A checkout that asks git each question once, for a replay's two sides of each patch."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from lanelog.errors import BaseFileInvalid
from lanelog.router.gitfacts import Checkout, Diff
from lanelog.router.replay_result import Patch

T = TypeVar("T")


class RememberingCheckout(Checkout):
    """A checkout that asks git each question once: both sides of a patch share the answers.

    Refs are commit ids here, so the answers cannot change during a replay.
    """

    def __init__(self, toplevel: Path) -> None:
        super().__init__(toplevel)
        self._answers: dict[tuple[Any, ...], Any] = {}
        self._files: dict[str, dict[str, bytes | None]] = {}
        self._names: set[str] = set()  # every file name asked for so far: read together

    def known(self, patch: Patch, first_parent: bool) -> None:
        """What the replay already knows of a patch: its ids are commit ids, and, for a
        commit on its first parent, the merge base is the parent itself."""
        for commit in (patch.base, patch.head):
            self._answers[("resolve", commit)] = commit
        if first_parent:
            self._answers[("merge_base", patch.base, patch.head)] = patch.base

    def _remember(self, key: tuple[Any, ...], ask: Callable[[], T]) -> T:
        if key not in self._answers:
            self._answers[key] = ask()
        answer: T = self._answers[key]  # each key's answer is of the type its question gives
        return answer

    def resolve(self, ref: str) -> str | None:
        return self._remember(("resolve", ref), lambda: super(RememberingCheckout, self).resolve(ref))

    def merge_base(self, base: str, head: str) -> str | None:
        return self._remember(("merge_base", base, head),
                              lambda: super(RememberingCheckout, self).merge_base(base, head))

    def diff(self, start: str, head: str, renames: str = "detect") -> Diff:
        return self._remember(("diff", start, head, renames),
                              lambda: super(RememberingCheckout, self).diff(start, head, renames))

    def read_files(self, commit: str, paths: list[str]) -> dict[str, bytes | None]:
        """Both sides ask for the policy and flaky list of the same base: one git call reads all."""
        held = self._files.setdefault(commit, {})
        self._names.update(paths)
        if any(path not in held for path in paths):
            wanted = sorted(self._names - held.keys())
            try:
                held.update(super().read_files(commit, wanted))
            except BaseFileInvalid:
                # One of the names is not a file there: ask for these names alone, so only
                # a side that reads that name meets the error, as `route` would.
                return super().read_files(commit, paths)
        return {path: held[path] for path in paths}

    def forget(self) -> None:
        """Drop the answers of the patches done (a long history would hold every diff)."""
        self._answers.clear()
