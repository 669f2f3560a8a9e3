"""`cirulla play`: a partita in the terminal, one human seat against bots.

The screen is drawn only from the human seat's own view (`deal.view(seat)` and
`deal.events_for(seat)`), so it cannot show a card that seat may not see; the
bots, too, get only their own views (`bots.choose_move`). Input and output are
injected (`PlaySession(console, input_fn)`) so a whole partita can be scripted.
"""

from __future__ import annotations

import argparse
import contextlib
import random
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from . import bots
from .bonuses import bonus_points
from .bots.levels import LEVELS as BOT_LEVELS
from .bots.levels import level_bot as make_level_bot
from .cards import RANKS, Card
from .explain import why_illegal
from .game import Game, derived_seed
from .moves import IllegalMove, Move, parse_move
from .rules import Rules
from .terminal import score_table, side_name

__all__ = [
    "EXIT_DONE",
    "EXIT_EOF",
    "EXIT_INTERRUPTED",
    "LEVELS",
    "PlaySession",
    "add_cli",
    "card_text",
    "cards_text",
    "level_bot",
    "run_play",
]

#: Player levels, easiest first (cirulla.bots.LEVELS says which bot and budget).
LEVELS: Final = tuple(BOT_LEVELS)

#: Exit codes of `PlaySession.run`.
EXIT_DONE: Final = 0  # the partita was played to its end, or the player left it (q)
EXIT_EOF: Final = 1  # the input ran out before the partita ended
EXIT_INTERRUPTED: Final = 130  # Ctrl-C

InputFn = Callable[[str], str]

_MISDEAL_REASONS: Final = {
    "two_aces": "two or more aces on the table",
    "three_of_a_rank": "three cards of one rank on the table",
    "three_kings": "three kings on the table",
}
_DEALER_BONUS: Final = {
    "quindici": "the table adds up to 15",
    "trenta": "the table adds up to 30",
    "nove": "the table adds up to 9 or less",
}
_END_REASONS: Final = {
    "target": "reached the target",
    "hands": "most points after the smazzate agreed",
    "spareggio": "won the spareggio",
    "last_capture": "the other side made the last capture of the third spareggio",
    "cappotto": "cappotto: all ten denari",
    "luzzati_table": "four of a rank (or three and the matta) on the table",
    "luzzati_three_misdeals": "three misdeals in a row by the other side",
    "timeout": "the other side ran out of time",
    "abandon": "the other side abandoned",
}


def level_bot(level: str) -> str:
    """The name of the bot that plays a level."""
    try:
        return BOT_LEVELS[level].bot
    except KeyError:
        raise ValueError(f"unknown level {level!r} (levels: {', '.join(LEVELS)})") from None


def _preset_of(rules: Rules) -> str:
    """The preset these rules are, whatever the end of the partita (target or hands)."""
    for name in Rules.presets():
        if Rules.preset(name).replace(target=rules.target, hands=rules.hands) == rules:
            return name
    return "custom rules"


def _smazzate(n: int) -> str:
    return f"{n} smazzat{'a' if n == 1 else 'e'}"


class _Quit(Exception):
    """The player confirmed leaving the partita."""


class _EndOfInput(Exception):
    """The input ran out (EOF)."""


def card_text(card: Card, matta_value: int | None = None, name: bool = False) -> Text:
    """A card as "QD" (red for diamonds and hearts), "7H=A" while the matta holds a
    declared value, and with its English name when `name`."""
    text = Text(str(card), style="bold red" if card.suit in "DH" else "bold")
    if matta_value is not None:
        text.append(f"={RANKS[matta_value - 1]}", style="bold magenta")
    if name:
        text.append(f" {card.name()}", style="dim")
        if matta_value is not None:
            text.append(f" (matta, worth {matta_value})", style="magenta")
    return text


def cards_text(cards: Sequence[Card | str], sep: str = " ") -> Text:
    """Cards in short notation, e.g. for what a move takes."""
    return Text(sep).join(card_text(Card.parse(c)) for c in cards)


