"""HTTP hardening against real `cirulla serve` processes (issue 12, items 3, 4, 8, 13, 15):
rate limits no client can dodge by naming its own address, the per-account slow-down,
new accounts per address, bodies refused before they are read, the browser's security
headers and a page that runs under its policy, the Secure cookie behind a trusted
proxy, a used-up database pool answered 503, and start-up errors told in one line."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import select
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from serverutil import PG_URL, Server, free_port, running_server, throwaway_pg_database

from cirulla.gateway.ratelimit import AccountThrottle

PASSWORD = "correct horse"
MB = 1 << 20


def client(server: Server, address: str = "127.0.0.1", **headers: str) -> httpx.Client:
    """Its own cookie jar, connecting from `address` (all of 127.0.0.0/8 is this machine)."""
    transport = httpx.HTTPTransport(local_address=address)
    return httpx.Client(base_url=server.base_url, transport=transport, timeout=30, headers=headers)


def login(http: httpx.Client, name: str, password: str, **headers: str) -> httpx.Response:
    return http.post("/api/login", json={"name": name, "password": password}, headers=headers)


def code_of(response: httpx.Response) -> str:
    code: str = response.json()["error"]["code"]
    return code


def rss_kib(server: Server) -> int:
    assert server.proc is not None
    status = Path(f"/proc/{server.proc.pid}/status").read_text()
    match = re.search(r"^VmRSS:\s+(\d+) kB", status, re.M)
    assert match, status
    return int(match.group(1))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """Default trust (no proxy): X-Forwarded-For must mean nothing here."""
    with running_server(
        tmp_path_factory.mktemp("http-limits"), login_attempts=5, login_per_account=1000
    ) as s:
        yield s


@pytest.fixture(scope="module")
def proxied(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """Behind a proxy on 127.0.0.1, whose X-Forwarded-For and -Proto are believed."""
    with running_server(
        tmp_path_factory.mktemp("http-proxied"),
        trusted_proxies="127.0.0.1",
        login_attempts=5,
        login_per_account=2,
        login_max_delay=2,
        registrations_per_hour=3,
    ) as s:
        yield s


# ---- item 3: rate limits that cannot be spoofed ----------------------------------------------
def test_forwarded_for_is_believed_only_from_a_trusted_proxy(
    server: Server, proxied: Server
) -> None:
    statuses = []
    with client(server, "127.0.0.1") as http:  # the address uvicorn trusted by default
        for i in range(60):  # every guess claims another address, and another name
            r = login(http, f"victim{i}", "guess-guess", **{"X-Forwarded-For": f"203.0.113.{i}"})
            statuses.append(r.status_code)
    assert statuses[:5] == [401] * 5
    assert statuses[5:] == [429] * 55  # the peer's address is what counts
    with client(server, "127.0.0.12") as http:  # another real address is served as usual
        assert login(http, "victim", "guess-guess").status_code == 401

    with client(proxied, "127.0.0.1") as http:  # through a trusted proxy: its clients count
        for i in range(12):
            r = login(http, f"someone{i}", "guess-guess", **{"X-Forwarded-For": f"198.51.100.{i}"})
            assert r.status_code == 401, r.text
        for i in range(5):
            r = login(http, f"other{i}", "guess-guess", **{"X-Forwarded-For": "198.51.100.200"})
            assert r.status_code == 401
        r = login(http, "other", "guess-guess", **{"X-Forwarded-For": "198.51.100.200"})
        assert (r.status_code, code_of(r)) == (429, "rate_limited")  # that client's limit


def test_failed_logins_on_an_account_slow_down_and_the_owner_still_gets_in(
    proxied: Server,
) -> None:
    via = iter(range(1, 250))

    def attempt(password: str) -> httpx.Response:
        # from a new address each time: the slow-down is per account, whoever tries
        return login(http, "Ornella", password, **{"X-Forwarded-For": f"192.0.2.{next(via)}"})

    def wait_out(r: httpx.Response) -> None:
        assert (r.status_code, code_of(r)) == (429, "rate_limited"), r.text
        wait = int(r.headers["Retry-After"])
        assert 1 <= wait <= 2  # login_max_delay: a slow-down, never a lock-out
        time.sleep(wait + 0.1)

    with client(proxied) as http:
        r = http.post(
            "/api/register",
            json={"name": "Ornella", "password": PASSWORD},
            headers={"X-Forwarded-For": "192.0.2.250"},
        )
        assert r.status_code == 201, r.text
        assert [attempt("wrong one").status_code for _ in range(2)] == [401, 401]
        r = attempt(PASSWORD)  # even the right password must wait now
        wait_out(r)
        assert attempt("wrong again").status_code == 401
        for _ in range(3):  # the wait grows, but never beyond login_max_delay
            r = attempt("wrong again")
            wait_out(r)
            assert attempt("wrong again").status_code == 401
        wait_out(attempt(PASSWORD))
        assert attempt(PASSWORD).status_code == 200  # the owner, after waiting
        # a success clears the count: two free failures again
        assert [attempt("wrong one").status_code for _ in range(2)] == [401, 401]
        assert attempt("wrong one").status_code == 429


def test_new_accounts_per_address_are_limited(proxied: Server) -> None:
    def new(path: str, address: str, name: str = "") -> httpx.Response:
        body = {"name": name, "password": PASSWORD} if name else None
        return http.post(path, json=body, headers={"X-Forwarded-For": address})

    with client(proxied) as http:
        assert new("/api/guest", "100.64.0.1").status_code == 201
        assert new("/api/register", "100.64.0.1", "Primo").status_code == 201
        assert new("/api/guest", "100.64.0.1").status_code == 201
        for r in (new("/api/guest", "100.64.0.1"), new("/api/register", "100.64.0.1", "Sec")):
            assert (r.status_code, code_of(r)) == (429, "rate_limited")
            assert 60 < int(r.headers["Retry-After"]) <= 3600  # an hour's window
        assert new("/api/guest", "100.64.0.2").status_code == 201  # another address


def test_account_throttle_doubles_the_wait_up_to_the_cap_and_forgets() -> None:
    now = [0.0]
    throttle = AccountThrottle(3, 10.0, forget_after=100.0, max_names=50, clock=lambda: now[0])
    assert [throttle.attempt("Anna") for _ in range(3)] == [None, None, None]
    waits = []
    for _ in range(6):
        wait = throttle.attempt("ANNA")  # names are one whatever their case
        assert wait is not None
        waits.append(wait)
        now[0] += wait
        assert throttle.attempt("anna") is None
    assert waits == [1.0, 2.0, 4.0, 8.0, 10.0, 10.0]
    throttle.succeeded("Anna")
    assert throttle.attempt("anna") is None
    now[0] += 200.0
    for i in range(500):  # many names: the memory stays bounded
        throttle.attempt(f"name{i}")
        assert len(throttle) <= 50


# ---- item 8: the cookie's Secure flag behind a trusted proxy ---------------------------------
def secure_flag(response: httpx.Response) -> bool:
    (cookie,) = [c for c in response.headers.get_list("set-cookie") if "cirulla_session=" in c]
    return "secure" in [p.strip().lower() for p in cookie.split(";")]


def test_the_cookie_is_secure_when_a_trusted_proxy_says_https(
    server: Server, proxied: Server
) -> None:
    https = {"X-Forwarded-Proto": "https", "X-Forwarded-For": "100.64.1.1"}
    with client(proxied) as http:
        assert secure_flag(http.post("/api/guest", headers=https))
    with client(proxied) as http:
        plain = {"X-Forwarded-For": "100.64.1.2"}
        assert not secure_flag(http.post("/api/guest", headers=plain))
    with client(server, "127.0.0.13") as http:  # nobody trusted: the header means nothing
        assert not secure_flag(http.post("/api/guest", headers=https))


# ---- item 4: bodies refused before they are read ---------------------------------------------
def read_response(sock: socket.socket, timeout: float) -> tuple[int, bytes]:
    """The status and the raw bytes of one HTTP response (up to its end or a close)."""
    sock.settimeout(timeout)
    data = b""
    with contextlib.suppress(OSError):
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        length = re.search(rb"content-length: (\d+)", head, re.I)
        while length and len(body) < int(length.group(1)):
            chunk = sock.recv(65536)
            if not chunk:
                break
            body += chunk
            data += chunk
    match = re.match(rb"HTTP/1\.1 (\d+)", data)
    assert match, data[:200]
    return int(match.group(1)), data


def post_head(server: Server, extra: str) -> bytes:
    return (
        f"POST /api/login HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
        f"Content-Type: application/json\r\n{extra}\r\n"
    ).encode()


def flood(sock: socket.socket, total: int, chunked: bool) -> int:
    """Send up to `total` bytes of body until the server stops taking them; how many went."""
    piece = b"x" * MB
    if chunked:
        piece = b"%x\r\n" % len(piece) + piece + b"\r\n"
    sent = 0
    sock.settimeout(10)
    with contextlib.suppress(OSError):  # reset or closed by the server: it refused the rest
        while sent < total:
            sock.sendall(piece)
            sent += MB
    return sent


def test_a_200_mb_body_is_refused_with_413_without_being_read(server: Server) -> None:
    before = rss_kib(server)
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", server.port)) as sock:
        sock.sendall(post_head(server, f"Content-Length: {200 * MB}\r\n") + b"x" * 65536)
        status, raw = read_response(sock, 20)  # answered at once, the body still coming
        assert status == 413, raw
        assert b'"body_too_large"' in raw
        flood(sock, 200 * MB, chunked=False)
    assert time.monotonic() - started < 20
    assert rss_kib(server) - before < 40 * 1024  # nothing like the 200 MB sent


def test_a_chunked_body_is_cut_off_once_it_passes_the_limit(server: Server) -> None:
    before = rss_kib(server)
    with socket.create_connection(("127.0.0.1", server.port)) as sock:
        sock.sendall(post_head(server, "Transfer-Encoding: chunked\r\n"))
        piece = b"4000\r\n" + b"x" * 0x4000 + b"\r\n"  # 16 KiB chunks
        answered = False
        for _ in range(64):  # 1 MB at most before the answer
            sock.sendall(piece)
            if select.select([sock], [], [], 0.05)[0]:
                answered = True
                break
        if not answered:
            assert select.select([sock], [], [], 20)[0], "no answer to an endless body"
        status, raw = read_response(sock, 20)
        assert status == 413, raw
        assert b'"body_too_large"' in raw
        flood(sock, 200 * MB, chunked=True)
    assert rss_kib(server) - before < 40 * 1024
    with client(server, "127.0.0.14") as http:  # a body under the limit is read as usual
        assert login(http, "x" * 10, "y" * 20_000).status_code == 401


# ---- item 8: headers, and the pages work under the policy ------------------------------------
def test_every_answer_carries_the_security_headers(server: Server) -> None:
    with client(server, "127.0.0.15") as http:
        for path in ("/", "/lobby", "/static/js/app.js", "/api/me", "/api/tables"):
            r = http.get(path)
            policy = r.headers["Content-Security-Policy"]
            assert "default-src 'self'" in policy and "frame-ancestors 'none'" in policy
            assert "'unsafe-inline'" not in policy and "'unsafe-eval'" not in policy
            assert r.headers["X-Frame-Options"] == "DENY"
            assert r.headers["X-Content-Type-Options"] == "nosniff"
            assert r.headers["Referrer-Policy"] == "same-origin"


def test_the_web_client_runs_under_the_content_security_policy(proxied: Server) -> None:
    from browserutil import chromium_or_skip, page_for

    pw, browser = chromium_or_skip()
    try:  # (on the proxied server: the other's 127.0.0.1 has used up its logins)
        page = page_for(browser, proxied.base_url, viewport={"width": 1280, "height": 900})
        console: list[str] = []
        page.on("console", lambda m: console.append(m.text))
        page.on("pageerror", lambda e: console.append(str(e)))
        page.add_init_script(
            "document.addEventListener('securitypolicyviolation', e =>"
            " console.error('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI));"
        )
        response = page.goto("/")
        assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
        page.get_by_role("button", name=re.compile("ospite|guest", re.I)).click()
        page.wait_for_url("**/lobby")
        page.wait_for_selector(".create-form")
        # online: the WebSocket opened under connect-src 'self'
        page.wait_for_selector('.conn-status[data-status="online"]')
        r = page.request.post(
            "/api/tables", data={"config": {"players": 2, "bots": {"1": "facile"}}, "seat": 0}
        )
        assert r.status == 201, r.text()
        page.goto(f"/table/{r.json()['table']['id']}")  # the table: the cards' SVG faces
        # the faces come from the deck sprite the page carries: <use> of a parsed <symbol>
        page.wait_for_selector(".board .card.face svg.card-art use")
        page.wait_for_load_state("networkidle")
        drawn = page.evaluate(
            """[...document.querySelectorAll('.board .card.face svg.card-art use')].every(u => {
                const s = document.querySelector(u.getAttribute('href'));
                return s && s.tagName === 'symbol' && s.childElementCount > 0
                    && u.getBoundingClientRect().width > 0;
            })"""
        )
        assert drawn, "a card's face was not drawn"
        assert page.evaluate("[...document.images].every(i => i.complete && i.naturalWidth > 0)"), (
            "an image did not load"
        )
        violations = [m for m in console if "Content Security Policy" in m or "CSP" in m]
        assert not violations, violations
    finally:
        browser.close()
        pw.stop()


# ---- item 13: a used-up pool answers 503, and the server recovers ----------------------------
async def _lock_users(url: str, locked: threading.Event, release: threading.Event) -> None:
    import asyncpg
    from sqlalchemy.engine import make_url

    dsn = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    conn = await asyncpg.connect(dsn, timeout=10)
    try:
        async with conn.transaction():
            await conn.execute("LOCK TABLE users IN ACCESS EXCLUSIVE MODE")
            locked.set()
            while not release.is_set():
                await asyncio.sleep(0.05)
    finally:
        await conn.close()


def test_a_used_up_connection_pool_answers_503_with_retry_after(tmp_path: Path) -> None:
    with (
        throwaway_pg_database() as url,
        running_server(
            tmp_path,
            database_url=url,
            db_pool_size=1,
            db_pool_overflow=0,
            db_pool_timeout=0.5,
            login_attempts=10_000,
            registrations_per_hour=10_000,
        ) as server,
    ):
        locked, release = threading.Event(), threading.Event()
        holder = threading.Thread(
            target=asyncio.run, args=(_lock_users(url, locked, release),), daemon=True
        )
        holder.start()
        try:
            assert locked.wait(20)
            stuck: list[httpx.Response] = []
            # this one takes the pool's only connection and waits on the lock
            first = threading.Thread(
                target=lambda: stuck.append(httpx.post(f"{server.base_url}/api/guest", timeout=60))
            )
            first.start()
            time.sleep(1.0)
            answers = []
            for _ in range(4):
                started = time.monotonic()
                r = httpx.post(f"{server.base_url}/api/guest", timeout=30)
                answers.append((r.status_code, time.monotonic() - started))
                assert r.status_code == 503, r.text
                assert code_of(r) == "unavailable"
                assert int(r.headers["Retry-After"]) >= 1
            assert min(t for _, t in answers) < 5  # fails fast, does not wait 30 s
        finally:
            release.set()
            holder.join(20)
        first.join(60)
        assert stuck and stuck[0].status_code == 201  # the waiting one got through
        r = httpx.post(f"{server.base_url}/api/guest", timeout=30)
        assert r.status_code == 201  # and the server recovered
        assert "Traceback" not in server.log()


# ---- item 15: start-up errors ----------------------------------------------------------------
def start_fails(tmp_path: Path, *args: str, **env: str) -> str:
    """Run `cirulla serve` that must not start: its stderr's `error:` line."""
    full = {k: v for k, v in os.environ.items() if not k.startswith("CIRULLA_")}
    full.update({f"CIRULLA_{k.upper()}": v for k, v in env.items()})
    proc = subprocess.run(
        [sys.executable, "-m", "cirulla", "serve", *args],
        env=full,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert proc.returncode != 0, proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.startswith("error: ")]
    assert len(lines) == 1, proc.stderr
    return lines[0]


