"""Determinizations drawn from the opponent model's posterior: rejection, and a chain.

`infer=True` keeps a uniform redraw with the probability `PlayEvidence.weight` gives
it, and after `tries` rejected draws keeps the most plausible one (`RejectionSampler`):
with a sharp model that is "the best of twenty", not the posterior. `PosteriorSampler`
draws the posterior itself, whatever its shape, by a Metropolis-Hastings chain over the
hidden cards: a step swaps one card of a hidden hand with another hidden card (in the
deck or another hidden hand), kept with the probability min(1, w'/w) of the hands'
weights. The proposal is symmetric, so the chain's stationary law is the prior (uniform
over consistent deals) times the weights: what the rejection sampler would draw with
unlimited tries. Each sample is `steps` swaps on from the last one, after `burn_in`
from a uniform draw; the deck's order, which no weight reads, is shuffled afresh for
each sample; only the two hands a swap touches are weighed again.

Measured (benchmarks/inference_quality.py, docs/strength.md): with campione's model the
rejection sampler is within half a point of the posterior in the share of hidden cards
it gets right, so campione keeps it; the chain is `sampler="chain"`, for sharper models.
"""

from __future__ import annotations

import random
from typing import Final

from ..cards import Card
from ..deal import Deal
from ..views import visible_hands
from .draws import below, shuffle
from .inference import PlayEvidence

__all__ = ["BURN_IN", "STEPS", "PosteriorSampler", "RejectionSampler"]

#: Swaps tried between two samples: a few per hidden card, so that successive
#: iterations do not search nearly the same hands.
STEPS: Final = 12
#: Swaps tried from the first uniform draw before the first sample.
BURN_IN: Final = 300


class RejectionSampler:
    """Call it for a determinization of `base` for `seat`: a uniform draw of the hidden
    cards kept with the probability `evidence` weighs it; after `tries` rejected draws
    the most plausible of them (`infer`'s sampler).

    A draw shuffles only the cards the hidden hands get (a partial Fisher-Yates over
    all the hidden cards) and weighs those hands before any deal is built; the kept
    draw's undealt rest is shuffled once, and only then copied into a deal. The law is
    a full shuffle's, at a fraction of its cost: most draws are rejected, and the
    weight reads only the hands."""

    __slots__ = (
        "_base",
        "_declared",
        "_evidence",
        "_hands",
        "_hidden",
        "_pool",
        "_rng",
        "_seat",
        "_size",
        "_tries",
    )

    def __init__(
        self, base: Deal, seat: int, evidence: PlayEvidence, rng: random.Random, tries: int
    ) -> None:
        if tries < 1:
            raise ValueError("tries must be >= 1")
        self._base = base
        self._seat = seat
        self._evidence = evidence
        self._rng = rng
        self._tries = tries
        seen = visible_hands(base, seat)
        self._hidden = [s for s in range(base.players) if s not in seen]
        self._declared = [base.declared(s) for s in range(base.players)]
        # the hidden cards: the undealt deck, then each hidden hand's undeclared cards
        pool = list(base._deck)
        self._size: list[int] = []
        for s in self._hidden:
            free = [c for c in base._hands[s] if c not in self._declared[s]]
            pool += free
            self._size.append(len(free))
        self._pool = pool
        self._hands = [list(h) for h in base._hands]  # the seen hands, as they are

    def __call__(self) -> Deal:
        rng = self._rng
        evidence = self._evidence
        declared = self._declared
        hands = list(self._hands)
        best: list[Card] = []
        best_weight = -1.0
        for _ in range(self._tries):
            pool = list(self._pool)
            n = len(pool)
            at = 0
            for s, size in zip(self._hidden, self._size, strict=True):
                for i in range(at, at + size):
                    j = i + below(rng, n - i)
                    pool[i], pool[j] = pool[j], pool[i]
                hands[s] = declared[s] + pool[at : at + size]
                at += size
            weight = evidence.weight_of(hands, declared)
            if weight >= 1.0 or rng.random() < weight:
                return self._deal(pool)
            if weight > best_weight:
                best, best_weight = pool, weight
        return self._deal(best)

    def _deal(self, pool: list[Card]) -> Deal:
        """The deal of a kept draw: its hands, and the rest shuffled as the deck."""
        free: dict[int, list[Card]] = {}
        at = 0
        for s, size in zip(self._hidden, self._size, strict=True):
            free[s] = pool[at : at + size]
            at += size
        deck = pool[at:]
        shuffle(self._rng, deck)
        deal = self._base.copy()
        deal.assign_unseen(self._seat, free, deck)
        return deal


