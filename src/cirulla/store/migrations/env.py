"""Alembic's entry point for the store's migrations.

`Store.open` runs it on a connection it already holds (passed in
`config.attributes["connection"]`); the `alembic` command line, run from this
directory, gets its database from `sqlalchemy.url` or CIRULLA_DATABASE_URL.
"""

from __future__ import annotations

import asyncio
import os

from alembic import context
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import create_async_engine

from cirulla.store.models import Base

config = context.config
target_metadata = Base.metadata


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        # SQLite cannot ALTER most things: later migrations rebuild its tables instead.
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


async def _run_from_url(url: str) -> None:
    engine = create_async_engine(url)
    try:
        async with engine.begin() as connection:
            await connection.run_sync(_run)
    finally:
        await engine.dispose()


def _offline(url: str) -> None:
    context.configure(url=url, target_metadata=target_metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


def main() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    url = config.get_main_option("sqlalchemy.url") or os.environ.get("CIRULLA_DATABASE_URL")
    if not url:
        raise RuntimeError("no database: set sqlalchemy.url or CIRULLA_DATABASE_URL")
    if context.is_offline_mode():
        _offline(url)
    else:
        asyncio.run(_run_from_url(url))


main()
