"""The HTTP API fuzzed from its own OpenAPI schema (Schemathesis) against a real server:
whatever a client sends, the answer is never a 5xx, and what the schema declares of a
response holds. Logged in (a cookie), so that the routes behind the login are reached."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from serverutil import Server, running_server

schemathesis = pytest.importorskip("schemathesis")

from schemathesis import GenerationMode  # noqa: E402
from schemathesis.checks import (  # noqa: E402
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
)

#: Routes that make a new session for the browser that calls them: called without our
#: cookie, or they would end the session the other routes are fuzzed with.
NEW_SESSION = frozenset({"/api/register", "/api/login", "/api/guest", "/api/claim"})


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(
        tmp_path_factory.mktemp("openapi-fuzz"),
        login_attempts=1_000_000,
        login_per_account=1_000_000,
        registrations_per_hour=1_000_000,
    ) as s:
        yield s


@pytest.fixture(scope="module")
def cookie(server: Server) -> str:
    r = httpx.post(
        f"{server.base_url}/api/register", json={"name": "fuzzer", "password": "fuzzer-password"}
    )
    assert r.status_code == 201, r.text
    return f"cirulla_session={r.cookies['cirulla_session']}"


def _schema() -> Any:
    """The schema the server publishes at /openapi.json, made without starting one (the
    application opens its store only when it starts) so that each operation is a test."""
    from cirulla.gateway.app import create_app
    from cirulla.settings import Settings

    app = create_app(Settings(test_mode=True))
    loaded = schemathesis.openapi.from_dict(app.openapi())
    loaded.config.generation.update(database="none")
    return loaded.exclude(path="/api/logout")  # it would end the fuzzer's session


schema = _schema()


def test_the_published_schema_is_the_one_fuzzed(server: Server) -> None:
    assert httpx.get(f"{server.base_url}/openapi.json").json() == schema.raw_schema


#: Every operation of the schema, each its own test. Parametrized here rather than by
#: Schemathesis' pytest plugin, whose items all share one node id under pytest 9.2, so
#: that pytest-xdist (`pytest -n 2`) would run one of them and drop the others.
OPERATIONS = [result.ok() for result in schema.get_all_operations()]


@pytest.mark.parametrize("operation", OPERATIONS, ids=lambda operation: operation.label)
def test_no_request_makes_the_server_fail(operation: Any, server: Server, cookie: str) -> None:
    headers = {} if operation.path in NEW_SESSION else {"Cookie": cookie}
    # valid requests and invalid ones (wrong types, missing fields, odd strings)
    cases = st.one_of(*(operation.as_strategy(generation_mode=m) for m in GenerationMode))

    @given(case=cases)
    @settings(
        max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), database=None
    )
    def no_fault(case: Any) -> None:
        case.call_and_validate(
            base_url=server.base_url,
            headers=headers,
            timeout=30,
            checks=[not_a_server_error, response_schema_conformance, content_type_conformance],
        )

    no_fault()


def test_every_operation_is_fuzzed_under_its_own_name() -> None:
    labels = [operation.label for operation in OPERATIONS]
    assert len(labels) == len(set(labels)) > 40
    assert "POST /api/register" in labels and "POST /api/logout" not in labels
