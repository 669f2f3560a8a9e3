"""Accounts over real HTTP against a `cirulla serve` subprocess: register, login,
logout, guests and claiming them, /me and options, the session cookie, the error
body, and the login rate limit; plus the limiter and password helpers alone."""

from __future__ import annotations

import asyncio
import hashlib
import re
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from argon2 import PasswordHasher
from serverutil import Server, running_server

from cirulla.gateway.security import (
    check_password,
    hash_password,
    needs_rehash,
    new_token,
    token_hash,
    verify_password,
)
from cirulla.store import Store

PASSWORD = "correct horse"
DAY = 86_400


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(tmp_path_factory.mktemp("accounts"), login_attempts=100_000) as s:
        yield s


def client(server: Server, address: str = "127.0.0.1") -> httpx.Client:
    """An HTTP client with its own cookie jar, connecting from `address` (any of
    127.0.0.0/8 is this machine, so the server sees different clients)."""
    transport = httpx.HTTPTransport(local_address=address)
    return httpx.Client(base_url=server.base_url, transport=transport, timeout=20)


def database(server: Server) -> sqlite3.Connection:
    return sqlite3.connect(server.data_dir / "cirulla.db")


def error_of(response: httpx.Response) -> tuple[int, str, str]:
    body = response.json()
    assert set(body) == {"error"}, body
    assert set(body["error"]) == {"code", "message"}, body
    message = body["error"]["message"]
    assert message[:1].isupper() and message.endswith((".", "!", "?")), message
    return response.status_code, body["error"]["code"], message


def session_cookie(response: httpx.Response) -> dict[str, str]:
    """The Set-Cookie header of the session cookie, as attribute -> value."""
    headers = [
        h for h in response.headers.get_list("set-cookie") if h.startswith("cirulla_session")
    ]
    assert len(headers) == 1, response.headers
    parts = [p.strip() for p in headers[0].split(";")]
    out = {}
    for part in parts:
        key, _, value = part.partition("=")
        out[key.lower()] = value
    return out


def me_with(http: httpx.Client, token: str) -> httpx.Response:
    """GET /api/me with this session token instead of the client's own cookie."""
    return http.get("/api/me", headers={"Cookie": f"cirulla_session={token}"})


def register(http: httpx.Client, name: str, password: str = PASSWORD) -> dict[str, Any]:
    r = http.post("/api/register", json={"name": name, "password": password})
    assert r.status_code == 201, r.text
    user: dict[str, Any] = r.json()["user"]
    return user


# ---- register, me, the cookie -----------------------------------------------------------------
def test_register_logs_in_with_a_hashed_session(server: Server) -> None:
    with client(server) as http:
        r = http.post("/api/register", json={"name": "Anna", "password": PASSWORD})
        assert r.status_code == 201
        user = r.json()["user"]
        assert set(user) == {"id", "name", "guest", "bot", "options"}
        assert user["bot"] is False  # a person (docs/bots.md)
        assert user["name"] == "Anna" and user["guest"] is False
        assert user["options"] == {
            "auto_declare": True,
            "deck_style": "french",
            "language": "it",
            "sound": True,
            "volume": 70,
        }
        assert re.fullmatch(r"[0-9a-f]{16}", user["id"])

        cookie = session_cookie(r)
        token = cookie["cirulla_session"]
        assert len(token) >= 43
        assert "httponly" in cookie and "secure" not in cookie
        assert cookie["path"] == "/" and cookie["samesite"].lower() == "lax"
        assert cookie["max-age"] == str(30 * DAY)

        me = http.get("/api/me")
        # the account and its wallet: the welcome grant, nothing held at a cash table
        wallet = {"chips": 1000, "escrow": 0}
        assert me.status_code == 200 and me.json() == {"user": {**user, **wallet}, **wallet}

    with database(server) as db:
        hashes = [row[0] for row in db.execute("SELECT token_hash FROM sessions")]
        assert hashlib.sha256(token.encode()).hexdigest() in hashes
        dump = "\n".join(db.iterdump())
        assert token not in dump  # only the hash of the token is kept
        assert PASSWORD not in dump
        (stored,) = db.execute(
            "SELECT password_hash FROM users WHERE id = ?", (user["id"],)
        ).fetchone()
        assert stored.startswith("$argon2id$")


