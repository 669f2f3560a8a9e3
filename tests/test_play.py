"""`cirulla play`: whole partite played by scripted input, bad input, quitting, EOF,
and the screen never showing a card the human seat may not see."""

from __future__ import annotations

import argparse
import io
import json
from collections.abc import Callable, Iterable

import pytest
from conftest import PRESET_PLAYERS, stack
from rich.console import Console

from cirulla import Card, Game, Move, Rules, bots
from cirulla.play import LEVELS, PlaySession, add_cli, level_bot, run_play

MOVE_PROMPT = "Your move"
PAUSE_PROMPT = "next smazzata"
CONFIRM_PROMPT = "Leave the partita?"
SMALL = Rules().replace(target=5)

Hook = Callable[[str], str | None]


class Script:
    """Scripted input: `hook(prompt)` first (None: no opinion), then `answers` in
    order, then `default` for ever (None: end of input). Prompts and answers are
    echoed into the transcript, as a terminal would show them."""

    def __init__(
        self, out: io.StringIO, answers: Iterable[str] = (), default: str | None = "1"
    ) -> None:
        self.out = out
        self.answers = list(answers)
        self.default = default
        self.hook: Hook | None = None
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        answer = self.hook(prompt) if self.hook is not None else None
        if answer is None:
            if self.answers:
                answer = self.answers.pop(0)
            elif self.default is not None:
                answer = self.default
            else:
                self.out.write(prompt + "^D\n")
                raise EOFError
        self.out.write(prompt + answer + "\n")
        return answer


def make(
    players: int = 2,
    seed: int = 1,
    rules: Rules = SMALL,
    answers: Iterable[str] = (),
    default: str | None = "1",
    seat: int = 0,
    bot: str = "greedy",
    game: Game | None = None,
) -> tuple[PlaySession, Script, io.StringIO]:
    out = io.StringIO()
    console = Console(file=out, width=400, color_system=None, force_terminal=False)
    script = Script(out, answers, default)
    session = PlaySession(
        console, script, rules=rules, players=players, seat=seat, bot=bot, seed=seed, game=game
    )
    return session, script, out


def snapshot(session: PlaySession) -> str:
    deal = session.game.deal
    return json.dumps([deal.view(None), len(deal.events), len(session.game.deals)])


# ---- levels ------------------------------------------------------------------------------


def test_levels_map_to_registered_bots() -> None:
    assert LEVELS == ("facile", "normale", "difficile", "campione", "maestro")
    assert level_bot("facile") == bots.LEVELS["facile"].bot
    assert list(LEVELS) == list(bots.LEVELS)
    for level in LEVELS:
        assert level_bot(level) in bots.names()
    with pytest.raises(ValueError, match="unknown level"):
        level_bot("impossibile")


# ---- whole partite -------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "seat"), [(2, 0), (2, 1), (3, 2), (4, 0), (4, 3)])
def test_whole_partita_by_always_answering_1(players: int, seat: int) -> None:
    session, script, out = make(players=players, seat=seat, seed=7)
    chosen: list[tuple[int, int, Move]] = []  # (smazzata, moves before, first legal move)

    def hook(prompt: str) -> str | None:
        if prompt.startswith(MOVE_PROMPT):
            deal = session.game.deal
            assert deal.to_move == seat
            chosen.append((len(session.game.deals) - 1, len(deal.moves), deal.legal_moves()[0]))
        return None

    script.hook = hook
    assert session.run() == 0
    game = session.game
    assert game.is_over and game.winner is not None
    assert chosen, "the human never played"
    for index, before, move in chosen:  # "1" is the first move in the list
        assert game.deals[index].moves[before] == move
    text = out.getvalue()
    assert "Partita over" in text
    assert ("You win!" in text) == (game.winner == session.side)
    if players == 4:
        assert "(partner, greedy)" in text and "(opponent, greedy)" in text


@pytest.mark.parametrize(("preset", "players"), PRESET_PLAYERS)
def test_every_preset_plays_through(preset: str, players: int) -> None:
    rules = Rules.preset(preset).replace(hands=1)
    session, script, out = make(players=players, rules=rules, seed=11, seat=players - 1)
    checks: list[int] = []
    script.hook = _watch_hidden(session, out, checks)  # also with 9-card hands, declarations
    assert session.run() == 0
    assert session.game.is_over and checks
    text = out.getvalue()
    assert f"preset {preset}," in text and "Score sheet · smazzata 1" in text


