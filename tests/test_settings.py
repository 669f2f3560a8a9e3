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