def test_register_errors(server: Server) -> None:
    with client(server) as http:
        register(http, "Bruno")
        taken = http.post("/api/register", json={"name": "BRUNO", "password": PASSWORD})
        assert error_of(taken)[:2] == (409, "name_taken")
        for name in ["ab", "x" * 21, "has space", "Niccolò", "semi;colon", "", "ospite-1234"]:
            r = http.post("/api/register", json={"name": name, "password": PASSWORD})
            assert error_of(r)[:2] == (422, "invalid_name"), name
        for password in ["short12", "x" * 201]:
            r = http.post("/api/register", json={"name": "Carlo", "password": password})
            status, code, message = error_of(r)
            assert (status, code) == (422, "invalid_password")
            assert "8 to 200" in message
        assert http.post("/api/register", json={"name": "Carlo", "password": "x" * 200}).is_success

        missing = http.post("/api/register", json={"name": "Dario"})
        status, code, message = error_of(missing)
        assert (status, code) == (422, "invalid_request") and "'password'" in message
        wrong_type = http.post("/api/register", json={"name": 5, "password": PASSWORD})
        status, code, message = error_of(wrong_type)
        assert (status, code) == (422, "invalid_request") and "'name'" in message
        garbage = http.post(
            "/api/register", content=b"{not json", headers={"content-type": "application/json"}
        )
        assert error_of(garbage)[:2] == (422, "invalid_request")
        assert http.get("/api/me").status_code == 200  # Carlo is logged in


# ---- login and logout ------------------------------------------------------------------------
def test_login_and_logout(server: Server) -> None:
    with client(server) as first:
        user = register(first, "Elena")
        first_token = first.cookies["cirulla_session"]

    with client(server) as http:
        wrong = http.post("/api/login", json={"name": "Elena", "password": "not it at all"})
        unknown = http.post("/api/login", json={"name": "Nessuno", "password": PASSWORD})
        assert error_of(wrong) == error_of(unknown)  # says nothing of which was wrong
        assert error_of(wrong)[:2] == (401, "wrong_credentials")
        assert "set-cookie" not in wrong.headers

        r = http.post("/api/login", json={"name": "elena", "password": PASSWORD})
        assert r.status_code == 200 and r.json() == {"user": user}
        token = session_cookie(r)["cirulla_session"]
        assert token != first_token
        assert http.get("/api/me").json()["user"]["id"] == user["id"]

        out = http.post("/api/logout")
        assert out.status_code == 204 and out.content == b""
        cleared = session_cookie(out)
        assert cleared["cirulla_session"] in ("", '""') and cleared["max-age"] == "0"
        assert error_of(http.get("/api/me"))[:2] == (401, "not_logged_in")
        # The old token itself is dead, not only forgotten by this client.
        stale = me_with(http, token)
        assert error_of(stale)[:2] == (401, "not_logged_in")
        assert http.post("/api/logout").status_code == 204  # twice is fine
        # The session from the registration is still alive: logins are per browser.
        assert me_with(http, first_token).is_success


def test_login_again_ends_the_previous_session(server: Server) -> None:
    with client(server) as http:
        register(http, "Fabio")
        old = http.cookies["cirulla_session"]
        assert http.post("/api/login", json={"name": "Fabio", "password": PASSWORD}).is_success
        assert http.cookies["cirulla_session"] != old
        assert me_with(http, old).status_code == 401


def test_garbage_and_expired_cookies_are_not_logged_in(server: Server) -> None:
    with client(server) as http:
        user = register(http, "Gina")
    for junk in ["garbage", "x" * 5000, "", "%00%ff"]:
        with client(server) as http:
            r = me_with(http, junk)
            assert error_of(r)[:2] == (401, "not_logged_in"), junk
    token = new_token()
    past = (datetime.now(UTC) - timedelta(minutes=1)).strftime("%Y-%m-%d %H:%M:%S.%f")
    with database(server) as db:
        db.execute(
            "INSERT INTO sessions (token_hash, user_id, created_at, expires_at) VALUES (?,?,?,?)",
            (token_hash(token), user["id"], past, past),
        )
    with client(server) as http:
        r = me_with(http, token)
        assert error_of(r)[:2] == (401, "not_logged_in")
    with database(server) as db:  # and the expired session was cleared away
        assert db.execute(
            "SELECT count(*) FROM sessions WHERE token_hash = ?", (token_hash(token),)
        ).fetchone() == (0,)