def test_score_sheet_and_totals_after_each_smazzata() -> None:
    session, _, out = make(players=4, rules=Rules().replace(hands=3), seed=2)
    assert session.run() == 0
    text = out.getvalue()
    game = session.game
    assert len(game.deals) >= 3
    position = 0
    for number in range(1, len(game.deals) + 1):
        start = text.index(f"Smazzata {number} ·", position)
        sheet = text.index(f"Score sheet · smazzata {number}", start)
        totals = text.index(f"Totals after {number} smazzat", sheet)
        for label in ("Scope", "Accusi", "Carte", "Denari", "Settebello", "Primiera", "Total"):
            assert label in text[sheet:totals]
        position = totals
    last_totals = text[position : text.index("Partita over")]
    for total in game.totals:
        assert str(total) in last_totals
    assert "playing 3 smazzate" in text


def test_each_event_is_narrated() -> None:
    """Bots' plays, captures, scope and declarations, the dealer's bonus, misdeals
    and the last cards all appear as they happen."""
    kinds: set[str] = set()
    for players, seed in ((2, 13), (2, 0), (4, 5), (4, 4), (3, 1)):
        session, _, out = make(players=players, seed=seed)
        assert session.run() == 0
        text = out.getvalue()
        for deal in session.game.deals:
            for event in deal.events:
                kinds.add(event["type"])
                if event["type"] == "play" and event["seat"] != session.seat:
                    line = f"Seat {event['seat']} ("
                    cards = " ".join(event["captured"])
                    tail = f" and takes {cards}" if cards else ""
                    assert f"plays {event['card']}{tail}" in text
                    assert line in text
                elif event["type"] == "declare":
                    cards = " ".join(event["cards"])
                    verb = "You declare" if event["seat"] == session.seat else "declares"
                    assert f"{verb} {event['kind']}: {cards}" in text
                    assert f"{event['points']} points." in text
                elif event["type"] == "misdeal":
                    table = " ".join(event["table"])
                    assert f"Misdeal (two or more aces on the table): {table}" in text
                    assert "deals again" in text or "You deal again" in text
                elif event["type"] == "dealer_bonus":
                    assert f"the table as dealer, {' '.join(event['cards'])}" in text
                elif event["type"] == "last_cards":
                    assert f"The cards left on the table, {' '.join(event['cards'])}" in text
        scope = sum(sum(d.scope()) for d in session.game.deals)
        assert text.count("Scopa!") >= scope
    assert {"misdeal", "dealer_bonus", "declare", "last_cards"} <= kinds


# ---- bad input -------------------------------------------------------------------------------


def test_bad_input_gets_a_hint_and_changes_nothing() -> None:
    session, script, out = make(players=2, seed=1)
    bad: list[str] = []
    states: list[str] = []  # at each prompt of the turn with bad input
    prompts: list[str] = []

    def hook(prompt: str) -> str | None:
        if not prompt.startswith(MOVE_PROMPT) or len(states) > len(bad):
            return None
        deal = session.game.deal
        if not bad:
            hand, table = deal.hand(session.seat), deal.table
            legal = {str(m) for m in deal.legal_moves()}
            illegal = [f"{c}x{t}" for c in hand for t in table if f"{c}x{t}" not in legal]
            if not illegal:  # e.g. an empty table: wait for a turn with one
                return None
            bad.extend(["99", "0", "hello", illegal[0], "", "KDxQZ"])
        states.append(snapshot(session))
        prompts.append(prompt)
        return bad[len(states) - 1] if len(states) <= len(bad) else None

    script.hook = hook
    assert session.run() == 0
    assert len(states) == len(bad) + 1
    assert len(set(states)) == 1, "bad input changed the state"
    assert len(set(prompts)) == 1  # the same question, asked again each time
    n = prompts[0].split("(1-")[1].split(",")[0]
    text = out.getvalue()
    hints = {
        "99": f"There is no move 99: choose a number from 1 to {n}.",
        "0": f"There is no move 0: choose a number from 1 to {n}.",
        "hello": "Not a move: bad move 'hello': cards are written as two characters each",
        bad[3]: f"Illegal: {bad[3]}: ",
        "": "Type the number of a move",
        "KDxQZ": "Not a move: bad move 'KDxQZ': bad card 'QZ': unknown suit 'Z'",
    }
    for answer, hint in hints.items():  # each hint comes right after its bad answer
        after = text.split(f"{prompts[0]}{answer}\n", 1)[1]
        assert after.startswith(hint), (answer, after[:200])


