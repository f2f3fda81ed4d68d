"""`bot.web.forward.PageForwarder` on paths its HTTP client refuses to send: the styled error
page (404: no page has such an address), never an exception in the receiver."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from bot.web.forward import PageForwarder

STYLED = '<link rel="stylesheet" href="/static/style.css">'


@pytest.mark.parametrize("path", ["/history/a%00b", "/a%7Fb"])
def test_a_path_the_client_cannot_send_gets_the_styled_404(path: str) -> None:
    # the upstream is never reached: the URL is refused while it is built
    forwarder = PageForwarder("http://127.0.0.1:9", timeout_s=1)
    answer = TestClient(forwarder).get(path)
    assert answer.status_code == 404
    assert STYLED in answer.text