# ---- guests -------------------------------------------------------------------------------
def test_guest_then_claim(server: Server) -> None:
    with client(server) as http:
        r = http.post("/api/guest")
        assert r.status_code == 201
        guest = r.json()["user"]
        assert re.fullmatch(r"ospite-\d{4}", guest["name"]) and guest["guest"] is True
        assert "httponly" in session_cookie(r)
        assert http.get("/api/me").json()["user"] == {**guest, "chips": 200, "escrow": 0}
        guest_token = http.cookies["cirulla_session"]

        with client(server) as other:
            assert other.post("/api/guest").json()["user"]["name"] != guest["name"]
        with client(server) as other:
            register(other, "Ivo")

        bad = http.post("/api/claim", json={"name": "x", "password": PASSWORD})
        assert error_of(bad)[:2] == (422, "invalid_name")
        taken = http.post("/api/claim", json={"name": "IVO", "password": PASSWORD})
        assert error_of(taken)[:2] == (409, "name_taken")
        short = http.post("/api/claim", json={"name": "Ilaria", "password": "1234"})
        assert error_of(short)[:2] == (422, "invalid_password")
        assert http.get("/api/me").json()["user"]["guest"] is True

        r = http.post("/api/claim", json={"name": "Ilaria", "password": PASSWORD})
        assert r.status_code == 200
        claimed = r.json()["user"]
        assert claimed["id"] == guest["id"]  # same account: its history stays
        assert claimed["name"] == "Ilaria" and claimed["guest"] is False
        assert session_cookie(r)["cirulla_session"] != guest_token  # a fresh session
        assert me_with(http, guest_token).status_code == 401
        assert http.get("/api/me").json()["user"] == {**claimed, "chips": 200, "escrow": 0}

        again = http.post("/api/claim", json={"name": "Ilaria2", "password": PASSWORD})
        assert error_of(again)[:2] == (409, "not_a_guest")

    with client(server) as http:
        r = http.post("/api/login", json={"name": "ilaria", "password": PASSWORD})
        assert r.json()["user"]["id"] == guest["id"]
    with client(server) as http:
        r = http.post("/api/claim", json={"name": "Lucia", "password": PASSWORD})
        assert error_of(r)[:2] == (401, "not_logged_in")
        # A guest has no password: its name does not log in.
        name = http.post("/api/guest").json()["user"]["name"]
        r = http.post("/api/login", json={"name": name, "password": PASSWORD})
        assert error_of(r)[:2] == (401, "wrong_credentials")


# ---- options ----------------------------------------------------------------------------------
def test_options(server: Server) -> None:
    with client(server) as http:
        assert error_of(http.put("/api/me/options", json={"language": "en"}))[:2] == (
            401,
            "not_logged_in",
        )
        register(http, "Marta")
        r = http.put("/api/me/options", json={"deck_style": "napoletane"})
        assert r.status_code == 200
        assert r.json()["user"]["options"] == {
            "auto_declare": True,
            "deck_style": "napoletane",
            "language": "it",
            "sound": True,
            "volume": 70,
        }
        r = http.put("/api/me/options", json={"language": "en", "auto_declare": False})
        expected = {
            "auto_declare": False,
            "deck_style": "napoletane",
            "language": "en",
            "sound": True,
            "volume": 70,
        }
        assert r.json()["user"]["options"] == expected
        assert http.put("/api/me/options", json={}).json()["user"]["options"] == expected

        for body, named in [
            ({"colour": "red"}, "colour"),
            ({"language": "it", "music": 3}, "music"),  # nothing changes, not even language
            ({"auto_declare": "yes"}, "auto_declare"),
            ({"auto_declare": 1}, "auto_declare"),
            ({"deck_style": "tarocchi"}, "deck_style"),
            ({"language": "fr"}, "language"),
            ({"language": None}, "language"),
        ]:
            r = http.put("/api/me/options", json=body)
            status, code, message = error_of(r)
            assert (status, code) == (422, "invalid_option"), body
            assert f"'{named}'" in message, message
        for body in [["language", "en"], "en", 3]:
            r = http.put("/api/me/options", json=body)
            assert error_of(r)[:2] == (422, "invalid_request"), body
        assert http.get("/api/me").json()["user"]["options"] == expected
        for style in ("french", "piacentine"):
            r = http.put("/api/me/options", json={"deck_style": style})
            assert r.json()["user"]["options"]["deck_style"] == style