class PlaySession:
    """One partita: a human at `seat`, bots named `bot` at every other seat.

    `input_fn(prompt)` returns a line (raising EOFError at the end of input); by
    default the builtin `input`. Give `game` to play a prepared partita
    (e.g. a stacked deck); otherwise one is made from `rules`, `players`, `seed`.
    """

    def __init__(
        self,
        console: Console,
        input_fn: InputFn | None = None,
        *,
        rules: Rules | None = None,
        players: int = 2,
        seat: int = 0,
        bot: str = "greedy",
        seed: int = 0,
        level: str | None = None,
        game: Game | None = None,
    ) -> None:
        self.console = console
        # The builtin input() (not console.input): readline then knows the prompt, so
        # line editing redraws it.
        self._input: InputFn = input_fn if input_fn is not None else input
        if game is None:
            game = Game(rules if rules is not None else Rules(), players=players, seed=seed)
        self.game = game
        self.players = game.players
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < self.players:
            raise ValueError(f"your seat must be 0 to {self.players - 1}, not {seat!r}")
        self.seat = seat
        self.side = game.deal.side_of(seat)
        self.bot_name = bot
        self.level = level
        self.seed = game.seed
        self.bots: dict[int, bots.Bot] = {}
        for s in range(self.players):
            if s != seat:
                bot_seed = derived_seed(game.seed, "bot", s)
                if level is not None:
                    player = make_level_bot(level, seed=bot_seed)
                else:
                    player = bots.get(bot, seed=bot_seed)
                if isinstance(player, bots.OmniscientBot):
                    raise ValueError(f"bot {bot!r} sees every card: it plays only in the arena")
                self.bots[s] = player
        self._shown = 0  # events of the current smazzata already printed
        self._legal: list[Move] = []
        self._view: dict[str, Any] = {}

    # ---- the loop -----------------------------------------------------------------
    def run(self) -> int:
        """Play the partita to its end; the exit code (EXIT_DONE, EXIT_EOF, EXIT_INTERRUPTED)."""
        try:
            self._intro()
            while True:
                self._play_deal()
                self._after_deal()
                if self.game.is_over:
                    self._announce_end()
                    return EXIT_DONE
                self._pause()
                self.game.next_deal()
        except _Quit:
            self._abandon()
            return EXIT_DONE
        except _EndOfInput:
            self.console.print(
                Text("\nEnd of input: the partita is left unfinished. Ciao!", style="yellow")
            )
            return EXIT_EOF
        except KeyboardInterrupt:
            self.console.print(Text("\nInterrupted: the partita is left unfinished.", "yellow"))
            return EXIT_INTERRUPTED

    def _play_deal(self) -> None:
        game = self.game
        deal = game.deal
        self._shown = 0
        title = f"Smazzata {len(game.deals)} · dealer: {self._who(deal.dealer).lower()}"
        self.console.rule(Text(title, style="bold"))
        self._flush()
        while not deal.is_over:
            seat = deal.to_move
            assert seat is not None
            deal.play(self._ask() if seat == self.seat else self._bot_move(seat))
            self._flush()

    def _bot_move(self, seat: int) -> Move:
        deal = self.game.deal
        if self.console.is_terminal:
            with self.console.status(f"{self._who(seat)} is thinking…"):
                return bots.choose_move(self.bots[seat], deal, seat)
        return bots.choose_move(self.bots[seat], deal, seat)

    def _flush(self) -> None:
        """Print what happened since last time, as this seat saw it."""
        events = self.game.deal.events_for(self.seat)
        for event in events[self._shown :]:
            text = self._event_text(event)
            if text is not None:
                self.console.print(text)
        self._shown = len(events)

    def _read(self, prompt: str) -> str:
        try:
            return self._input(prompt)
        except EOFError:
            raise _EndOfInput from None

    def _confirm_quit(self) -> None:
        answer = self._read("Leave the partita? It counts as abandoning it: you lose. (y/n) ")
        if answer.strip().lower() in ("y", "yes", "s", "si", "sì"):
            raise _Quit
        self.console.print(Text("Good, the partita goes on.", style="green"))

    # ---- the human's turn ---------------------------------------------------------
    def _ask(self) -> Move:
        """Show the state and the legal moves; read until a legal move is given."""
        deal = self.game.deal
        self._view = deal.view(self.seat)
        self._legal = [parse_move(m) for m in self._view["legal_moves"]]
        self.console.print(self._state_panel())
        self._print_moves()
        n = len(self._legal)
        choices = f"1-{n}" if n > 1 else "1"
        prompt = f"Your move ({choices}, notation, h for help, q to quit): "
        while True:
            text = self._read(prompt).strip()
            low = text.lower()
            if low in ("q", "quit", "exit"):
                self._confirm_quit()
                self._print_moves()
                continue
            if low in ("h", "help", "?"):
                self._help()
                self._print_moves()
                continue
            if not text:
                self._hint(f"Type the number of a move (1-{n}), a move like 5Cx7H3C, h or q.")
                continue
            number = text.rstrip(".")
            if number.isascii() and number.isdigit():
                k = int(number)
                if 1 <= k <= n:
                    return self._legal[k - 1]
                self._hint(f"There is no move {k}: choose a number from 1 to {n}.")
                continue
            try:
                move = parse_move(text)
            except IllegalMove as exc:
                self._hint(f"Not a move: {exc}. Type a number from 1 to {n}, or h for help.")
                continue
            for legal in self._legal:
                if legal == move:
                    return legal
            self._hint(f"Illegal: {why_illegal(deal, move, self._legal)}. Choose 1 to {n}.")

    def _hint(self, message: str) -> None:
        self.console.print(Text(message, style="yellow"))

    def _print_moves(self) -> None:
        lines = Text("Your moves:", style="bold")
        for k, move in enumerate(self._legal, start=1):
            lines.append("\n")
            lines.append(f"{k:>3}. ")
            lines.append_text(self._move_text(move))
        self.console.print(lines)

    def _matta_value(self) -> int | None:
        matta = self._view.get("matta")
        return None if not matta else matta.get("value")

    def _card(self, code: str | Card, name: bool = False) -> Text:
        """A card of the current view, with the matta's declared value if it holds one."""
        card = Card.parse(code)
        matta = self.game.rules.matta()
        value = self._matta_value() if card is matta else None
        return card_text(card, value, name)

    def _move_text(self, move: Move) -> Text:
        rules = self.game.rules
        text = Text()
        if move.kind == "declare":
            assert move.bonus is not None
            matta = rules.matta()
            values = [
                move.matta_value if c is matta and move.matta_value else c.value for c in move.cards
            ]
            points = bonus_points(move.bonus, (values[0], values[1], values[2]), rules)
            text.append(f"Accuso {move.bonus}: ", style="bold cyan")
            text.append_text(cards_text(move.cards))
            if move.matta_value is not None:
                text.append(f", matta as {RANKS[move.matta_value - 1]}")
            text.append(f" ({points} point{'s' if points != 1 else ''})")
        elif move.kind == "pass":
            text.append("No accuso (pass)")
        else:
            assert move.card is not None
            text.append_text(self._card(move.card))
            if move.captured:
                text.append(" takes ")
                text.append_text(Text(" ").join(self._card(c) for c in move.captured))
                if len(move.captured) == len(self._view["table"]) and not self._last_play():
                    text.append("  scopa!", style="bold green")
            else:
                text.append(" on the table")
        text.append(f"   {move}", style="dim")
        return text

    def _last_play(self) -> bool:
        view = self._view
        return bool(view["deck"] == 0 and sum(h["count"] for h in view["hands"]) == 1)

    def _state_panel(self) -> Panel:
        view = self._view
        rules = self.game.rules
        grid = Table.grid(padding=(0, 2))
        grid.add_column(style="bold", no_wrap=True)
        grid.add_column()
        table = view["table"]
        if table:
            total = sum(t["value"] for t in table)
            cards = Text("   ").join(self._card(t["card"], name=True) for t in table)
            grid.add_row(f"Table (sum {total})", cards)
        else:
            grid.add_row("Table", Text("empty", style="dim"))
        declared = set(view["hands"][self.seat]["declared"])
        mine = Text("   ").join(
            self._card(c, name=True) + (Text(" (declared)", "cyan") if c in declared else Text())
            for c in view["hand"]
        )
        hand = mine if view["hand"] else Text("empty", style="dim")
        grid.add_row("Your hand", hand)
        for entry in view["hands"]:
            s = entry["seat"]
            if s == self.seat:
                continue
            line = Text(f"{entry['count']} card{'s' if entry['count'] != 1 else ''} in hand")
            if entry["declared"]:
                line.append(", declared: ")
                line.append_text(Text(" ").join(self._card(c) for c in entry["declared"]))
            if entry.get("cards") is not None:  # O1 / O2: shown face up
                line.append(", face up: ")
                line.append_text(Text(" ").join(self._card(c) for c in entry["cards"]))
            grid.add_row(self._who(s), line)
        for pile in view["piles"]:
            side = pile["side"]
            scope = pile["scope"]
            line = Text(f"{pile['count']} cards, {scope} scop{'a' if scope == 1 else 'e'}")
            if not rules.is_scopa:
                line.append(f", accusi {pile['bonus']}")
            if view["last_capture"] == side:
                line.append("  (last capture)", style="dim")
            grid.add_row(f"Pile of {self._side_label(side)}", line)
        stage, stages = view["stage"], view["stages"]
        info = (
            f"stage {stage + 1} of {len(stages)} · mano {view['mano'] + 1} of {stages[stage]}"
            f" · {view['deck']} cards in the deck · dealer: {self._who(view['dealer']).lower()}"
        )
        grid.add_row("", Text(info, style="dim"))
        title = f"Smazzata {len(self.game.deals)} · your turn (seat {self.seat})"
        return Panel(grid, title=Text(title, style="bold"), title_align="left")

    def _help(self) -> None:
        rules = self.game.rules
        matta = rules.matta()
        lines = [
            "Type the number of a move in the list, or the move in notation:",
            "  5C            lay the 5 of clubs on the table",
            "  5Cx7H3C       the 5 of clubs takes 7H and 3C (any order, lower case is fine)",
            "  !cirulla:AS2S3S   declare an accuso (copy it from the list)",
            "  h   this help        q   leave the partita (it counts as abandoning: you lose)",
            "Cards: rank A 2-7 J Q K and suit D (diamonds, denari), H (hearts, coppe),",
            "C (clubs, bastoni), S (spades, spade). Values: A=1, 2-7 as printed, J=8, Q=9, K=10.",
        ]
        if rules.is_scopa:
            lines.append("Captures: a card takes an equal card, or else cards that add up to it.")
        else:
            lines += [
                "Captures: an equal card, cards adding up to the card played, or cards making",
                "15 with it; an ace takes the whole table when no ace is on it. A capture that",
                "empties the table is a scopa (1 point).",
            ]
            if matta is not None:
                lines.append(
                    f"The matta is {matta}: it takes another value only to make an accuso,"
                    " shown as e.g. 7H=A."
                )
        if rules.target is not None:
            lines.append(f"The partita ends when a side reaches {rules.target} points.")
        else:
            lines.append(f"The partita lasts {rules.hands} smazzate.")
        self.console.print(Text("\n".join(lines)))

    # ---- narration ----------------------------------------------------------------
    def _who(self, seat: int) -> str:
        if seat == self.seat:
            return "You"
        role = ""
        if self.players == 4:
            role = "partner, " if seat % 2 == self.seat % 2 else "opponent, "
        return f"Seat {seat} ({role}{self.bot_name})"

    def _does(self, seat: int, verb: str, third: str) -> str:
        return f"{self._who(seat)} {verb if seat == self.seat else third}"

    def _side_label(self, side: int) -> str:
        name = side_name(side, self.players)
        if side == self.side:
            name += " (you)" if self.players != 4 else " (your side)"
        return name

    def _event_text(self, event: Mapping[str, Any]) -> Text | None:
        kind = event["type"]
        text = Text()
        if kind == "deal":
            hand = event["hands"][self.seat] or []
            if "table" in event:
                text.append("Cards dealt. Table: ")
                text.append_text(cards_text(event["table"]) or Text("empty"))
                text.append(" · your hand: ")
            else:
                text.append(f"Stage {event['stage'] + 1}: new cards. Your hand: ")
            text.append_text(cards_text(hand))
            text.append(f" · {event['deck']} cards left in the deck", style="dim")
        elif kind == "misdeal":
            reason = _MISDEAL_REASONS.get(event["reason"], event["reason"])
            text.append(f"Misdeal ({reason}): ", style="yellow")
            text.append_text(cards_text(event["table"]))
            text.append(f". {self._does(event['dealer'], 'deal', 'deals')} again.")
        elif kind == "dealer_bonus":
            text.append(self._does(event["seat"], "take", "takes") + " the table as dealer, ")
            text.append_text(cards_text(event["cards"]))
            text.append(f": {_DEALER_BONUS.get(event['kind'], event['kind'])}")
            if event.get("matta_value"):
                text.append(f" (matta as {RANKS[event['matta_value'] - 1]})")
            points = event["points"]
            text.append(f", {points} point{'s' if points != 1 else ''}.", style="bold")
        elif kind == "declare":
            text.append(self._does(event["seat"], "declare", "declares"), style="bold")
            text.append(f" {event['kind']}: ", style="bold cyan")
            text.append_text(cards_text(event["cards"]))
            if event.get("matta_value"):
                text.append(f", matta as {RANKS[event['matta_value'] - 1]}")
            text.append(f", {event['points']} points.", style="bold")
        elif kind == "play":
            text.append(self._does(event["seat"], "play", "plays") + " ")
            text.append_text(card_text(Card.parse(event["card"])))
            if event["captured"]:
                text.append(" and " + ("take" if event["seat"] == self.seat else "takes") + " ")
                text.append_text(cards_text(event["captured"]))
            if event["scopa"]:
                text.append("  Scopa!", style="bold green")
        elif kind == "pass":
            text.append(self._does(event["seat"], "do not declare", "does not declare") + ".")
        elif kind == "last_cards":
            text.append("The cards left on the table, ")
            text.append_text(cards_text(event["cards"]))
            text.append(f", go to {self._side_label(event['side'])}: the last capture.")
        elif kind == "instant_win":
            reason = _END_REASONS.get(event["reason"], event["reason"])
            text.append(f"{self._side_label(event['side'])} wins the partita at once: {reason}.")
            text.stylize("bold")
        else:
            return None
        return text

    # ---- between and after smazzate -----------------------------------------------
    def _after_deal(self) -> None:
        game = self.game
        deal = game.deal
        number = len(game.deals)
        self.console.print(
            score_table(deal.score(), self.players, title=f"Score sheet · smazzata {number}")
        )
        totals = Table(title=f"Totals after {_smazzate(number)}")
        for side in range(game.sides):
            totals.add_column(self._side_label(side), justify="right")
        totals.add_row(*(str(t) for t in game.totals), style="bold")
        rules = game.rules
        if rules.target is not None:
            totals.caption = f"playing to {rules.target} points"
        else:
            totals.caption = f"playing {rules.hands} smazzate"
        self.console.print(totals)

    def _pause(self) -> None:
        while True:
            text = self._read("Press Enter for the next smazzata (q to quit): ").strip().lower()
            if text in ("q", "quit", "exit"):
                self._confirm_quit()
                continue
            if text in ("h", "help", "?"):
                self._help()
                continue
            return

    def _announce_end(self) -> None:
        game = self.game
        winner = game.winner
        assert winner is not None
        reason = _END_REASONS.get(game.end_reason or "", game.end_reason or "")
        totals = " to ".join(str(t) for t in game.totals)
        self.console.rule(Text("Partita over", style="bold"))
        self.console.print(
            Text(
                f"{side_name(winner, self.players).capitalize()} won the partita after"
                f" {_smazzate(len(game.deals))} ({reason}; points {totals}).",
                style="bold",
            )
        )
        if winner == self.side:
            self.console.print(Text("You win! Complimenti.", style="bold green"))
        else:
            self.console.print(Text("You lose. Better luck next time.", style="bold red"))

    def _abandon(self) -> None:
        result = self.game.forfeit(self.side, "abandon")
        totals = " to ".join(str(t) for t in result.totals)
        self.console.rule(Text("Partita abandoned", style="bold"))
        self.console.print(
            Text(
                f"You left the partita: {side_name(result.winner, self.players)} won it"
                f" (abandon; {result.credited} points credited, points {totals}).",
                style="bold",
            )
        )

    def _intro(self) -> None:
        rules = self.game.rules
        goal = (
            f"to {rules.target} points" if rules.target is not None else f"{rules.hands} smazzate"
        )
        preset = _preset_of(rules)
        who = self.bot_name + (f" (level {self.level})" if self.level else "")
        others = ", ".join(str(s) for s in sorted(self.bots))
        partner = f", partner of seat {(self.seat + 2) % 4}" if self.players == 4 else ""
        lines = [
            f"{rules.game.capitalize()}, preset {preset}, {self.players} players, {goal}.",
            f"Seed {self.seed}. You are seat {self.seat}{partner}.",
            f"Bots: {who} at seat{'s' if len(self.bots) > 1 else ''} {others}.",
            "Type h for help at any prompt.",
        ]
        self.console.print(Text("\n".join(lines)))