def test_help_then_play_on() -> None:
    session, _, out = make(players=2, seed=1, answers=["h", "?"])
    assert session.run() == 0
    text = out.getvalue()
    assert text.count("Type the number of a move in the list") == 2
    assert "J=8, Q=9, K=10" in text and "The matta is 7H" in text


def test_notation_input_in_any_case_and_order() -> None:
    session, script, _ = make(players=2, seed=3)
    played: list[tuple[int, Move]] = []

    def hook(prompt: str) -> str | None:
        if not prompt.startswith(MOVE_PROMPT) or played:
            return None
        deal = session.game.deal
        big = [m for m in deal.legal_moves() if len(m.captured) >= 2]
        if not big:
            return None
        move = big[-1]
        assert move.card is not None
        played.append((len(deal.moves), move))
        # lower case, captured cards in reverse order
        return (str(move.card) + "x" + "".join(str(c) for c in reversed(move.captured))).lower()

    script.hook = hook
    assert session.run() == 0
    assert played, "no capture of two cards came up: pick another seed"
    index, move = played[0]
    assert session.game.deals[0].moves[index] == move


# ---- declarations and the matta ----------------------------------------------------------------


def test_declaration_listed_and_the_mattas_value_shown() -> None:
    rules = Rules.preset("pagat").replace(target=5)  # matta_choice, matta_keeps_value
    deck = stack(
        players=2,
        dealer=1,
        hands=[["7H", "2S", "3S"], ["5S", "6S", "QC"]],
        table=["5C", "4D", "3C", "3H"],  # 15: the dealer takes it, the table is empty
    )
    game = Game(rules, players=2, seed=0, dealer=1, deck=deck)
    session, _, out = make(game=game, answers=["!cirulla:7h2s3s=a", "7H"], default=None)
    assert session.run() == 1  # the input runs out at the third question
    text = out.getvalue()
    assert "the table as dealer, 5C 4D 3C 3H: the table adds up to 15, 1 point." in text
    assert "1. Accuso cirulla: 7H 2S 3S, matta as A (3 points)   !cirulla:7H2S3S=A" in text
    assert "2. Accuso cirulla: 7H 2S 3S, matta as 2 (3 points)" in text
    assert "You declare cirulla: 7H 2S 3S, matta as A, 3 points." in text
    after = text.split("You declare cirulla", 1)[1]
    assert "7H=A 7 of hearts (matta, worth 1)" in after  # in the hand
    assert "2S 2 of spades (declared)" in after
    last_turn = after.split("You play 7H", 1)[1]
    table_line = next(line for line in last_turn.splitlines() if "Table" in line)
    assert "7H=A 7 of hearts (matta, worth 1)" in table_line  # on the table
    assert "End of input" in text


# ---- quitting and end of input -------------------------------------------------------------------


def test_quit_asks_first_and_then_abandons() -> None:
    session, script, out = make(players=2, seed=4)
    states: list[str] = []
    confirmations = iter(["n", "y"])

    def hook(prompt: str) -> str | None:
        if prompt.startswith(MOVE_PROMPT):
            states.append(snapshot(session))
            return "q"
        if prompt.startswith(CONFIRM_PROMPT):
            return next(confirmations)
        return None

    script.hook = hook
    assert session.run() == 0
    assert len(states) == 2 and len(set(states)) == 1  # "q", "n": the same turn again
    game = session.game
    assert game.is_over and game.end_reason == "abandon" and game.winner != session.side
    text = out.getvalue()
    assert "Good, the partita goes on." in text
    assert "Partita abandoned" in text and "You left the partita: seat 1 won it" in text


def test_quit_between_smazzate() -> None:
    session, script, out = make(players=4, seed=2, rules=Rules().replace(hands=2))

    def hook(prompt: str) -> str | None:
        if PAUSE_PROMPT in prompt:
            return "q"
        if prompt.startswith(CONFIRM_PROMPT):
            return "y"
        return None

    script.hook = hook
    assert session.run() == 0
    assert len(session.game.deals) == 1 and session.game.end_reason == "abandon"
    assert "Score sheet · smazzata 1" in out.getvalue()


@pytest.mark.parametrize("answers", [["1", "1"], ["1", "q"], []])
def test_end_of_input_exits_cleanly(answers: list[str]) -> None:
    session, _, out = make(players=3, seed=5, answers=answers, default=None)
    assert session.run() == 1
    assert not session.game.is_over
    assert "End of input: the partita is left unfinished." in out.getvalue()