def test_unknown_routes_answer_the_error_body(server: Server) -> None:
    with client(server) as http:
        assert error_of(http.get("/api/nothing-here"))[:2] == (404, "not_found")
        assert error_of(http.get("/api/login"))[:2] == (405, "method_not_allowed")


# ---- rate limit and the Secure flag (a server of their own) -----------------------------------
def test_rate_limit_per_address_and_secure_cookie(tmp_path: Path) -> None:
    with running_server(tmp_path, login_attempts=3, secure_cookies=1) as server:
        with client(server) as http:
            r = http.post("/api/register", json={"name": "Nadia", "password": PASSWORD})
            assert r.status_code == 201
            assert "secure" in session_cookie(r)
            for _ in range(2):
                r = http.post("/api/login", json={"name": "Nadia", "password": "wrong password"})
                assert r.status_code == 401
            for path, body in [
                ("/api/login", {"name": "Nadia", "password": PASSWORD}),  # even the right one
                ("/api/register", {"name": "Olga", "password": PASSWORD}),
                ("/api/guest", None),
            ]:
                r = http.post(path, json=body)
                status, code, message = error_of(r)
                assert (status, code) == (429, "rate_limited"), path
                assert 1 <= int(r.headers["retry-after"]) <= 60
                assert r.headers["retry-after"] in message
            assert http.get("/api/me").status_code == 401  # other routes are not limited
        # Another address is served as usual.
        with client(server, "127.0.0.2") as http:
            r = http.post("/api/login", json={"name": "Nadia", "password": PASSWORD})
            assert r.status_code == 200
            assert "secure" in session_cookie(r)
            assert http.post("/api/guest").status_code == 201


# ---- the pieces alone -----------------------------------------------------------------------
def test_passwords() -> None:
    stored = hash_password(PASSWORD)
    assert stored.startswith("$argon2id$") and PASSWORD not in stored
    assert verify_password(stored, PASSWORD)
    assert not verify_password(stored, "wrong")
    assert not verify_password("not a hash", PASSWORD)
    assert not needs_rehash(stored)
    assert needs_rehash(PasswordHasher(time_cost=1, memory_cost=8192).hash(PASSWORD))
    assert token_hash("abc") == hashlib.sha256(b"abc").hexdigest()
    assert new_token() != new_token() and len(new_token()) >= 43


def test_check_password_rehashes_weak_hashes(tmp_path: Path) -> None:
    async def main() -> None:
        store = await Store.open(f"sqlite+aiosqlite:///{tmp_path / 'p.db'}")
        try:
            weak = PasswordHasher(time_cost=1, memory_cost=8192).hash(PASSWORD)
            user = await store.create_user("Pia", weak)
            assert not await check_password(store, user, "wrong")
            assert (await store.get_user(user.id)).password_hash == weak  # type: ignore[union-attr]
            assert await check_password(store, user, PASSWORD)
            renewed = await store.get_user(user.id)
            assert renewed is not None and renewed.password_hash != weak
            assert not needs_rehash(renewed.password_hash or "")
            assert await check_password(store, renewed, PASSWORD)
            assert not await check_password(store, None, PASSWORD)
            guest = await store.create_user("ospite-9", None, guest=True)
            assert not await check_password(store, guest, "")
        finally:
            await store.close()

    asyncio.run(main())
