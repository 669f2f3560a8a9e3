"""A learned value of a position, for the search's playouts cut at the stage's end
(`ismcts` option `leaf="cut"`; docs/strength.md, 2026-12-05, an eighth, and 2026-12-06).

A playout plays the smazzata to its end as greedy players would; past the stage it is
in, the hands are a guess of the determinization and its greedy play mostly noise.
The cut playout stops where the stage ends and asks this value instead: a linear model
of the position's features, fitted (`benchmarks/value_fit.py weights`) to what the
cheater made from such positions in its own games, one model for each player count.

The cut lands where a stage's hands have just been dealt, and those hands are the
determinization's draw of cards nobody has seen yet, worth points to the value (an ace
in a hand, about two): noise each iteration's value carries. `LeafValue.averaged` values
such a position as the mean over every way the cards not yet played could have been
dealt (`mean_features`), which for a linear value is exact (`leaf="cut_mean"`).

Compiled with the playouts (setup.py): the features are asked once an iteration. The
weights are data (`data/leaf_value.json`), so play needs no numpy.
"""

from __future__ import annotations

import json
from dataclasses import replace
from importlib.resources import files
from typing import Final

from ..cards import Card
from ..deal import Deal
from ..rules import Rules
from ..scoring import ITEMS as SHEET_ITEMS
from ..scoring import score_cards
from .evaluate import CARD_WEIGHT, GRANDE_IDS, PICCOLA_IDS

__all__ = [
    "FEATURES",
    "ITEMS",
    "LIFE",
    "SOURCES",
    "LeafValue",
    "features",
    "groups",
    "leaf_model",
    "life",
    "mean_features",
]

#: The score sheet's items the features give (all but the total), in its order.
ITEMS: Final = tuple(k for k in SHEET_ITEMS if k != "total")
#: What each group of cards contributes (`_group`), in order.
GROUP: Final = (
    "cards",
    "weight",
    "denari",
    "sevens",
    "sixes",
    "aces",
    "settebello",
    "grande_denari",
    "piccola_denari_a23",
    "piccola_denari_456",
    "primiera_sum",
    "primiera_suits",
)
#: The six groups, from the side to move's view.
GROUPS: Final = ("our_pile", "their_pile", "our_hands", "their_hands", "table", "deck")
#: Every feature's name, in `features`' order.
FEATURES: Final = (
    tuple(f"sheet_{k}" for k in ITEMS)
    + tuple(f"{g}_{k}" for g in GROUPS for k in GROUP)
    + ("last_capture", "table_sum", "stages_left", "place_in_round")
)

_DENARI: Final = "D"

#: What the counts above cannot say, from the side to move's view: whether each side's
#: grande and piccola are still alive (the other side holds none of their cards) and
#: with how many cards, whether both are dead, whether a finished piccola can still
#: run on, and whether the cards and denari majorities are won or one card short
#: (`life`; value option "cheater_life"). A linear value of the piles' counts reads two
#: grande cards in a pile as worth the same whether the third can still come or the
#: other side holds it.
LIFE: Final = (
    "grande_ours_alive",
    "grande_ours_alive_two",
    "grande_theirs_alive",
    "grande_theirs_alive_two",
    "grande_dead",
    "piccola_ours_alive",
    "piccola_ours_alive_two",
    "piccola_theirs_alive",
    "piccola_theirs_alive_two",
    "piccola_dead",
    "piccola_ours_runs_on",
    "piccola_theirs_runs_on",
    "cards_won",
    "denari_won",
    "cards_one_short",
    "denari_one_short",
)
#: Card ids (suit times ten plus rank) of the piccola's run, from the ace of denari up.
_RUN_IDS: Final = (0, 1, 2, 3, 4, 5, 6)


def _group(cards: list[Card], row: list[float]) -> None:
    """What a group of cards holds that the score sheet counts, appended to `row`."""
    weight = 0.0
    denari = sevens = sixes = aces = settebello = grande = low = mid = 0
    best = [0, 0, 0, 0]  # the primiera's best card of each suit
    for c in cards:
        weight += CARD_WEIGHT[c.id]
        rank = c.rank
        if rank == "7":
            sevens += 1
        elif rank == "6":
            sixes += 1
        elif rank == "A":
            aces += 1
        if c.suit == _DENARI:
            denari += 1
            if rank == "7":
                settebello = 1
            if rank in "JQK":
                grande += 1
            elif rank in "A23":
                low += 1
            elif rank in "456":
                mid += 1
        s = c.id // 10
        if c.primiera > best[s]:
            best[s] = c.primiera
    suited = 0
    total = 0
    for s in range(4):
        total += best[s]
        if best[s] > 0:
            suited += 1
    row.append(float(len(cards)))
    row.append(weight)
    row.append(float(denari))
    row.append(float(sevens))
    row.append(float(sixes))
    row.append(float(aces))
    row.append(float(settebello))
    row.append(float(grande))
    row.append(float(low))
    row.append(float(mid))
    row.append(float(total))
    row.append(float(suited))


