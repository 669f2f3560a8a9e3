"""Migrations on an existing database: a database made by revision 0002 (before chips,
ratings and profiles), holding an account, a guest and a finished partita, is brought to
the newest revision on SQLite and PostgreSQL without losing a row, and its accounts get
the welcome grant a new account gets, once."""

from __future__ import annotations

import asyncio
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import create_async_engine
from test_store import Backend, backend  # noqa: F401  (the fixture)

from cirulla.store import Store
from cirulla.store.db import MIGRATIONS


def _upgrade_to(connection: Connection, revision: str) -> None:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    command.upgrade(config, revision)


async def _old_database(db: Backend) -> None:
    """The schema of revision 0002, with two accounts in it (as a server of then left it)."""
    kwargs: dict[str, Any] = {}
    if db.schema is not None:
        kwargs["connect_args"] = {"server_settings": {"search_path": db.schema}}
    engine = create_async_engine(db.url, **kwargs)
    try:
        async with engine.begin() as conn:
            await conn.run_sync(_upgrade_to, "0002")
            for uid, name, guest in (("u1", "Anna", False), ("u2", "ospite-7", True)):
                await conn.execute(
                    text(
                        "INSERT INTO users (id, name, name_key, guest, password_hash, options,"
                        " created_at) VALUES (:id, :name, :key, :guest, NULL, '{}',"
                        " '2025-01-01 00:00:00+00')"
                    ),
                    {"id": uid, "name": name, "key": name.lower(), "guest": guest},
                )
    finally:
        await engine.dispose()


def test_an_old_database_is_migrated_without_loss_and_its_accounts_get_chips(
    backend: Backend,  # noqa: F811
) -> None:
    head = ScriptDirectory.from_config(_config()).get_current_head()

    async def main() -> None:
        await _old_database(backend)
        store = await Store.open(backend.url, schema=backend.schema)
        try:
            async with store._engine.connect() as conn:
                version = (
                    await conn.execute(text("SELECT version_num FROM alembic_version"))
                ).all()
            assert version == [(head,)]
            anna, guest = await store.get_user("u1"), await store.get_user("u2")
            assert anna is not None and anna.name == "Anna" and not anna.guest
            assert guest is not None and guest.guest
            assert await store.ledger.balances("u1") == (0, 0)  # nothing before the grant
            assert await store.ledger.grant_missing_welcome(1000, 200) == 2
            assert await store.ledger.balances("u1") == (1000, 0)
            assert await store.ledger.balances("u2") == (200, 0)
            # a second start-up (or a second node) grants nothing more
            assert await store.ledger.grant_missing_welcome(1000, 200) == 0
            assert await store.ledger.balances("u1") == (1000, 0)
            report = await store.ledger.check()
            assert report.problems == []
            assert report.totals["wallets"] == report.totals["grants"] == 1200
        finally:
            await store.close()

    asyncio.run(main())


def _config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config
