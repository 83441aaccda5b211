"""The router's errors are RouterError subclasses from lanelog.errors, never a bare ValueError."""

from __future__ import annotations

from datetime import date

import pytest

from lanelog.errors import BaseFileInvalid, PlanError, RefInvalid, RepoNameInvalid, RouterError
from lanelog.router import Problem, RouteOptions, route
from lanelog.router.gitfacts import Checkout, check_ref
from lanelog.router.run import check_repo_name


@pytest.mark.parametrize("ref", ["-x", "", "a\nb", "a\x1bb", "x" * 200_000])
def test_a_bad_ref_is_a_router_error_naming_the_rule(ref):
    with pytest.raises(RefInvalid, match="refused ref") as caught:
        RouteOptions(base=ref)
    assert isinstance(caught.value, RouterError) and not isinstance(caught.value, ValueError)
    assert len(str(caught.value)) < 400  # a 200,000-character ref is not echoed whole


def test_a_long_ref_is_refused_before_git_runs(make_repo):
    checkout = Checkout.open(make_repo().root)
    with pytest.raises(RefInvalid):
        checkout.resolve("a" * 200_000)  # git would fail with OSError: Argument list too long
    assert check_ref("main~1^{commit}") == "main~1^{commit}"


def test_an_unknown_reason_and_a_plan_without_reasons_are_plan_errors():
    with pytest.raises(PlanError, match="unknown reject reason"):
        Problem("no_such_reason", "x")
    with pytest.raises(PlanError, match="needs a problem"):
        route(None, date(2026, 10, 8), {}, None)


def test_a_repo_name_that_is_not_utf8_is_a_router_error():
    with pytest.raises(RepoNameInvalid, match="not UTF-8 text"):
        check_repo_name("caf\udce9")


def test_a_policy_path_that_is_a_folder_at_the_base_is_a_router_error(make_repo):
    repo = make_repo({"ci/lanes.yaml/inner.txt": "x\n"})
    checkout = Checkout.open(repo.root)
    base = repo.git("rev-parse", "main").strip()
    with pytest.raises(BaseFileInvalid, match="not a file"):
        checkout.read_files(base, ["ci/lanes.yaml"])
    with pytest.raises(BaseFileInvalid, match="newline"):
        checkout.read_files(base, ["a\nb"])
