"""The `cirulla` command: serve, rules, deal, game, replay, play, arena, tournament, verify,
score."""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from .deal import Deal
from .game import Game
from .record import RecordError, game_record, replay_game
from .rules import PRESETS, Rules
from .terminal import options_table, presets_table, score_table, side_name

__all__ = ["main"]


def _rules(args: argparse.Namespace) -> Rules:
    rules = Rules.preset(args.preset)
    rules.check_players(args.players)
    return rules


def _cmd_rules(args: argparse.Namespace, out: Console) -> int:
    if args.json:
        data = {
            "options": Rules().to_dict(),
            "presets": {name: r.to_dict() for name, r in PRESETS.items()},
        }
        out.print_json(json.dumps(data))
        return 0
    out.print(presets_table())
    out.print(options_table(Rules.preset(args.preset) if args.preset else None))
    return 0


def _play_randomly(deal: Deal, rng: random.Random) -> None:
    while not deal.is_over:
        deal.play(rng.choice(deal.legal_moves()))


def _print_deal(deal: Deal, out: Console) -> None:
    for event in deal.events:
        kind = event["type"]
        if kind == "misdeal":
            out.print(f"misdeal ({event['reason']}): table {' '.join(event['table'])}, re-deal")
        elif kind == "deal":
            hands = "  ".join(f"seat {s}: {' '.join(h)}" for s, h in enumerate(event["hands"]))
            out.print(f"[dim]stage {event['stage'] + 1} dealt[/dim]  {hands}")
            if "table" in event:
                out.print(f"table: {' '.join(event['table'])}")
        elif kind == "dealer_bonus":
            out.print(
                f"dealer (seat {event['seat']}) takes {' '.join(event['cards'])}:"
                f" {event['kind']}, {event['points']} point(s)"
            )
        elif kind == "declare":
            out.print(f"seat {event['seat']} declares {event['move']} ({event['points']} points)")
        elif kind == "play":
            mark = "  [bold]SCOPA[/bold]" if event["scopa"] else ""
            out.print(f"seat {event['seat']}: {event['move']}{mark}")
        elif kind == "pass":
            out.print(f"seat {event['seat']} passes")
        elif kind == "last_cards":
            who = side_name(event["side"], deal.players)
            out.print(f"last cards {' '.join(event['cards'])} to {who}")
        elif kind == "instant_win":
            who = side_name(event["side"], deal.players)
            out.print(f"[bold]{who} wins at once: {event['reason']}[/bold]")
    if deal.is_over:
        out.print(score_table(deal.score(), deal.players))
        if deal.instant_winner is not None:
            out.print(
                f"[bold]{side_name(deal.instant_winner, deal.players)} wins the partita"
                f" at once ({deal.instant_reason})[/bold]"
            )


def _cmd_deal(args: argparse.Namespace, out: Console) -> int:
    rules = _rules(args)
    deal = Deal(rules, players=args.players, dealer=args.dealer % args.players, seed=args.seed)
    _play_randomly(deal, random.Random(args.seed))
    if args.json:
        out.print_json(
            json.dumps(
                {
                    "moves": [str(m) for m in deal.moves],
                    "events": deal.events,
                    "score": deal.score().to_dict(),
                }
            )
        )
    else:
        _print_deal(deal, out)
    return 0


def _cmd_game(args: argparse.Namespace, out: Console) -> int:
    rules = _rules(args)
    game = Game(rules, players=args.players, seed=args.seed)
    rng = random.Random(args.seed)
    while True:
        _play_randomly(game.deal, rng)
        out.print(
            score_table(
                game.deal.score(),
                game.players,
                title=f"Smazzata {len(game.deals)} (dealer seat {game.deal.dealer})",
            )
        )
        out.print(f"totals: {game.totals}")
        if game.is_over:
            break
        game.next_deal()
    assert game.winner is not None
    out.print(f"[bold]{side_name(game.winner, game.players)} wins ({game.end_reason})[/bold]")
    if args.record:
        Path(args.record).write_text(json.dumps(game_record(game), indent=1) + "\n")
        out.print(f"record written to {escape(args.record)}")
    return 0


def _cmd_replay(args: argparse.Namespace, out: Console) -> int:
    try:
        record = json.loads(Path(args.record).read_text())
    except (OSError, json.JSONDecodeError) as exc:
        out.print(
            f"[red]cannot read {escape(args.record)}: {escape(str(exc))}[/red]", soft_wrap=True
        )
        return 2
    try:
        game = replay_game(record)
    except RecordError as exc:
        out.print(f"[red]record rejected: {escape(str(exc))}[/red]", soft_wrap=True)
        return 1
    out.print(
        f"record replays: {len(game.deals)} smazzate, totals {game.totals},"
        f" winner {game.winner} ({game.end_reason})"
    )
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cirulla", description="Cirulla, Cirullone and Scopa.")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("rules", help="presets and rule options, with their defaults")
    p.add_argument("--preset", choices=list(PRESETS), help="show this preset's values")
    p.add_argument("--json", action="store_true", help="print JSON")

    def game_args(p: argparse.ArgumentParser) -> None:
        p.add_argument("--seed", type=int, default=0, help="shuffle and move seed (default 0)")
        p.add_argument("--preset", choices=list(PRESETS), default="cirulla")
        p.add_argument("--players", type=int, choices=(2, 3, 4), default=4)

    p = sub.add_parser("deal", help="play one smazzata with random legal moves")
    game_args(p)
    p.add_argument("--dealer", type=int, default=0)
    p.add_argument("--json", action="store_true", help="print moves, events and score as JSON")

    p = sub.add_parser("game", help="play a whole partita with random legal moves")
    game_args(p)
    p.add_argument("--record", help="write the game record (JSON) to this file")

    p = sub.add_parser("replay", help="replay a game record and check it")
    p.add_argument("record", help="a game record file (JSON)")

    from .analyse_cli import add_cli as add_analyse
    from .bots.arena import add_cli as add_arena
    from .competition.cli import add_cli as add_tournament
    from .competition.ledger_cli import add_cli as add_ledger
    from .play import add_cli as add_play
    from .score_cli import add_cli as add_score
    from .server import add_cli as add_serve
    from .verify import add_cli as add_verify

    add_serve(sub)
    add_verify(sub)
    add_play(sub)
    add_arena(sub)
    add_tournament(sub)
    add_ledger(sub)
    add_score(sub)
    add_analyse(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    out = Console()
    handlers = {"rules": _cmd_rules, "deal": _cmd_deal, "game": _cmd_game, "replay": _cmd_replay}
    if args.command not in handlers:  # subcommands that bring their own handler
        result: int = args.func(args)
        return result
    try:
        return handlers[args.command](args, out)
    except ValueError as exc:
        Console(stderr=True).print(f"[red]error: {escape(str(exc))}[/red]", soft_wrap=True)
        return 2


if __name__ == "__main__":
    sys.exit(main())