class PosteriorSampler:
    """Call it for a determinization of `base` for `seat`, hidden cards drawn from the
    posterior `evidence` weighs; the chain goes on from one call to the next."""

    __slots__ = (
        "_base",
        "_deck",
        "_declared",
        "_evidence",
        "_free",
        "_movable",
        "_rng",
        "_seat",
        "_steps",
        "_weights",
    )

    def __init__(
        self,
        base: Deal,
        seat: int,
        evidence: PlayEvidence,
        rng: random.Random,
        steps: int = STEPS,
        burn_in: int = BURN_IN,
    ) -> None:
        if steps < 0 or burn_in < 0:
            raise ValueError("steps and burn_in must be >= 0")
        self._base = base
        self._seat = seat
        self._evidence = evidence
        self._rng = rng
        self._steps = steps
        start = base.copy()
        start.redeal_unseen(seat, rng)
        seen = visible_hands(base, seat)
        hidden = [s for s in range(base.players) if s not in seen]
        self._declared: dict[int, list[Card]] = {s: list(start.declared(s)) for s in hidden}
        self._free: dict[int, list[Card]] = {
            s: [c for c in start.hand(s) if c not in self._declared[s]] for s in hidden
        }
        self._deck: list[Card] = list(start._deck)  # the undealt cards, as drawn
        self._movable = [s for s in hidden if self._free[s]]
        self._weights = {s: self._weigh(s, self._free[s]) for s in hidden}
        for _ in range(burn_in):
            self._step()

    def __call__(self) -> Deal:
        for _ in range(self._steps):
            self._step()
        deck = list(self._deck)
        shuffle(self._rng, deck)
        deal = self._base.copy()
        deal.assign_unseen(self._seat, {s: list(f) for s, f in self._free.items()}, deck)
        return deal

    def _weigh(self, seat: int, free: list[Card]) -> float:
        declared = self._declared[seat]
        return self._evidence.hand_weight(seat, declared + free, declared)

    def _step(self) -> None:
        rng = self._rng
        movable = self._movable
        if not movable:
            return
        seat = movable[rng.randrange(len(movable))]
        mine = self._free[seat]
        i = rng.randrange(len(mine))
        deck = self._deck
        others = [t for t in movable if t != seat]
        n = len(deck) + sum(len(self._free[t]) for t in others)
        if n == 0:
            return
        k = rng.randrange(n)
        card = mine[i]
        if k < len(deck):
            moved = [*mine[:i], deck[k], *mine[i + 1 :]]
            w = self._weigh(seat, moved)
            ratio = w / self._weights[seat]
            if ratio >= 1.0 or rng.random() < ratio:
                self._free[seat] = moved
                self._weights[seat] = w
                deck[k] = card
            return
        k -= len(deck)
        for other in others:
            theirs = self._free[other]
            if k < len(theirs):
                break
            k -= len(theirs)
        moved = [*mine[:i], theirs[k], *mine[i + 1 :]]
        swapped = [*theirs[:k], card, *theirs[k + 1 :]]
        w = self._weigh(seat, moved)
        v = self._weigh(other, swapped)
        ratio = (w * v) / (self._weights[seat] * self._weights[other])
        if ratio >= 1.0 or rng.random() < ratio:
            self._free[seat] = moved
            self._free[other] = swapped
            self._weights[seat] = w
            self._weights[other] = v
