"""The nginx file the README gives operators (deploy/nginx/cirulla.conf) works as it is:
pages over TLS and HTTP/2, the WebSocket through it, a whole move played, and the server
believing the proxy's X-Forwarded-Proto (Secure cookies) as CIRULLA_TRUSTED_PROXIES says.
Run with nginx itself (Debian's nginx-light; .ci/run installs it)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from browserutil import page_opener
from serverutil import Server, running_server
from test_web_table import (
    U1_HANDS,
    U1_TABLE,
    open_table,
    play_by_clicks,
    played,
    stacked_table,
    wait_my_turn,
)

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from nginx_front import NGINX, start_nginx


@pytest.fixture(scope="module")
def fronted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, str]]:
    """A server, and the https address of nginx in front of it."""
    if not Path(NGINX).exists():
        pytest.skip(f"no nginx at {NGINX} (apt-get install -y nginx-light)")
    tmp = tmp_path_factory.mktemp("proxy")
    with running_server(tmp, trusted_proxies="127.0.0.1") as server:
        proc, base = start_nginx(server.base_url.split("//", 1)[1], tmp / "nginx")
        try:
            yield server, base
        finally:
            proc.terminate()
            proc.wait(10)


def test_through_the_proxy_the_cookie_is_secure_and_the_server_answers_as_itself(
    fronted: tuple[Server, str],
) -> None:
    server, base = fronted
    with httpx.Client(base_url=base, verify=False) as client:
        r = client.post("/api/guest")
        assert r.status_code == 201
        # X-Forwarded-Proto: https from a trusted proxy: the session cookie is Secure
        assert "secure" in r.headers["set-cookie"].lower()
        assert client.get("/api/me").json()["user"]["name"] == r.json()["user"]["name"]
        # a body over the server's limit gets the server's own answer, every time (the
        # server would close the connection under nginx's feet: 502, now and then)
        own = httpx.post(f"{server.base_url}/api/guest", content=b"x" * 70_000)
        assert own.status_code == 413
        for _ in range(5):
            big = client.post("/api/guest", content=b"x" * 70_000)
            assert big.status_code == 413 and big.json() == own.json()
        assert client.post("/api/guest", content=b"{}" + b" " * 60_000).status_code == 201
    # straight to the server, the same request is not https: no Secure cookie
    direct = httpx.post(f"{server.base_url}/api/guest")
    assert "secure" not in direct.headers["set-cookie"].lower()


def test_a_table_is_played_in_the_browser_over_http2_and_the_websocket_through_nginx(
    browser: Any, fronted: tuple[Server, str]
) -> None:
    _, base = fronted
    with page_opener(browser, base) as pages:
        page = pages(ignore_https_errors=True)
        protocols: set[str] = set()
        cdp = page.context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.on(
            "Network.responseReceived",
            lambda e: protocols.add(e["response"].get("protocol", "")),
        )
        assert page.request.post("/api/guest").status == 201
        table = stacked_table(page, U1_HANDS, U1_TABLE)
        open_table(page, table)
        assert wait_my_turn(page)  # the view came over the socket, through nginx
        play_by_clicks(page, "4Sx4D7C")
        played(page, table, "4Sx4D7C")  # the move went the other way, and came back
        assert "h2" in protocols and "http/1.1" not in protocols, protocols
