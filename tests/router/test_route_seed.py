"""The seed's Step 5 tests, verbatim, against the real route(); and the table's invariants."""

from datetime import date, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from lanelog.router import SEED_POLICY, PatchFacts, Problem, route


def test_live_freeze_keeps_credit_at_zero():
    facts = PatchFacts(
        lines_changed=40,
        files=['store.py'],
        assertion_deletions=0,
        flaky_ids=['test_export_race'],
    )
    expiry = {'test_export_race': date(2026, 10, 22)}
    plan = route(facts, date(2026, 10, 8), expiry)
    assert plan.probe == 'pass'
    assert plan.properties == ['prop_round_trip', 'prop_idempotent_put']
    assert plan.quarantine == ['test_export_race']
    assert plan.model_call_allowed is True
    assert plan.merge_credit == 0


def test_mixed_fixture_edit_never_arms_a_call():
    facts = PatchFacts(
        lines_changed=20,
        files=['fixtures/order.fixture.json', 'tests/test_order.py'],
        assertion_deletions=0,
        flaky_ids=[],
    )
    plan = route(facts, date(2026, 10, 8), {})
    assert plan.probe == 'reject'
    assert plan.model_call_allowed is False
    assert plan.merge_credit == 0


PATHS = st.sampled_from([
    "store.py", "api.py", "src/store.py", "README.md", "fixtures/a.json", "b.fixture.json",
    "tests/test_api.py", "test_x.py", "generated/big.py", "poetry.lock", "src/latest_rates.py",
])
TEST_IDS = st.sampled_from(["test_export_race", "test_clock", "test_other"])


@settings(max_examples=300, deadline=None)
@given(
    lines=st.integers(0, 900),
    files=st.lists(PATHS, max_size=6),
    deletions=st.integers(0, 2),
    flaky=st.lists(TEST_IDS, max_size=3),
    offsets=st.dictionaries(TEST_IDS, st.integers(-3, 3)),
    reasons=st.lists(st.sampled_from(["flaky_invalid", "policy_changed"]), max_size=1),
)
def test_no_row_promotes_a_quarantine_into_merge_credit(lines, files, deletions, flaky,
                                                         offsets, reasons):
    today = date(2026, 10, 8)
    expiry = {test_id: today + timedelta(days=days) for test_id, days in offsets.items()}
    facts = PatchFacts(lines, files, deletions, flaky)
    plan = route(facts, today, expiry, SEED_POLICY,
                 problems=[Problem(reason, "given") for reason in reasons])
    assert plan.merge_credit == 0
    assert plan.review == "pending"
    assert plan.model_call_allowed is (plan.probe == "pass")
    if plan.probe == "reject":
        assert plan.reasons and plan.properties == [] and plan.quarantine == []
    else:
        assert plan.reasons == [] and plan.properties
        assert len(plan.properties) == len(set(plan.properties))
        assert plan.units <= SEED_POLICY.budget_cap and lines <= SEED_POLICY.line_cap
        live = [t for t in flaky if t in expiry and today <= expiry[t]]
        assert plan.quarantine == list(dict.fromkeys(live))
    assert not set(plan.expired_freezes) & set(plan.quarantine)
