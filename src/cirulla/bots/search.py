"""Search bots: `pimc` (determinized rollouts), `ismcts` (information-set Monte Carlo
tree search, single observer) and `cheater` (the same tree search seeing every card).

All three look ahead on deals of their own: `determinize` builds one consistent
with the bot's view, `Deal.redeal_unseen` re-draws its hidden cards for each
iteration. Playouts to the end of the smazzata follow a cheap greedy policy with
some randomness (epsilon), and a result is the score difference of the bot's
side for the smazzata, as the issue asks. The loops themselves are in playouts.py
(compiled with mypyc in the compiled build); the bots here set them up.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping
from typing import Any, Final

from ..deal import Deal
from ..determinize import determinize
from ..moves import Move
from .base import Bot, Budget, SeatView, choose_move
from .endgame import (
    SAMPLED_DEALS,
    hidden_stage,
    known_deal,
    sampled_stage,
    sampled_worths,
    solve,
    worth,
)
from .expert import ExpertBot, expert_opinion
from .inference import (
    MISSED_BONUS,
    MISSED_CAPTURE,
    MISSED_GREEDY,
    MISSED_SCOPA,
    SEARCHER_FACTORS,
    SEARCHER_SURPRISE,
    PlayEvidence,
)
from .ismcts_options import THREATS, IsmctsOptions
from .leafvalue import LeafValue, leaf_model
from .playouts import (
    DEFAULT_EPSILON,
    REWARD_SCALE,
    Clock,
    most_visited,
    playout,
    reward,
    ucb_search,
    ucb_visits,
)
from .policies import LIVE
from .posterior import PosteriorSampler, RejectionSampler
from .rootpool import search_in_parallel

#: The log-odds for "a searcher" an opponent's finished stages must give before
#: `endgame="searchers"` solves against it: more than one play surprising for a greedy
#: player can give (`inference.SEARCHER_SURPRISE`): over 60 smazzate of campione
#: against normale, normale's stages gave at most +0.54 and campione's more than 2.6 in
#: 41; at 0, the solve played against normale now and then and lost to it there
#: (docs/strength.md, 2026-12-07, a fifth).
SEARCHER_ODDS: Final = SEARCHER_SURPRISE
#: Draws a sample may take before the most plausible one so far is kept (`infer`).
INFER_TRIES: Final = 20
_EXPERT: Final = ExpertBot()


def _expert_move(deal: Deal) -> Move:
    """The expert's move for the seat to move, from that seat's view of `deal`."""
    return choose_move(_EXPERT, deal)


__all__ = ["IsmctsBot", "playout", "reward"]


class IsmctsBot(Bot):
    """Single-observer information-set MCTS: one tree over the bot's information set,
    a fresh determinization of the hidden cards at every iteration.

    `infer=True` keeps a determinization with the probability the opponent model of
    `inference.py` gives it (what the others' plays revealed), instead of uniformly.
    `workers > 1` runs that many independent searches, each with the whole budget and
    its own seed, in worker processes (root parallelism) and plays the move with the
    most root visits summed over them.

    Options of the 2026-11-27 session (docs/strength.md; campione's are in
    `levels.CAMPIONE_OPTIONS`): `missed_*` set the opponent model's factors
    (`inference.PlayEvidence`; `missed_greedy` and `missed_bonus` model greedy players
    who always declare); `threats` how the playouts judge sweep risks (`THREATS`);
    `expand="policy"` grows the policy's move at a node rather than a random one;
    `others="policy"` plays the other sides' moves in the tree by the policy; `trees=N`
    searches N determinizations apart, each seeing every card, and adds their visits;
    `sampler="chain"` draws `infer`'s determinizations by a Metropolis chain, "auto" by
    the chain at 2 players and by rejection at more (`ismcts_options.SAMPLERS`);
    `infer_partner=False` leaves the partner's plays out of the opponent model, which
    models greedy players and so misreads a partner who searches; `others_epsilon`
    gives the other sides their own epsilon in the tree and the playouts (0: the
    greedy policy always, as greedy players play); `adapt=True` gives the model's
    searcher factors (`inference.SEARCHER_FACTORS`) to a seat whose plays in the
    smazzata's finished stages, their hands now known, skipped greedy's play more often
    than a greedy player does; `mixture=True` weighs every hidden seat as a greedy
    player or a searcher, even odds before its finished stages tell; `playout="expert"`
    plays the playouts by the expert (`ismcts_options.PLAYOUTS`; docs/strength.md, 2026-12-04, an
    eighth: no gain at equal iterations, 20 times the cost); `softmax=[beta, eps]` reads
    the others' plays of the stage by a softmax over greedy's scores of their hands'
    plays, mixed with a uniform choice of weight eps, in place of the factors of
    capture, scopa and greedy (`inference.PlayEvidence`, `benchmarks/policy_fit.py`);
    with `adapt`, only for the seats its finished stages show to be searchers;
    `others_beta` (with `others="policy"`) draws the other sides' moves in the tree by
    that softmax of greedy's scores, at this beta, in place of greedy's best;
    `others_threats` (with `others="policy"`) judges the other sides' tree moves' sweep
    risks its own way (`THREATS`; "lookahead": their best play less the next player's
    best reply, a sharper opponent than greedy), the playouts still by `threats`;
    `leaf="cut"` stops each playout at the end of its stage and scores the rest by the
    value learned from the cheater's games (`leafvalue`, `ismcts_options.LEAVES`), at
    the player counts `cut_players` names (all, when None); `leaf="cut_mean"` the same,
    each value the mean over the hands the cut finds just dealt; `cut_within` k plays on
    past stage ends until the value has at most k stages left to score; `value` whose
    games the cut's value was fitted to, and on which features (`leafvalue.SOURCES`;
    "cheater_life" reads whether each grande and piccola can still be made too); `live`:
    the greedy policy of the playouts and of the others' tree moves weighs grande and
    piccola cards by whether their set can still be made (`evaluate.live_adjustment`), at
    the player counts `live_players` names (all, when None); `endgame`: at 2 players once
    the deck is dealt out, where both players know every card, only the moves of best
    exact worth are played (`endgame.solve`), the search choosing among equals: "always",
    or "searchers", against an opponent whose finished stages were played as a searcher
    plays (`SEARCHER_ODDS`), the search alone against a greedy one; `endgame_before`:
    in the stage before the last against the same opponents, "sampled" plays the move of
    best exact worth averaged over uniform determinizations (`endgame.sampled_worths`),
    "searched" searches with the other player's tree moves chosen by their visits;
    `endgame_hidden="sampled"`: the same averaged worth in the last stage at 4 players."""

    name = "ismcts"

    def __init__(
        self,
        seed: int = 0,
        budget: Budget | None = None,
        epsilon: float = DEFAULT_EPSILON,
        exploration: float = 0.7,
        prior: str | None = None,
        prior_weight: float = 1.0,
        infer: bool = False,
        workers: int = 1,
        expand: str = "random",
        threats: str = "next",
        others: str = "search",
        missed_capture: float = MISSED_CAPTURE,
        missed_scopa: float = MISSED_SCOPA,
        missed_bonus: float = MISSED_BONUS,
        missed_greedy: float = MISSED_GREEDY,
        trees: int = 1,
        sampler: str = "reject",
        infer_partner: bool = True,
        others_epsilon: float | None = None,
        adapt: bool = False,
        mixture: bool = False,
        playout: str = "greedy",
        softmax: tuple[float, float] | list[float] | None = None,
        others_beta: float | None = None,
        others_threats: str | None = None,
        leaf: str = "playout",
        cut_players: tuple[int, ...] | list[int] | None = None,
        cut_within: int | None = None,
        value: str = "cheater",
        live: bool = False,
        live_players: tuple[int, ...] | list[int] | None = None,
        endgame: str = "off",
        endgame_before: str = "off",
        endgame_hidden: str = "off",
    ) -> None:
        super().__init__(seed, budget or Budget(iterations=1000))
        if not isinstance(workers, int) or isinstance(workers, bool) or not 1 <= workers <= 64:
            raise ValueError(f"workers must be a whole number from 1 to 64, not {workers!r}")
        checked = IsmctsOptions(
            epsilon=epsilon,
            exploration=exploration,
            prior=prior,
            prior_weight=prior_weight,
            infer=infer,
            expand=expand,
            threats=threats,
            others=others,
            missed_capture=missed_capture,
            missed_scopa=missed_scopa,
            missed_bonus=missed_bonus,
            missed_greedy=missed_greedy,
            trees=trees,
            sampler=sampler,
            infer_partner=infer_partner,
            others_epsilon=others_epsilon,
            adapt=adapt,
            mixture=mixture,
            playout=playout,
            softmax=softmax,
            others_beta=others_beta,
            others_threats=others_threats,
            leaf=leaf,
            cut_players=cut_players,
            cut_within=cut_within,
            value=value,
            live=live,
            live_players=live_players,
            endgame=endgame,
            endgame_before=endgame_before,
            endgame_hidden=endgame_hidden,
        )
        self.checked = checked
        self.missed = checked.missed
        self.sampler = checked.sampler
        self.trees = checked.trees
        self.expand = checked.expand
        self.threats = checked.threats
        self.live = checked.live
        self.live_players = checked.live_players
        self.others = checked.others
        self.others_epsilon = checked.others_epsilon
        self.others_beta = checked.others_beta
        self.others_threats = checked.others_threats
        self.epsilon = checked.epsilon
        self.exploration = checked.exploration
        self.prior = checked.prior
        self.prior_weight = checked.prior_weight
        self.infer = checked.infer
        self.infer_partner = checked.infer_partner
        self.adapt = checked.adapt
        self.mixture = checked.mixture
        self.playout = checked.playout
        self.softmax = checked.softmax
        self.leaf = checked.leaf
        self.cut_players = checked.cut_players
        self.cut_within = checked.cut_within
        self.workers = workers
        self.last_iterations = 0

    def options(self) -> dict[str, Any]:
        """The options this bot was made with (what a worker process needs to rebuild it)."""
        return self.checked.as_dict()

    def choose(self, view: SeatView) -> Move:
        legal = view.legal
        if len(legal) == 1:
            return legal[0]
        solved = self.solved(view) if self.checked.endgame != "off" else None
        if solved is not None and len(solved) == 1:
            self.last_iterations = 0
            return solved[0]
        if self.workers > 1:
            legal, visits = self._parallel_visits(view)
        else:
            legal, visits = self.root_visits(view)
        if solved is not None:  # the search breaks the exact worth's ties
            keys = {m.key for m in solved}
            pairs = [(m, v) for m, v in zip(legal, visits, strict=True) if m.key in keys]
            if not pairs:
                return solved[0]
            legal, visits = [m for m, _ in pairs], [v for _, v in pairs]
        return most_visited(legal, visits)

    def solved(self, view: SeatView) -> list[Move] | None:
        """Where the rest is solved, the legal moves of best worth, in the legal moves'
        order: at 2 players once the deck is dealt out and every card known to both, by
        exact worth (`endgame.solve`); with `endgame_before="sampled"` in the stage
        before it, or `endgame_hidden="sampled"` in the last stage at 4 players, the first
        of best worth averaged over its determinizations (`endgame.sampled_worths`). None
        elsewhere, and (`endgame="searchers"`) against opponents played as greedy."""
        legal = view.legal
        deal = known_deal(view)
        if deal is not None:
            if not self._against_searcher(deal, view):
                return None
            values = [worth(totals, view.side) for totals in solve(deal, legal)]
            top = max(values)
            return [m for m, v in zip(legal, values, strict=True) if v >= top]
        if self.checked.endgame_hidden == "sampled" and hidden_stage(view):
            sampled = self._judged(view)
        else:
            sampled = self.checked.endgame_before == "sampled" and self._before_last(view)
        if not sampled:
            return None
        base = determinize(view.raw, self.rng)
        assert self.budget is not None
        # Uniform draws: no model reads a searcher's hand much better than uniform, and
        # the greedy one reads it worse (docs/strength.md, 2026-11-29, a fifth).
        means = sampled_worths(
            lambda: self._sample(base, view.seat), legal, SAMPLED_DEALS, self.budget.seconds
        )
        # Means tie only where moves are alike: the first, and no search after the
        # sampling has spent the move's time.
        return [legal[means.index(max(means))]]

    def _before_last(self, view: SeatView) -> bool:
        """Whether `endgame_before` plays here: the stage before the last at 2 players,
        against the opponents `endgame` plays against."""
        return sampled_stage(view) and self._judged(view)

    def _judged(self, view: SeatView) -> bool:
        # The judge reads finished stages only: any determinization will do, and a fixed
        # one leaves the search's draws as they were where it declines.
        return self._against_searcher(determinize(view.raw, random.Random(0)), view)

    def _against_searcher(self, deal: Deal, view: SeatView) -> bool:
        """Whether `endgame` plays against these opponents: always, or ("searchers") when
        their finished stages in `deal` were played as searchers play, the log-odds of
        the other side's players summed (one player at 2, two at 4)."""
        if self.checked.endgame != "searchers":
            return True
        opps = [s for s in range(view.players) if deal.side_of(s) != view.side]
        judged = PlayEvidence(deal, opps, searcher=SEARCHER_FACTORS)
        return sum(judged.searcher_odds(s) for s in opps) > SEARCHER_ODDS

    def _parallel_visits(self, view: SeatView) -> tuple[list[Move], list[int]]:
        seeds = [self.rng.getrandbits(63) for _ in range(self.workers)]
        assert self.budget is not None
        results = search_in_parallel(view.raw, seeds, self.budget, self.options())
        by_text = {str(m): m for m in view.legal}
        legal = [by_text[text] for text in results[0][0]]
        total = [0] * len(legal)
        for _, visits, _ in results:
            total = [t + max(v, 0) for t, v in zip(total, visits, strict=True)]
        self.last_iterations = sum(done for _, _, done in results)
        return legal, total

    def root_visits(self, view: SeatView) -> tuple[list[Move], list[int]]:
        """The root moves the search considers and each one's visits (-1: never tried);
        the move played is the most visited (`playouts.most_visited`)."""
        legal = view.legal
        bias: dict[object, float] | None = None
        if self.prior == "expert":
            declared, scores = expert_opinion(view)
            if declared is not None:  # the expert weighs points against cards shown
                return [declared], [1]
            legal = [m for m in legal if m.kind == "play"] or legal
            if len(legal) == 1:
                return legal, [1]
            top = max(scores.values())
            bias = {k: self.prior_weight * (v - top) / REWARD_SCALE for k, v in scores.items()}
        if len(legal) == 1:
            return legal, [1]
        base = determinize(view.raw, self.rng)
        sample = self._sampler(base, view)
        cuts = self.checked.cuts(base.players)
        leaf = leaf_model(base.rules, base.players, self.checked.value) if cuts else None
        if leaf is not None and self.checked.leaf == "cut_mean":
            leaf = leaf.averaged()
        assert self.budget is not None
        searched = self.checked.endgame_before == "searched" and self._before_last(view)
        if self.trees > 1:
            return legal, self._tree_per_deal(base, sample, legal, bias, leaf, searched)
        clock = Clock(self.budget)
        visits = self._visits(base, sample, legal, clock, bias, leaf, searched)
        self.last_iterations = clock.done
        return legal, visits

    def _visits(
        self,
        base: Deal,
        sample: Callable[[], Deal],
        legal: list[Move],
        clock: Clock,
        bias: dict[object, float] | None,
        leaf: LeafValue | None = None,
        others_searched: bool = False,
    ) -> list[int]:
        live = LIVE if self.checked.reads_live(base.players) else 0
        return ucb_visits(
            base,
            sample,
            legal,
            self.rng,
            clock,
            self.exploration,
            self.epsilon,
            bias,
            self.expand == "policy",
            THREATS[self.threats] + live,
            self.others == "policy" and not others_searched,
            -1.0 if self.others_epsilon is None else float(self.others_epsilon),
            _expert_move if self.playout == "expert" else None,
            0.0 if self.others_beta is None else self.others_beta,
            -1 if self.others_threats is None else THREATS[self.others_threats] + live,
            leaf,
            0 if self.cut_within is None else self.cut_within,
        )

    def _tree_per_deal(
        self,
        base: Deal,
        sample: Callable[[], Deal],
        legal: list[Move],
        bias: dict[object, float] | None,
        leaf: LeafValue | None = None,
        others_searched: bool = False,
    ) -> list[int]:
        """`trees` searches, each on one determinization seeing its every card and a
        share of the budget; their root visits added up (determinized UCT)."""
        assert self.budget is not None
        iterations = self.budget.iterations
        share = None if iterations is None else max(1, iterations // self.trees)
        deadline = None
        if self.budget.seconds is not None:
            deadline = time.perf_counter() + self.budget.seconds
        total = [0] * len(legal)
        done = 0
        for _ in range(self.trees):
            seconds = None if deadline is None else deadline - time.perf_counter()
            if seconds is not None and seconds <= 0:
                break
            deal = sample()
            clock = Clock(Budget(iterations=share, seconds=seconds))
            visits = self._visits(deal, deal.copy, legal, clock, bias, leaf, others_searched)
            total = [t + max(v, 0) for t, v in zip(total, visits, strict=True)]
            done += clock.done
        self.last_iterations = done
        return [t if t > 0 else -1 for t in total]

    def _sampler(self, base: Deal, view: SeatView) -> Callable[[], Deal]:
        """Where each iteration's deal comes from: a uniform redraw of the hidden cards,
        or (`infer`) one kept with the probability the opponent model gives it."""
        seat = view.seat
        if not self.infer:
            return lambda: self._sample(base, seat)
        evidence = PlayEvidence(
            base,
            self.evidence_seats(view),
            *self.missed,
            searcher=SEARCHER_FACTORS if self.adapt or self.mixture else None,
            mixture=self.mixture,
            beta=None if self.softmax is None else self.softmax[0],
            eps=0.0 if self.softmax is None else self.softmax[1],
        )
        if not evidence.informative:
            return lambda: self._sample(base, seat)
        if self.sampler == "chain" or (self.sampler == "auto" and view.players == 2):
            return PosteriorSampler(base, seat, evidence, self.rng)
        return RejectionSampler(base, seat, evidence, self.rng, INFER_TRIES)

    def evidence_seats(self, view: SeatView) -> list[int]:
        """The seats whose plays the opponent model reads: the hidden hands (with
        `infer_partner=False`, the other sides' only)."""
        seat = view.seat
        hidden = [s for s in range(view.players) if s != seat and view.known_hand(s) is None]
        if self.infer_partner:
            return hidden
        return [s for s in hidden if view.side_of(s) != view.side]

    def _sample(self, base: Deal, seat: int) -> Deal:
        deal = base.copy()
        deal.redeal_unseen(seat, self.rng)
        return deal

    def _search(
        self,
        base: Deal,
        seat: int,
        sample: Callable[[], Deal],
        legal: list[Move],
        bias: dict[object, float] | None = None,
    ) -> Move:
        """UCB search (`playouts.ucb_search`, compiled in the compiled build); `bias` (root
        moves' prior, <= 0) steers the root's early visits: its moves are tried best first
        and its term fades as visits grow."""
        assert self.budget is not None
        clock = Clock(self.budget)
        move = ucb_search(
            base, sample, legal, self.rng, clock, self.exploration, self.epsilon, bias
        )
        self.last_iterations = clock.done
        return move


def worker_root_visits(
    view: Mapping[str, Any], seed: int, budget: Budget, options: Mapping[str, Any]
) -> tuple[list[str], list[int], int]:
    """One root-parallel search (in a worker process): the root moves' notation, their
    visits, and the iterations done."""
    bot = IsmctsBot(seed=seed, budget=budget, **options)
    legal, visits = bot.root_visits(SeatView(view))
    return [str(m) for m in legal], visits, bot.last_iterations
