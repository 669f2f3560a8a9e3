"""`cirulla play`: a partita in the terminal, one human seat against bots.

The screen (play_text.py) is drawn only from the human seat's own view (`deal.view(seat)` and
`deal.events_for(seat)`), so it cannot show a card that seat may not see; the
bots, too, get only their own views (`bots.choose_move`). Input and output are
injected (`PlaySession(console, input_fn)`) so a whole partita can be scripted.
"""

from __future__ import annotations

import argparse
import contextlib
import random
import sys
from collections.abc import Callable
from typing import Any, Final

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from . import bots
from .bots.levels import LEVELS as BOT_LEVELS
from .bots.levels import level_bot as make_level_bot
from .explain import why_illegal
from .game import Game, derived_seed
from .moves import IllegalMove, Move, parse_move
from .play_text import END_REASONS, Screen, card_text, cards_text, count_smazzate
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


class _Quit(Exception):
    """The player confirmed leaving the partita."""


class _EndOfInput(Exception):
    """The input ran out (EOF)."""


class PlaySession(Screen):
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

    # ---- between and after smazzate -----------------------------------------------
    def _after_deal(self) -> None:
        game = self.game
        deal = game.deal
        number = len(game.deals)
        self.console.print(
            score_table(deal.score(), self.players, title=f"Score sheet · smazzata {number}")
        )
        totals = Table(title=f"Totals after {count_smazzate(number)}")
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
        reason = END_REASONS.get(game.end_reason or "", game.end_reason or "")
        totals = " to ".join(str(t) for t in game.totals)
        self.console.rule(Text("Partita over", style="bold"))
        self.console.print(
            Text(
                f"{side_name(winner, self.players).capitalize()} won the partita after"
                f" {count_smazzate(len(game.deals))} ({reason}; points {totals}).",
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