# ---- hidden cards --------------------------------------------------------------------------------


def _hidden(session: PlaySession) -> set[Card]:
    """Cards in other seats' hands that this seat may not see (declared ones are public)."""
    deal = session.game.deal
    view = deal.view(session.seat)
    hidden: set[Card] = set()
    for entry in view["hands"]:
        seat = entry["seat"]
        if seat != session.seat and "cards" not in entry:
            hidden |= set(deal.hand(seat)) - set(deal.declared(seat))
    return hidden


def _watch_hidden(session: PlaySession, out: io.StringIO, checks: list[int]) -> Hook:
    """A hook that, at each of the human's turns, checks the screen of this smazzata so
    far shows no card of a hidden hand (and does show the human's own cards)."""

    def hook(prompt: str) -> str | None:
        if not prompt.startswith(MOVE_PROMPT):
            return None
        text = out.getvalue()
        number = len(session.game.deals)
        # this smazzata so far; a misdeal's table is reshuffled, so its cards may be anywhere
        shown = text[text.index(f"Smazzata {number} ·") :]
        shown = "\n".join(line for line in shown.splitlines() if "Misdeal" not in line)
        for card in _hidden(session):
            assert str(card) not in shown, f"{card} of a hidden hand is on screen"
            assert card.name() not in shown, f"{card.name()} of a hidden hand is on screen"
        for card in session.game.deal.hand(session.seat):  # the check sees shown cards
            assert str(card) in shown and card.name() in shown
        checks.append(1)
        return None

    return hook


@pytest.mark.parametrize(
    ("players", "seat", "bot", "seed"),
    [(2, 0, "greedy", 13), (2, 1, "random", 8), (3, 1, "greedy", 1), (4, 0, "greedy", 5)]
    + [(4, 2, "random", s) for s in range(3)],
)
def test_the_screen_never_shows_another_seats_hidden_cards(
    players: int, seat: int, bot: str, seed: int
) -> None:
    session, script, out = make(players=players, seat=seat, bot=bot, seed=seed)
    checks: list[int] = []
    script.hook = _watch_hidden(session, out, checks)
    assert session.run() == 0
    assert len(checks) >= 9


# ---- the command line ----------------------------------------------------------------------------


def _parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="cirulla")
    add_cli(parser.add_subparsers(dest="command", required=True))
    return parser.parse_args(["play", *argv])


def test_cli_options() -> None:
    args = _parse()
    assert (args.players, args.preset, args.seat, args.level, args.bot) == (
        2,
        "cirulla",
        0,
        None,
        None,
    )
    assert args.func is run_play
    args = _parse("--players", "4", "--preset", "pagat", "--level", "campione", "--seat", "3")
    assert (args.players, args.preset, args.level, args.seat) == (4, "pagat", "campione", 3)
    args = _parse("--bot", "random", "--seed", "9", "--hands", "2")
    assert (args.bot, args.seed, args.hands, args.target) == ("random", 9, 2, None)
    for bad in (
        ["--target", "5", "--hands", "2"],
        ["--level", "facile", "--bot", "random"],
        ["--players", "5"],
        ["--preset", "nope"],
        ["--level", "impossibile"],
    ):
        with pytest.raises(SystemExit):
            _parse(*bad)


def test_cli_plays_a_partita_on_stdin(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 3000))
    args = _parse("--players", "4", "--level", "facile", "--seed", "3", "--target", "5")
    assert args.func(args) == 0
    out = capsys.readouterr().out
    assert "Seed 3." in out and "Bots: greedy (level facile) at seats 1, 2, 3." in out
    assert "Score sheet · smazzata 1" in out and "Partita over" in out


def test_cli_end_of_input_and_quit(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n"))
    args = _parse("--seed", "3")
    assert args.func(args) == 1
    assert "End of input" in capsys.readouterr().out
    monkeypatch.setattr("sys.stdin", io.StringIO("q\ny\n"))
    assert args.func(args) == 0
    assert "Partita abandoned" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--seat", "2"], "your seat must be 0 to 1"),
        (["--preset", "cirullone", "--players", "2"], "cirullone"),
        (["--bot", "nosuchbot"], "unknown bot"),
        (["--target", "0"], "target"),
    ],
)
def test_cli_bad_options_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    args = _parse(*argv)
    assert args.func(args) == 2
    assert message in capsys.readouterr().err
