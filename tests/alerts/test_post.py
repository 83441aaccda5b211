"""alerts.post against a real receiver on 127.0.0.1: what it waits between tries, and when it gives up."""

from __future__ import annotations

import pytest

import lanelog.cli.alerts as alerts
from lanelog.errors import AlertError
from tests.alerts.receiver import Answer, echoing_receiver, receiver


def _post(url: str, waits: list[float]) -> None:
    alerts.post(alerts.Receiver(url), {"text": "hello"}, timeout=5, sleep=waits.append)


@pytest.mark.parametrize(("answers", "expected_waits"), [
    ([Answer(429, {"Retry-After": "7"}), Answer(200)], [7.0]),
    ([Answer(503), Answer(502), Answer(200)], [1.0, 2.0]),
    ([Answer(429, {"Retry-After": "999"}), Answer(200)], [alerts.MAX_RETRY_AFTER_S]),
    ([Answer(500, {"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}), Answer(200)], [0.0]),
    ([Answer(500, {"Retry-After": "soon"}), Answer(204)], [1.0]),
])
def test_retries_wait_as_the_receiver_asks_within_a_cap(answers: list[Answer], expected_waits: list[float]) -> None:
    waits: list[float] = []
    with receiver() as hook:
        hook.answers = answers
        _post(hook.url, waits)
        assert len(hook.posts) == len(expected_waits) + 1
    assert waits == expected_waits


def test_three_failures_give_up_without_a_fourth_try() -> None:
    waits: list[float] = []
    with receiver() as hook:
        hook.answers = [Answer(500, {"Retry-After": "0"})]
        with pytest.raises(AlertError, match=r"answered HTTP 500 3 times; gave up"):
            _post(hook.url, waits)
        assert len(hook.posts) == alerts.ATTEMPTS
    assert waits == [0.0, 0.0]


def test_a_redirect_is_a_failed_send_not_followed() -> None:
    with receiver() as hook, receiver("/elsewhere") as other:
        hook.answers = [Answer(307, {"Location": other.url})]
        with pytest.raises(AlertError, match="answered HTTP 307"):
            _post(hook.url, [])
        assert other.posts == []


def test_a_receiver_is_shown_redacted() -> None:
    receiver_ = alerts.Receiver("https://user:pw@hooks.example.com:8443/services/T1/B2/secretTok")
    assert str(receiver_) == f"https://hooks.example.com:8443/… ({receiver_.digest[:12]})"
    assert "secretTok" not in repr(receiver_) and "pw" not in repr(receiver_)


def test_an_answer_that_quotes_the_url_is_named_by_its_kind_not_its_text() -> None:
    # http.client's BadStatusLine quotes the line it got: here the request's, path and secret.
    with echoing_receiver() as url, pytest.raises(AlertError) as raised:
        _post(url, [])
    assert str(raised.value) == (f"receiver {alerts.Receiver(url)}: the answer is not HTTP (BadStatusLine) "
                                 "(timeout 5 s); not sent")
    assert "echoSecret66" not in str(raised.value)


def test_a_refusal_is_named_with_its_status_and_the_first_line_of_its_answer() -> None:
    with receiver() as hook, pytest.raises(AlertError) as raised:
        hook.answers = [Answer(400, body=b"invalid_blocks\nmore detail the error leaves out")]
        _post(hook.url, [])
    assert str(raised.value) == (f"receiver {alerts.Receiver(hook.url)} answered HTTP 400; not sent "
                                 '(the receiver refused the message), its answer: "invalid_blocks"')
    assert len(hook.posts) == 1  # a refusal of the message is not tried again


def test_a_refusal_that_quotes_the_webhook_or_holds_control_characters_shows_neither() -> None:
    with receiver() as hook, pytest.raises(AlertError) as raised:
        hook.answers = [Answer(400, body=b"no_such_hook /services/T0001/B0002/XyZsecretToken42 \x1b[31mred")]
        _post(hook.url, [])
    assert "XyZsecretToken42" not in str(raised.value) and "\x1b" not in str(raised.value)
    assert 'its answer: "no_such_hook /… \\\\x1b[31mred"' in str(raised.value)


def test_a_gone_webhook_is_told_to_check_its_url() -> None:
    with receiver() as hook, pytest.raises(AlertError) as raised:
        hook.answers = [Answer(404, body=b"no_service")]
        _post(hook.url, [])
    assert str(raised.value).endswith('answered HTTP 404; not sent (check the webhook URL), its answer: "no_service"')