def test_start_up_errors_say_what_to_fix_in_one_line(tmp_path: Path) -> None:
    a_file = tmp_path / "a-file"
    a_file.write_text("not a directory")
    port = str(free_port())
    line = start_fails(tmp_path, "--port", port, "--data-dir", str(a_file / "data"))
    assert "CIRULLA_DATA_DIR" in line and "a-file" in line
    line = start_fails(
        tmp_path, "--port", port, "--database-url", "postgresql+asyncpg://nobody@127.0.0.1:1/x"
    )
    assert "CIRULLA_DATABASE_URL" in line and "127.0.0.1:1" in line
    line = start_fails(
        tmp_path, "--port", port, "--database-url", PG_URL, "--redis-url", "http://nowhere"
    )
    assert "CIRULLA_REDIS_URL" in line
    broken = tmp_path / "broken"  # found only while the application starts (its lifespan)
    broken.mkdir()
    (broken / "cirulla.db").write_bytes(b"this is not a database, " * 100)
    line = start_fails(tmp_path, "--port", port, "--data-dir", str(broken))
    assert "database" in line and "file is not a database" in line
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        used = str(taken.getsockname()[1])
        line = start_fails(tmp_path, "--port", used, "--data-dir", str(tmp_path / "d"))
    assert "CIRULLA_PORT" in line and used in line