def groups(deal: Deal, us: int) -> list[list[Card]]:
    """The six groups of `GROUPS`, from side `us`'s view (two sides)."""
    ours: list[Card] = []
    theirs: list[Card] = []
    for s, hand in enumerate(deal._hands):
        (ours if deal.side_of(s) == us else theirs).extend(hand)
    return [deal._piles[us], deal._piles[1 - us], ours, theirs, deal._table, deal._deck]


def _held(mask: int, ids: tuple[int, ...]) -> int:
    n = 0
    for i in ids:
        if mask >> i & 1:
            n += 1
    return n


def _run_on(mine: int, other: int, longest: int) -> float:
    """1.0 if `mine` holds a piccola (three or more in a row from the ace) that can still
    grow: its next card is not in the `other` pile and the run is not at its longest."""
    run = 0
    while run < longest and mine >> _RUN_IDS[run] & 1:
        run += 1
    return 1.0 if 3 <= run < longest and not other >> _RUN_IDS[run] & 1 else 0.0


def life(deal: Deal) -> list[float]:
    """`LIFE`'s features for the side to move (two sides): from the piles alone, so
    the same in every determinization."""
    seat = deal.to_move
    assert seat is not None and deal.sides == 2
    us = deal.side_of(seat)
    ours = theirs = 0
    denari_ours = denari_theirs = 0
    for c in deal._piles[us]:
        ours |= c.bit
        if c.id < 10:
            denari_ours += 1
    for c in deal._piles[1 - us]:
        theirs |= c.bit
        if c.id < 10:
            denari_theirs += 1
    row: list[float] = []
    for ids in (GRANDE_IDS, PICCOLA_IDS):
        mine = _held(ours, ids)
        other = _held(theirs, ids)
        alive_ours = mine if other == 0 else 0
        alive_theirs = other if mine == 0 else 0
        row.append(float(alive_ours))
        row.append(1.0 if alive_ours == 2 else 0.0)
        row.append(float(alive_theirs))
        row.append(1.0 if alive_theirs == 2 else 0.0)
        row.append(1.0 if mine and other else 0.0)
    longest = 7 if deal.rules.piccola_to_seven else 6
    row.append(_run_on(ours, theirs, longest))
    row.append(_run_on(theirs, ours, longest))
    n_ours = len(deal._piles[us])
    n_theirs = len(deal._piles[1 - us])
    row.append(float(n_ours >= 21) - float(n_theirs >= 21))
    row.append(float(denari_ours >= 6) - float(denari_theirs >= 6))
    row.append(float(n_ours == 20) - float(n_theirs == 20))
    row.append(float(denari_ours == 5) - float(denari_theirs == 5))
    return row


