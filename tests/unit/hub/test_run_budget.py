"""`bot.hub.budget`: a run's count of Hub requests, and the allowances carved out of it."""

from __future__ import annotations

from bot.hub.budget import count_request, counting, current


def test_requests_count_in_the_run_open_around_them_only() -> None:
    count_request()  # outside any run: counted nowhere
    with counting() as outer:
        count_request()
        with counting() as inner:
            count_request()
            count_request()
            assert current() is inner
        count_request()
        assert current() is outer
    assert (outer.made, inner.made) == (2, 2)
    assert current().made == 0  # outside a run: a count of its own, nothing spent


def test_an_allowance_counts_from_when_it_is_made() -> None:
    with counting() as calls:
        count_request()
        count_request()  # the run's own calls, before the allowance
        share = calls.allowance(3)
        assert share.affords(3)
        assert not share.affords(4)
        count_request()
        count_request()
        assert share.spent == 2
        assert share.affords(1)
        assert not share.affords(2)
        count_request()
        assert not share.affords(1)
    assert calls.made == 5
