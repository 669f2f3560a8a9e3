"""What `cirulla play` shows: cards, moves, the table and the events of a smazzata, drawn
only from the human seat's own view (`deal.view(seat)`, `deal.events_for(seat)`), so that
the screen cannot show a card that seat may not see."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from rich.console import Console
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from .bonuses import bonus_points
from .cards import RANKS, Card
from .game import Game
from .moves import Move
from .terminal import side_name

__all__ = ["Screen", "card_text", "cards_text"]

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
END_REASONS: Final = {
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


def count_smazzate(n: int) -> str:
    return f"{n} smazzat{'a' if n == 1 else 'e'}"


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


class Screen:
    """The drawing half of `PlaySession` (play.py): the human seat's view as text."""

    console: Console
    game: Game
    players: int
    seat: int
    side: int
    bot_name: str
    _legal: list[Move]
    _view: dict[str, Any]

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
            reason = END_REASONS.get(event["reason"], event["reason"])
            text.append(f"{self._side_label(event['side'])} wins the partita at once: {reason}.")
            text.stylize("bold")
        else:
            return None
        return text
