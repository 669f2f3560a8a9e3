"""`cirulla serve`'s settings: environment variables, and refusing bad values up front."""

from __future__ import annotations

import pytest

from cirulla.settings import WS_IMPLS, Settings


def test_ws_impl_defaults_to_sansio_and_takes_the_other_from_the_environment() -> None:
    assert Settings().ws_impl == "websockets-sansio"
    assert Settings.from_env({"CIRULLA_WS_IMPL": "websockets"}).ws_impl == "websockets"
    assert set(WS_IMPLS) == {"websockets-sansio", "websockets"}


def test_an_unknown_ws_impl_is_refused_with_its_name() -> None:
    with pytest.raises(ValueError, match=r"CIRULLA_WS_IMPL must be one of .*'wsproto'"):
        Settings.from_env({"CIRULLA_WS_IMPL": "wsproto"})


def test_a_bad_number_names_its_variable() -> None:
    with pytest.raises(ValueError, match="CIRULLA_DEAL_PAUSE"):
        Settings.from_env({"CIRULLA_DEAL_PAUSE": "soon"})


def test_trusted_proxies_take_addresses_and_networks_and_refuse_anything_else() -> None:
    env = {"CIRULLA_TRUSTED_PROXIES": "10.0.0.1, 192.168.0.0/16"}
    assert Settings.from_env(env).trusted_proxies == ("10.0.0.1", "192.168.0.0/16")
    assert Settings().trusted_proxies == ()  # nobody's forwarded headers are believed
    with pytest.raises(ValueError, match=r"CIRULLA_TRUSTED_PROXIES: 'proxy\.example'"):
        Settings.from_env({"CIRULLA_TRUSTED_PROXIES": "proxy.example"})


@pytest.mark.parametrize(
    "name", ["MAX_BODY", "OUTBOX_BYTES", "SOCKETS_PER_USER", "OPEN_TABLES_PER_USER"]
)
def test_a_limit_of_zero_or_less_is_refused_with_its_variable(name: str) -> None:
    with pytest.raises(ValueError, match=f"CIRULLA_{name} must be more than 0"):
        Settings.from_env({f"CIRULLA_{name}": "0"})
    with pytest.raises(ValueError, match=f"CIRULLA_{name} must be more than 0"):
        Settings.from_env({f"CIRULLA_{name}": "-5"})


def test_bot_workers_zero_means_one_per_core_and_a_negative_count_is_refused() -> None:
    assert Settings().bot_workers == 0
    with pytest.raises(ValueError, match="CIRULLA_BOT_WORKERS"):
        Settings.from_env({"CIRULLA_BOT_WORKERS": "-1"})