# ---- command line -----------------------------------------------------------------
def add_cli(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `cirulla play` to the command's subparsers."""
    p = subparsers.add_parser("play", help="play a partita in the terminal against bots")
    p.add_argument("--players", type=int, choices=(2, 3, 4), default=2)
    p.add_argument("--preset", choices=Rules.presets(), default="cirulla")
    who = p.add_mutually_exclusive_group()
    who.add_argument("--level", choices=LEVELS, help="the bots' level (default normale)")
    who.add_argument("--bot", help=f"a bot by name instead of a level ({', '.join(bots.names())})")
    p.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    p.add_argument("--seed", type=int, help="shuffle and bot seed (default: a random one)")
    end = p.add_mutually_exclusive_group()
    end.add_argument("--target", type=int, help="points that end the partita")
    end.add_argument("--hands", type=int, help="play this many smazzate instead")
    p.set_defaults(func=run_play)


def run_play(args: argparse.Namespace) -> int:
    """The `play` handler: 0 when the partita ends or is left, 1 at end of input,
    2 for bad options."""
    console = Console()
    try:
        rules = Rules.preset(args.preset)
        if args.target is not None:
            rules = rules.replace(target=args.target)
        elif args.hands is not None:
            rules = rules.replace(hands=args.hands)
        level = None if args.bot else (args.level or "normale")
        bot = args.bot or level_bot(level or "normale")
        seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10**6)
        session = PlaySession(
            console,
            rules=rules,
            players=args.players,
            seat=args.seat,
            bot=bot,
            seed=seed,
            level=level,
        )
    except ValueError as exc:
        Console(stderr=True).print(f"[red]error: {escape(str(exc))}[/red]")
        return 2
    if sys.stdin.isatty():
        with contextlib.suppress(ImportError):  # line editing and history for input()
            import readline  # noqa: F401
    return session.run()
