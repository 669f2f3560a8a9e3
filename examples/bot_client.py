"""A complete bot for a cirulla server, through the bot API (docs/bots.md).

It reads the bot's event stream, accepts every invitation, plays each of its moves
with one of our levels (on the seat's view it receives, nothing more), and, when the
server goes away, connects again and carries on from the table's current version.

    python examples/bot_client.py --server http://127.0.0.1:8000 --token "$TOKEN"

Options: --level (facile, normale, difficile, campione or maestro), --create
'{"players": 2, "bots": {"1": "facile"}}' to open a table of its own, --games N to stop
after N partite.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import httpx

from cirulla.bots import LEVELS, SeatView, level_bot


def run(
    server: str, token: str, level: str, games: int | None, create: dict[str, Any] | None
) -> None:
    bot = level_bot(level)
    api = httpx.Client(base_url=server, headers={"Authorization": f"Bearer {token}"}, timeout=30.0)
    finished: set[str] = set()
    while games is None or len(finished) < games:
        try:
            with api.stream("GET", "/api/bot/stream", timeout=httpx.Timeout(30.0)) as stream:
                stream.raise_for_status()
                for line in stream.iter_lines():
                    frame = json.loads(line)
                    kind = frame["type"]
                    if kind == "welcome":
                        print("connected as", frame["user"]["name"], flush=True)
                        if create is not None:  # once: later connections find it in play
                            api.post("/api/bot/tables", json={"config": create}).raise_for_status()
                            create = None
                    elif kind == "invitation":
                        body = {"invite": frame["invite"], "seat": frame["seat"]}
                        api.post(f"/api/bot/tables/{frame['table']}/sit", json=body)
                    elif kind in ("sync", "event") and "view" in frame:
                        view, deal = frame["view"], frame["view"].get("deal")
                        if view["status"] in ("finished", "closed"):
                            finished.add(frame["table"])
                            if games is not None and len(finished) >= games:
                                return
                        elif deal and deal["to_move"] == deal["seat"] == view["you"]:
                            move = str(bot.choose(SeatView(deal)))
                            action = f"{frame['table']}:{frame['version']}"  # a resend is a repeat
                            body = {"action": action, "version": frame["version"], "move": move}
                            api.post(f"/api/bot/tables/{frame['table']}/move", json=body)
        except httpx.HTTPStatusError as exc:  # 429 and 5xx pass: try again
            if exc.response.status_code < 500 and exc.response.status_code != 429:
                raise SystemExit(f"refused: HTTP {exc.response.status_code}") from None
        except httpx.TransportError:
            pass  # the server restarts, or the network failed: connect again
        print("reconnecting", flush=True)
        time.sleep(1.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", default="http://127.0.0.1:8000")
    parser.add_argument("--token", required=True)
    parser.add_argument("--level", default="normale", choices=list(LEVELS))
    parser.add_argument("--games", type=int, default=None)
    parser.add_argument("--create", type=json.loads, default=None, help="a table config (JSON)")
    args = parser.parse_args()
    run(args.server, args.token, args.level, args.games, args.create)


if __name__ == "__main__":
    main()
