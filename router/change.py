"""Which change an attempt belongs to: its pull request, the agent that opened it, the CI run.

In a forge's CI job these come from what the job tells (router/forges/: under GitHub Actions
the event payload and the run's variables); elsewhere, and to override them, from route's
options.  Each field is absent when unknown, never guessed.  What the environment or the
payload says is checked as it is read: a value that is not well formed leaves its field out
with one note on stderr, and never fails the route (the patch is still bounded and its line
still written).  An option's value is checked by the command line, where a bad one is a usage
error.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from lanelog.errors import FactInvalid
from lanelog.router.forges import Forge, Run, every_forge, job_forge, names_repository, noted


@dataclass(frozen=True)
class ChangeOptions:
    """What route's options say about the change, each already checked; None when not given."""

    pull_request: int | None = None
    repository: str | None = None
    pull_request_url: str | None = None
    agent: str | None = None
    ci_run_url: str | None = None


def attempt_change(given: ChangeOptions, environ: Mapping[str, str] | None = None,
                   notify: Callable[[str], None] = lambda _: None) -> dict[str, Any]:
    """The line's ``pull_request``, ``agent`` and ``ci_run``, each present only when known.

    Raises FactInvalid (a usage error: nothing is routed) for ``--pull-request`` without a
    repository, from ``--repository`` or the CI job (``$GITHUB_REPOSITORY`` under GitHub Actions).
    """
    env = os.environ if environ is None else environ
    here = job_forge(env)
    if given.pull_request is None and (given.repository or given.pull_request_url):
        raise FactInvalid("--repository and --pull-request-url describe a --pull-request N: give it too")
    if given.pull_request is not None and given.repository is None and not names_repository(here, env):
        hints = " or ".join(forge.repository_words for forge in every_forge())
        raise FactInvalid(f"--pull-request needs --repository OWNER/NAME (or {hints})")
    found: dict[str, Any] = {}
    if given.pull_request is not None:
        found["pull_request"] = _given_pull_request(given, here, env, notify)
    wanted = [name for name, known in (("pull_request", given.pull_request), ("agent", given.agent),
                                       ("ci_run", given.ci_run_url)) if known is None]
    told = here.job_change(env, wanted, notify) if here is not None and wanted else None
    if told is not None and told.pull_request is not None:
        found["pull_request"] = told.pull_request.line()
    found["agent"] = given.agent if given.agent is not None else told.agent if told is not None else None
    found["ci_run"] = _run_field(given.ci_run_url, told.ci_run if told is not None else None)
    return {field: value for field, value in found.items() if value is not None}


def ci_run_field(url: str | None, environ: Mapping[str, str], notify: Callable[[str], None]) -> dict[str, Any] | None:
    """A line's ``ci_run``: ``{"url"}`` of ``--ci-run-url``, else in a forge's CI job this run's; a run
    variable that is not well formed leaves it out with a note (it is the runner's, not the patch's)."""
    here = job_forge(environ) if url is None else None
    return _run_field(url, here.job_change(environ, ["ci_run"], notify).ci_run if here is not None else None)


def _run_field(url: str | None, told: Run | None) -> dict[str, Any] | None:
    if url is not None:
        return {"url": url}
    return None if told is None else told.line()


def _given_pull_request(given: ChangeOptions, here: Forge | None, env: Mapping[str, str],
                        notify: Callable[[str], None]) -> dict[str, Any] | None:
    """The pull request the options name; its repository from ``--repository``, else the CI job's."""
    repository = given.repository
    if repository is None and here is not None:
        repository = noted(lambda: here.job_repository(env), "pull_request", notify)
    if repository is None:
        return None
    out: dict[str, Any] = {"repository": repository, "number": given.pull_request}
    if given.pull_request_url is not None:
        out["url"] = given.pull_request_url
    return out
