"""A whole partita (E1-E5), a best-of-three match (E5), and timeout/abandon (E6).

The partita's state is derived from its smazzate every time it is asked, so it
reflects a finished smazzata at once, even one played through `game.deal`
directly, and can never drift from the deals it is made of.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Literal

from .deal import Deal
from .rules import Rules
from .shuffle import SeededStream

__all__ = ["Forfeit", "Game", "Match", "derived_seed", "forfeit_settlement"]

ForfeitReason = Literal["timeout", "abandon"]
_MAX_SPAREGGI = 3  # E3


@dataclass(frozen=True, slots=True)
class Forfeit:
    """How a partita ended by timeout or abandon is settled (E6).

    `totals` are the final points per side: the finished smazzate, the points
    already made in the current one (scope, accusi), and `credited` points given
    to each opponent. `difference` is the winner's lead over the loser, 0 when the
    loser was still ahead (it loses all the same).
    """

    loser: int
    winner: int
    reason: str
    credited: int
    totals: tuple[int, ...]
    difference: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "loser": self.loser,
            "winner": self.winner,
            "reason": self.reason,
            "credited": self.credited,
            "totals": list(self.totals),
            "difference": self.difference,
        }


def derived_seed(seed: int, purpose: str, index: int) -> int:
    """A 64-bit seed for the index-th `purpose` of a partita or match seeded with `seed`:
    the first 8 bytes, big-endian, of SHA-256("cirulla:{seed}:{purpose}:{index}")."""
    digest = hashlib.sha256(f"cirulla:{seed}:{purpose}:{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def _open_points(rules: Rules) -> int:
    """Points of a smazzata that only the final count awards (S2-S7, SC5)."""
    if rules.is_scopa:
        return 4  # cards, diamonds, settebello, primiera
    grande = 7 if rules.dossena else 5
    piccola = 5 if rules.dossena else (7 if rules.piccola_to_seven else 6)
    return 4 + grande + piccola


def forfeit_settlement(game: Game, side: int, reason: ForfeitReason = "abandon") -> Forfeit:
    """E6: `side` timed out or abandoned; it loses the partita.

    Reading of "every point of the current smazzata not yet won by anyone": the
    card points (cards, diamonds, settebello, primiera, grande, piccola) are only
    awarded by the final count, so none is won yet mid-smazzata; scope and accusi
    already made stay with who made them. Each opponent is credited those points
    plus one scopa, at most 6. With three players the winner is the opponent with
    the most points (on a tie, the first in play order after the loser).
    """
    if not isinstance(side, int) or isinstance(side, bool) or not 0 <= side < game.sides:
        raise ValueError(f"side must be 0 to {game.sides - 1}, not {side!r}")
    if reason not in ("timeout", "abandon"):
        raise ValueError(f"reason must be 'timeout' or 'abandon', not {reason!r}")
    if game.is_over:
        raise ValueError("the partita is already over")
    totals = game.totals
    deal = game.deal
    if not deal.is_over:  # points already made in the smazzata being played
        for s, (scope, bonus) in enumerate(zip(deal.scope(), deal.bonus(), strict=True)):
            totals[s] += scope + bonus
    credited = min(6, _open_points(game.rules) + 1)
    others = [(side + k) % game.sides for k in range(1, game.sides)]
    for s in others:
        totals[s] += credited
    winner = max(others, key=lambda s: (totals[s], -others.index(s)))
    return Forfeit(
        loser=side,
        winner=winner,
        reason=reason,
        credited=credited,
        totals=tuple(totals),
        difference=max(0, totals[winner] - totals[side]),
    )


class Game:
    """A partita: smazzate until a side wins (E1-E4, S8, D7).

    The first dealer is drawn from `seed` unless `dealer` is given; smazzata k
    (0, 1, ...) is shuffled from `derived_seed(seed, "deal", k)` unless `next_deal`
    is given a deck or a seed (a server that commits to its seeds passes them in).
    Deriving each seed from its index, not from a running stream, means a replayed
    partita goes on exactly as the original would have.
    """

    def __init__(
        self,
        rules: Rules,
        players: int = 4,
        seed: int = 0,
        dealer: int | None = None,
        deck: list[Any] | None = None,
        deal_seed: int | None = None,
    ) -> None:
        if not isinstance(rules, Rules):
            raise ValueError(f"rules must be a cirulla.Rules, not {type(rules).__name__}")
        self.rules = rules
        self.players = rules.check_players(players)
        if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
            raise ValueError(f"seed must be a non-negative integer, not {seed!r}")
        self.seed = seed
        if dealer is None:
            dealer = SeededStream(derived_seed(seed, "dealer", 0)).randbelow(self.players)
        elif not isinstance(dealer, int) or isinstance(dealer, bool) or not 0 <= dealer < players:
            raise ValueError(f"dealer must be a seat from 0 to {players - 1}, not {dealer!r}")
        self.first_dealer = dealer
        self.deals: list[Deal] = []
        self._forfeit: Forfeit | None = None
        # _outcome depends only on the finished smazzate: (count, last over) -> outcome
        self._outcome_memo: (
            tuple[tuple[int, bool], tuple[bool, int | None, str | None, int]] | None
        ) = None
        self._new_deal(dealer, deck, deal_seed)

    # ---- smazzate -----------------------------------------------------------------
    @property
    def deal(self) -> Deal:
        """The current smazzata (the last one once the partita is over)."""
        return self.deals[-1]

    @property
    def sides(self) -> int:
        return self.deal.sides

    def _new_deal(self, dealer: int, deck: list[Any] | None, seed: int | None) -> Deal:
        if seed is None:
            seed = derived_seed(self.seed, "deal", len(self.deals))
        deal = Deal(self.rules, self.players, dealer, deck=deck, seed=seed)
        self.deals.append(deal)
        return deal

    def next_deal(self, deck: list[Any] | None = None, seed: int | None = None) -> Deal:
        """Start the next smazzata; the deal passes to the next seat (D3)."""
        if self.is_over:
            raise ValueError("the partita is over")
        if not self.deal.is_over:
            raise ValueError("the current smazzata is not over")
        return self._new_deal((self.deal.dealer + 1) % self.players, deck, seed)

    # ---- the partita's state, derived from its smazzate ---------------------------
    @property
    def totals(self) -> list[int]:
        """Points per side, counting every finished smazzata."""
        totals = [0] * self.sides
        for deal in self.deals:
            if deal.is_over:
                for s, points in enumerate(deal.score().totals):
                    totals[s] += points
        return totals

    @property
    def is_over(self) -> bool:
        return self._outcome()[0]

    @property
    def winner(self) -> int | None:
        return self._outcome()[1]

    @property
    def end_reason(self) -> str | None:
        """Why the partita ended: target, hands, spareggio, last_capture, cappotto,
        luzzati_table, luzzati_three_misdeals, timeout or abandon."""
        return self._outcome()[2]

    @property
    def spareggio(self) -> int:
        """The number of the spareggio being played (E3), 0 when none."""
        return self._outcome()[3]

    @property
    def spareggio_due(self) -> int:
        """The spareggio the finished smazzate call for (E3), 0 when none; unlike
        `spareggio`, still told after a timeout or abandon ended the partita."""
        return self._decide()[3]

    @property
    def forfeit_result(self) -> Forfeit | None:
        return self._forfeit

    def forfeit(self, side: int, reason: ForfeitReason = "abandon") -> Forfeit:
        """End the partita by timeout or abandon of `side` (E6).

        The smazzata being played stops where it stands (`Deal.halt`): it refuses every
        move from now on, so the deal cannot move on once the partita is over."""
        self._forfeit = forfeit_settlement(self, side, reason)
        self.deal.halt(reason)
        return self._forfeit

    def _outcome(self) -> tuple[bool, int | None, str | None, int]:
        """(over, winner, reason, spareggio) from the finished smazzate, in order.

        Made again only when a smazzata ends or starts: a server asks after every move."""
        if self._forfeit is not None:
            return True, self._forfeit.winner, self._forfeit.reason, 0
        key = (len(self.deals), bool(self.deals) and self.deals[-1].is_over)
        memo = self._outcome_memo
        if memo is None or memo[0] != key:
            memo = self._outcome_memo = (key, self._decide())
        return memo[1]

    def _decide(self) -> tuple[bool, int | None, str | None, int]:
        rules = self.rules
        totals = [0] * self.sides
        contenders: list[int] | None = None  # the sides in a knockout tie-break
        spareggio = 0
        for number, deal in enumerate(self.deals, start=1):
            if not deal.is_over:
                break
            points = deal.score().totals
            for s, p in enumerate(points):
                totals[s] += p
            if deal.instant_winner is not None:  # S8 cappotto, D7 Luzzati
                return True, deal.instant_winner, deal.instant_reason, spareggio
            if contenders is not None:  # E3: each spareggio decides by itself
                best = _strict_best(points, contenders)
                if best is not None:
                    return True, best, "spareggio", spareggio
                if spareggio == _MAX_SPAREGGI and deal.last_capture in contenders:
                    rest = [s for s in contenders if s != deal.last_capture]
                    if len(rest) == 1:
                        return True, rest[0], "last_capture", spareggio
                spareggio += 1
                continue
            if rules.hands is not None:
                decided = number >= rules.hands  # E2, then E4: until one side leads
            else:
                decided = max(totals) >= (rules.target or 0)  # E1
            if not decided:
                continue
            best = _strict_best(totals, range(self.sides))
            if best is not None:
                return True, best, "hands" if rules.hands is not None else "target", 0
            if rules.knockout:
                top = max(totals)
                contenders = [s for s in range(self.sides) if totals[s] == top]
                spareggio = 1
        return False, None, None, spareggio

    def __repr__(self) -> str:
        state = f"won by side {self.winner}" if self.is_over else "in play"
        return f"<Game {self.players} players, {len(self.deals)} smazzate, {self.totals}, {state}>"


def _strict_best(points: list[int], among: Any) -> int | None:
    among = list(among)
    top = max(points[s] for s in among)
    best = [s for s in among if points[s] == top]
    return best[0] if len(best) == 1 else None


class Match:
    """Best of three partite (E5): the second is the revenge, a third decides.

    The deal keeps rotating across the partite (D3). With three players the
    first to win two partite wins the match.
    """

    def __init__(self, rules: Rules, players: int = 4, seed: int = 0, wins_needed: int = 2) -> None:
        if not isinstance(wins_needed, int) or isinstance(wins_needed, bool) or wins_needed < 1:
            raise ValueError(f"wins_needed must be a positive whole number, not {wins_needed!r}")
        self.rules = rules
        self.players = rules.check_players(players)
        self.wins_needed = wins_needed
        self.seed = seed
        self.games: list[Game] = [Game(rules, players, seed=derived_seed(seed, "game", 0))]

    @property
    def game(self) -> Game:
        return self.games[-1]

    @property
    def wins(self) -> list[int]:
        wins = [0] * self.game.sides
        for game in self.games:
            if game.is_over and game.winner is not None:
                wins[game.winner] += 1
        return wins

    @property
    def is_over(self) -> bool:
        return max(self.wins) >= self.wins_needed

    @property
    def winner(self) -> int | None:
        wins = self.wins
        return wins.index(max(wins)) if max(wins) >= self.wins_needed else None

    def next_game(self) -> Game:
        if not self.game.is_over:
            raise ValueError("the current partita is not over")
        if self.is_over:
            raise ValueError("the match is over")
        dealer = (self.game.deal.dealer + 1) % self.players
        seed = derived_seed(self.seed, "game", len(self.games))
        self.games.append(Game(self.rules, self.players, seed=seed, dealer=dealer))
        return self.game
