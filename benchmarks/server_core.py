"""The table layer's CPU per move, without sockets: where server_load.py's time goes.

    python benchmarks/server_core.py [--tables 125] [--seconds 20] [--hands 1]
        [--profile PATH]

Runs a `TableManager` on a SQLite store in a temporary directory, in this process,
with four in-process players a table. A player is a subscriber that encodes every
frame it receives as the socket would (`gateway.frames.encode`), so the figure
includes the frames' JSON but not the WebSocket layer; when a frame's view says it
is the player's turn, it plays a random legal move at once. Tables that end are
replaced, so `--tables` tables are always in play.

Prints moves per second, CPU microseconds per move (the process's own CPU time over
the window), and the bytes a move's frames take; `--profile PATH` writes a cProfile
of the window (read it with `python -m pstats PATH`).

Compare its CPU per move with server_load.py's server CPU per move: the difference
is the socket layer (uvicorn, websockets, one send per frame).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import random
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from cirulla.gateway.frames import encode
from cirulla.store import Store
from cirulla.tables.config import TableConfig
from cirulla.tables.errors import TableError
from cirulla.tables.manager import TableManager
from cirulla.tables.patches import apply_changes


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class Player:
    """A seat's client, in-process: the Subscriber protocol plus a move when due."""

    def __init__(self, bench: Bench, user: str) -> None:
        self.bench = bench
        self.user: str | None = user
        self.table = ""
        self.view: dict[str, Any] = {}

    def deliver(self, frame: dict[str, Any]) -> None:
        if self.bench.stopping:
            return
        self.bench.bytes += encode(frame)[1]
        self.bench.frames += 1
        if "changes" in frame:  # docs/protocol.md: the view's changes
            self.view = apply_changes(self.view, frame["changes"])
        elif "view" in frame:
            self.view = frame["view"]
        else:
            return
        view = self.view
        if frame.get("type") != "event":
            return
        if view.get("status") == "finished":
            if view.get("you") == 0:
                self.bench.finished(self.table)
            return
        deal = view.get("deal")
        moves = deal and deal.get("legal_moves")
        if moves:
            move = self.bench.rng.choice(moves)
            self.bench.spawn(self.play(move, view["version"]))

    async def play(self, move: str, version: int) -> None:
        actor = self.bench.manager.get(self.table)
        try:
            await actor.play(self.user or "", move, version)
        except TableError as exc:  # never expected: say so
            self.bench.errors += 1
            print(f"error: {exc.code}: {exc.message}", file=sys.stderr)
            return
        self.bench.moves += 1


class Bench:
    def __init__(self, manager: TableManager, hands: int, seed: int) -> None:
        self.manager = manager
        self.hands = hands
        self.rng = random.Random(seed)
        self.moves = self.frames = self.bytes = self.errors = self.partite = 0
        self.tasks: set[asyncio.Task[None]] = set()
        self.made_users = 0
        self.ended: set[str] = set()
        self.stopping = False

    def spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def new_table(self) -> None:
        config = TableConfig.model_validate(
            {"players": 4, "move_seconds": None, "options": {"hands": self.hands}}
        )
        store = self.manager.store
        users = []
        for _ in range(4):
            self.made_users += 1
            users.append(await store.create_user(f"p{self.made_users}", None, guest=True))
        players = [Player(self, u.id) for u in users]
        actor, _ = await self.manager.opening.create(users[0].id, users[0].name, config, seat=0)
        for p in players:
            p.table = actor.state.id
            await actor.join(p, None)
        for seat in (1, 2, 3):
            await actor.sit(users[seat].id, users[seat].name, seat, True, actor.state.version)

    def finished(self, table: str) -> None:
        if table in self.ended:  # later frames of an ended table say so again
            return
        self.ended.add(table)
        self.partite += 1
        self.spawn(self.new_table())


async def run(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store = await Store.open(f"sqlite+aiosqlite:///{Path(tmp) / 'bench.db'}")
        manager = TableManager(store, bot_delay=0, deal_pause=0)
        bench = Bench(manager, args.hands, args.seed)
        for _ in range(args.tables):
            await bench.new_table()
        gc.collect()
        gc.freeze()
        gc.set_threshold(20_000, 20, 20)  # as `cirulla serve` does
        await asyncio.sleep(args.warmup)
        profile = cProfile.Profile() if args.profile else None
        moves0, frames0, bytes0 = bench.moves, bench.frames, bench.bytes
        partite0, cpu0, t0 = bench.partite, _cpu(), time.monotonic()
        if profile is not None:
            profile.enable()
        await asyncio.sleep(args.seconds)
        if profile is not None:
            profile.disable()
            profile.dump_stats(args.profile)
        moves = bench.moves - moves0
        cpu = _cpu() - cpu0
        wall = time.monotonic() - t0
        frames = bench.frames - frames0
        print(f"tables {args.tables}, hands {args.hands}, window {wall:.1f} s")
        print(f"moves/s            {moves / wall:,.0f}")
        print(f"CPU per move       {cpu / max(moves, 1) * 1e6:,.0f} us")
        print(f"frames per move    {frames / max(moves, 1):.2f}")
        print(f"bytes per move     {(bench.bytes - bytes0) / max(moves, 1):,.0f}")
        print(f"partite ended      {bench.partite - partite0}")
        print(f"errors             {bench.errors}")
        bench.stopping = True
        await asyncio.gather(*bench.tasks, return_exceptions=True)
        for actor in list(manager.tables.values()):
            actor.close()
        await store.close()
        if bench.errors:
            sys.exit(1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=125)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--hands", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profile", type=str, default="")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
