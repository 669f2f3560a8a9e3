"""The `ismcts` bot's options, checked in one place: a bot is built from JSON (a table's
bot settings, a worker process's copy, an arena's `--options-a`), so a bad value must be
a clear ValueError before any search starts, not a failure deep in a playout.

What each option does is in `search.IsmctsBot`'s docstring and docs/strength.md.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Final

from .inference import MISSED_BONUS, MISSED_CAPTURE, MISSED_GREEDY, MISSED_SCOPA
from .leafvalue import SOURCES
from .playouts import DEFAULT_EPSILON
from .policies import LOOKAHEAD, NEXT_HAND, SAMPLED, UNSEEN

#: How the playouts judge sweep risks (`threats` option): the next player's cards in
#: the determinization, every card the mover cannot see, or a draw from those.
THREATS: Final = {
    "next": NEXT_HAND,
    "unseen": UNSEEN,
    "sampled": SAMPLED,
    "lookahead": LOOKAHEAD,
}

#: How `infer` draws its determinizations (`sampler` option): uniform redraws kept with
#: their weight's probability, else the best of `search.INFER_TRIES`; or a Metropolis
#: chain over the hidden cards (`posterior.PosteriorSampler`), which reaches the model's
#: posterior; or "auto": the chain at 2 players (one hidden hand), rejection at more,
#: where each first measured stronger; over 900 decks at 2 players the chain's lead
#: shrank to +0.07 (-0.11 .. +0.25), so campione keeps rejection (docs/strength.md,
#: 2026-11-28, an eighth).
SAMPLERS: Final = ("reject", "chain", "auto")

#: Who plays the playouts (`playout` option): the greedy policy, or every seat as the
#: expert (`difficile`) plays from its own view of the determinization: about 200
#: times slower a move, to learn whether better playouts make a better search.
PLAYOUTS: Final = ("greedy", "expert")

#: How a playout ends (`leaf` option): at the smazzata's end, or at the end of its
#: stage with the learned value (`leafvalue.leaf_model`) scoring the rest, where a model
#: is fitted for the rules and player count (elsewhere the playout runs to the end);
#: `cut_mean` the same cut, its value the mean over the just-dealt hands
#: (`leafvalue.mean_features`). `cut_players` keeps the cut to the counts it names.
LEAVES: Final = ("playout", "cut", "cut_mean")
#: The leaves that stop a playout at its stage's end (where `cut_players` applies;
#: `cut_within` k lets it play on until the value has at most k stages left to score).
CUT_LEAVES: Final = ("cut", "cut_mean")
#: Where the last stage at 2 players is solved exactly (`endgame`): never, always, or
#: against an opponent whose finished stages were played as a searcher plays (against
#: a greedy player the search's model of one exploits it better).
ENDGAMES: Final = ("off", "always", "searchers")
#: What `endgame` does in the stage before the last at 2 players (`endgame_before`),
#: against the same opponents: nothing (the search as everywhere); "sampled": each
#: move's exact worth averaged over uniform determinizations (`endgame.sampled_worths`);
#: "searched": the search, the other player's tree moves chosen by their own visits in
#: place of greedy's policy (`others="search"` for that stage).
ENDGAME_BEFORE: Final = ("off", "sampled", "searched")
#: What `endgame` does at 4 players once the deck is dealt out (`endgame_hidden`), where
#: the others' hands are still hidden: nothing (the search), or "sampled": each move's
#: exact worth averaged over uniform determinizations, as `endgame_before` does at 2.
ENDGAME_HIDDEN: Final = ("off", "sampled")


def _is_number(x: object) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _is_whole(x: object, low: int, high: int) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and low <= x <= high


def _player_counts(name: str, counts: object) -> tuple[int, ...]:
    """A list of player counts (`cut_players`, `live_players`), sorted and deduplicated."""
    if (
        not isinstance(counts, (tuple, list))
        or not counts
        or not all(_is_whole(n, 2, 8) for n in counts)
    ):
        raise ValueError(f"{name} must be a list of player counts, 2 to 8, not {counts!r}")
    return tuple(sorted(set(counts)))


@dataclass(frozen=True)
class IsmctsOptions:
    """Every option but the seed, the budget and the workers, checked and normalised
    (`softmax` a tuple of floats, `others_beta` a float) when made."""

    epsilon: float = DEFAULT_EPSILON
    exploration: float = 0.7
    prior: str | None = None
    prior_weight: float = 1.0
    infer: bool = False
    expand: str = "random"
    threats: str = "next"
    others: str = "search"
    missed_capture: float = MISSED_CAPTURE
    missed_scopa: float = MISSED_SCOPA
    missed_bonus: float = MISSED_BONUS
    missed_greedy: float = MISSED_GREEDY
    trees: int = 1
    sampler: str = "reject"
    infer_partner: bool = True
    others_epsilon: float | None = None
    adapt: bool = False
    mixture: bool = False
    playout: str = "greedy"
    softmax: tuple[float, float] | list[float] | None = None
    others_beta: float | None = None
    others_threats: str | None = None
    leaf: str = "playout"
    cut_players: tuple[int, ...] | list[int] | None = None
    cut_within: int | None = None
    value: str = "cheater"
    live: bool = False
    live_players: tuple[int, ...] | list[int] | None = None
    endgame: str = "off"
    endgame_before: str = "off"
    endgame_hidden: str = "off"

    def __post_init__(self) -> None:
        self._check_search()
        self._check_model()
        self._check_others()

    def _check_search(self) -> None:
        if not _is_number(self.epsilon) or not 0.0 <= self.epsilon <= 1.0:
            raise ValueError(f"epsilon must be between 0 and 1, not {self.epsilon!r}")
        if not _is_number(self.exploration) or not self.exploration >= 0.0:
            raise ValueError(f"exploration must be a number >= 0, not {self.exploration!r}")
        if self.prior not in (None, "expert"):
            raise ValueError(f"prior must be None or 'expert', not {self.prior!r}")
        if not _is_number(self.prior_weight) or not self.prior_weight >= 0.0:
            raise ValueError(f"prior_weight must be a number >= 0, not {self.prior_weight!r}")
        if not isinstance(self.expand, str) or self.expand not in ("random", "policy"):
            raise ValueError(f"expand must be 'random' or 'policy', not {self.expand!r}")
        if not isinstance(self.threats, str) or self.threats not in THREATS:
            raise ValueError(f"threats must be one of {', '.join(THREATS)}, not {self.threats!r}")
        if not isinstance(self.live, bool):
            raise ValueError(f"live must be true or false, not {self.live!r}")
        if not isinstance(self.endgame, str) or self.endgame not in ENDGAMES:
            raise ValueError(f"endgame must be one of {', '.join(ENDGAMES)}, not {self.endgame!r}")
        self._check_reach("endgame_before", ENDGAME_BEFORE, "how far endgame reaches")
        self._check_reach("endgame_hidden", ENDGAME_HIDDEN, "where endgame plays at 4 players")
        self._check_live_players()
        if not isinstance(self.playout, str) or self.playout not in PLAYOUTS:
            raise ValueError(f"playout must be one of {', '.join(PLAYOUTS)}, not {self.playout!r}")
        if not isinstance(self.leaf, str) or self.leaf not in LEAVES:
            raise ValueError(f"leaf must be one of {', '.join(LEAVES)}, not {self.leaf!r}")
        self._check_cut()
        if not isinstance(self.value, str) or self.value not in SOURCES:
            raise ValueError(f"value must be one of {', '.join(SOURCES)}, not {self.value!r}")
        if self.value != "cheater" and self.leaf not in CUT_LEAVES:
            raise ValueError("value says whose games score the cut: set leaf='cut' or 'cut_mean'")
        if self.playout != "greedy" and self.trees != 1:
            raise ValueError("playout='expert' is for the one-tree search (trees=1)")
        if not _is_whole(self.trees, 1, 1000):
            raise ValueError(f"trees must be a whole number from 1 to 1000, not {self.trees!r}")

    def _check_cut(self) -> None:
        within = self.cut_within
        if within is not None:
            if not _is_whole(within, 1, 20):
                raise ValueError(
                    f"cut_within must be a whole number of stages from 1 to 20, not {within!r}"
                )
            if self.leaf not in CUT_LEAVES:
                raise ValueError(
                    "cut_within says how many stages the cut leaves to the value: set"
                    " leaf='cut' or 'cut_mean'"
                )
        if self.cut_players is None:
            return
        counts = _player_counts("cut_players", self.cut_players)
        if self.leaf not in CUT_LEAVES:
            raise ValueError(
                "cut_players says at which player counts the cut applies: set leaf='cut' or"
                " 'cut_mean'"
            )
        object.__setattr__(self, "cut_players", counts)

    def _check_reach(self, name: str, choices: tuple[str, ...], says: str) -> None:
        """An option that says where `endgame` plays (its judge says against whom)."""
        value = getattr(self, name)
        if not isinstance(value, str) or value not in choices:
            raise ValueError(f"{name} must be one of {', '.join(choices)}, not {value!r}")
        if value != "off" and self.endgame == "off":
            raise ValueError(f"{name} says {says}: set endgame")

    def _check_live_players(self) -> None:
        if self.live_players is None:
            return
        counts = _player_counts("live_players", self.live_players)
        if not self.live:
            raise ValueError("live_players says at which player counts live applies: set live")
        object.__setattr__(self, "live_players", counts)

    def reads_live(self, players: int) -> bool:
        """Whether the greedy policy reads the sets live at `players` (`live`)."""
        return self.live and (self.live_players is None or players in self.live_players)

    def cuts(self, players: int) -> bool:
        """Whether the playouts are cut at `players` (where a value is fitted, too)."""
        cut = self.leaf in CUT_LEAVES
        return cut and (self.cut_players is None or players in self.cut_players)

    def _check_model(self) -> None:
        for name in ("infer", "adapt", "mixture", "infer_partner"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be True or False, not {getattr(self, name)!r}")
        if self.adapt and self.mixture:
            raise ValueError("adapt and mixture are two readings of the same plays: choose one")
        softmax = self.softmax
        if softmax is not None:
            if (
                not isinstance(softmax, (tuple, list))
                or len(softmax) != 2
                or not all(_is_number(x) for x in softmax)
                or not 0.0 <= softmax[0] <= 20.0
                or not 0.0 <= softmax[1] < 1.0
            ):
                raise ValueError(
                    f"softmax must be [beta, eps], beta 0 to 20, eps 0 to below 1, not {softmax!r}"
                )
            if self.mixture:
                raise ValueError("softmax is a reading of its own: not in a mixture")
            object.__setattr__(self, "softmax", (float(softmax[0]), float(softmax[1])))
        for name in ("missed_capture", "missed_scopa", "missed_bonus", "missed_greedy"):
            factor = getattr(self, name)
            if not _is_number(factor) or not 0.0 < factor <= 1.0:
                raise ValueError(f"{name} must be a number above 0, at most 1, not {factor!r}")
        if not isinstance(self.sampler, str) or self.sampler not in SAMPLERS:
            raise ValueError(f"sampler must be one of {', '.join(SAMPLERS)}, not {self.sampler!r}")

    def _check_others(self) -> None:
        if not isinstance(self.others, str) or self.others not in ("search", "policy"):
            raise ValueError(f"others must be 'search' or 'policy', not {self.others!r}")
        eps = self.others_epsilon
        if eps is not None and (not _is_number(eps) or not 0.0 <= eps <= 1.0):
            raise ValueError(f"others_epsilon must be between 0 and 1, not {eps!r}")
        beta = self.others_beta
        if beta is not None:
            if not _is_number(beta) or not 0.0 < beta <= 20.0:
                raise ValueError(f"others_beta must be above 0, at most 20, not {beta!r}")
            if self.others != "policy":
                raise ValueError("others_beta draws the others' moves of others='policy'")
            object.__setattr__(self, "others_beta", float(beta))
        judge = self.others_threats
        if judge is not None:
            if not isinstance(judge, str) or judge not in THREATS:
                raise ValueError(
                    f"others_threats must be one of {', '.join(THREATS)}, not {judge!r}"
                )
            if self.others != "policy":
                raise ValueError("others_threats judges the others' moves of others='policy'")

    @property
    def missed(self) -> tuple[float, float, float, float]:
        """The opponent model's four factors, in `inference.PlayEvidence`'s order."""
        return (
            float(self.missed_capture),
            float(self.missed_scopa),
            float(self.missed_bonus),
            float(self.missed_greedy),
        )

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready, and what `IsmctsBot(**...)` takes back (a worker's copy)."""
        out = asdict(self)
        if self.softmax is not None:
            out["softmax"] = list(self.softmax)
        if self.cut_players is not None:
            out["cut_players"] = list(self.cut_players)
        if self.live_players is not None:
            out["live_players"] = list(self.live_players)
        return out