def _drawn_means(pool: list[Card], draws: list[int]) -> list[list[float]]:
    """What `_group` appends, as its mean over every draw of `n` of `pool`'s cards
    (uniform, without replacement), for each `n` of `draws`: the pool read once."""
    size = len(pool)
    whole: list[float] = []
    _group(pool, whole)
    suits = [sorted((c.primiera for c in pool if c.id // 10 == s), reverse=True) for s in range(4)]
    out: list[list[float]] = []
    for n in draws:
        share = n / size if size else 0.0
        mean = [whole[k] * share for k in range(10)]  # counts and sums: scaled by the share
        total = 0.0
        suited = 0.0
        for values in suits:
            none = 1.0  # the chance that none of the suit's better cards is drawn
            for j, v in enumerate(values):
                # the best card drawn is this one: it drawn, none of the better ones
                total += v * none * n / (size - j)
                none *= (size - n - j) / (size - j)
            suited += 1.0 - none
        mean.append(total)
        mean.append(suited)
        out.append(mean)
    return out


def features(deal: Deal, mean: bool = False) -> list[float]:
    """The position for the side to move (two sides): the score sheet as if the smazzata
    ended now, item by item, and what each pile, each side's hands, the table and the
    deck hold; whose capture is last, the table's sum, the stages left, the mover's place
    in the round (`FEATURES` names them). `mean`: see `mean_features`."""
    seat = deal.to_move
    assert seat is not None and deal.sides == 2
    us = deal.side_of(seat)
    them = 1 - us
    sheet = score_cards(deal.rules, deal._piles, deal._scope, deal._bonus).sides
    ours_sheet = sheet[us]
    theirs_sheet = sheet[them]
    row: list[float] = []
    for k in ITEMS:
        row.append(float(ours_sheet[k] - theirs_sheet[k]))
    cards = groups(deal, us)
    if mean:
        pool = cards[2] + cards[3] + cards[5]
        ours, theirs, deck = _drawn_means(pool, [len(cards[2]), len(cards[3]), len(cards[5])])
        _group(cards[0], row)
        _group(cards[1], row)
        row.extend(ours)
        row.extend(theirs)
        _group(cards[4], row)
        row.extend(deck)
    else:
        for group in cards:
            _group(group, row)
    last = deal.last_capture
    row.append(0.0 if last is None else (1.0 if last == us else -1.0))
    row.append(float(sum(deal._tkey)))
    row.append(float(len(deal._sizes) - 1 - deal._stage))
    # who plays last in the round takes the table's leftovers
    row.append(float((seat - deal._first) % deal.players))
    return row


def mean_features(deal: Deal) -> list[float]:
    """`features` with the hands' and the deck's groups each the mean over every deal of
    their cards (all hands and the deck together, split as they are): for a position
    whose hands were just dealt from cards nobody has seen, what a linear value of it
    is, averaged over what the hands could be. The table, piles and sheet as they are."""
    return features(deal, True)


class LeafValue:
    """A linear value: the side to move's points minus the other side's at the
    smazzata's end, as the cheater would make them from here. Its weights are for
    `FEATURES`, or for `FEATURES` and then `LIFE`."""

    def __init__(self, weights: list[float], intercept: float, mean: bool = False) -> None:
        if len(weights) not in (len(FEATURES), len(FEATURES) + len(LIFE)):
            raise ValueError(
                f"a leaf value takes {len(FEATURES)} weights, or {len(FEATURES) + len(LIFE)}"
                f" with the life features, not {len(weights)}"
            )
        self.weights = [float(w) for w in weights]
        self.intercept = float(intercept)
        #: values the mean over the unseen deal (`mean_features`), not the deal as it is
        self.mean = mean
        #: reads `LIFE` too
        self.life = len(weights) > len(FEATURES)

    def averaged(self) -> LeafValue:
        """The same value, each position's taken as its mean over the hands' deal."""
        return LeafValue(self.weights, self.intercept, True)

    def value(self, deal: Deal) -> float:
        """For the side to move (two sides, the smazzata not over)."""
        row = features(deal, self.mean)
        if self.life:
            row.extend(life(deal))
        total = self.intercept
        for w, f in zip(self.weights, row, strict=True):
            total += w * f
        return total


#: Whose games each value was fitted to (`ismcts` option `value`), and its data file:
#: the cheater's (shipped since 2026-12-05), or campione's own search playing every
#: seat, 600 smazzate at 4 players only (docs/strength.md, 2026-12-06, an eighth): a
#: value of what the search itself makes from a position, not what a player seeing
#: every card makes; or "cheater_life", the cheater's games again with `LIFE` read too
#: (docs/strength.md, 2026-12-07, later).
SOURCES: Final = {
    "cheater": "leaf_value.json",
    "campione": "leaf_value_campione.json",
    "cheater_life": "leaf_value_life.json",
}

#: Each source's fitted preset's rules and its values by player count, read once.
_FITTED: dict[str, tuple[Rules, dict[int, LeafValue]]] = {}


def _fitted(source: str) -> tuple[Rules, dict[int, LeafValue]]:
    if source not in _FITTED:
        name = SOURCES[source]
        data = json.loads((files("cirulla") / "data" / name).read_text())
        if data["features"] not in (list(FEATURES), list(FEATURES) + list(LIFE)):
            raise RuntimeError(f"data/{name} was fitted on other features: refit it")
        if any(len(m["weights"]) != len(data["features"]) for m in data["models"].values()):
            raise RuntimeError(f"data/{name} has weights for other features: refit it")
        leaves = {
            int(n): LeafValue(m["weights"], m["intercept"]) for n, m in data["models"].items()
        }
        _FITTED[source] = (Rules.preset(data["preset"]), leaves)
    return _FITTED[source]


def leaf_model(rules: Rules, players: int, source: str = "cheater") -> LeafValue | None:
    """The value fitted for these rules and this many players, or None where there is
    none (three players, three sides; rules that deal or score a smazzata otherwise than
    the preset fitted; the partita's target and length do not matter). `source`: whose
    games it was fitted to (`SOURCES`); where that source has no model for the player
    count, the cheater's."""
    if source not in SOURCES:
        raise ValueError(f"no value fitted to {source!r} games (values: {', '.join(SOURCES)})")
    preset, leaves = _fitted(source)
    leaf = leaves.get(players)
    if leaf is None:
        return None if source == "cheater" else leaf_model(rules, players)
    same = replace(rules, target=preset.target, hands=preset.hands, knockout=preset.knockout)
    return leaf if same == preset else None
