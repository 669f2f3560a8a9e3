"""Rule options and presets (RULES.md section 14).

Rules are data: every house rule is a field of `Rules`, a preset is a named set
of fields, and the engine asks the fields, never the preset's name.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Final

from .cards import Card

__all__ = ["MAX_HANDS", "MAX_TARGET", "OPTIONS", "PRESETS", "OptionInfo", "Rules"]


def shown_value(value: object) -> str:
    """`value` for an error message; a huge number is not written out (Python refuses to
    turn one of over 4,300 digits into text, and nobody wants to read it)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return "a number too large to show"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


@dataclass(frozen=True, slots=True)
class OptionInfo:
    """What an option changes, for `cirulla rules` and the docs."""

    name: str
    rule: str
    meaning: str


OPTIONS: Final[tuple[OptionInfo, ...]] = (
    OptionInfo("game", "SC", '"cirulla", or "scopa" for the Scopa rules of section 11'),
    OptionInfo("target", "E1", "points that end the partita (1 to 1000)"),
    OptionInfo("hands", "E2", "a fixed number of smazzate instead of a target (1 to 100)"),
    OptionInfo("knockout", "E3", "ties broken by up to three spareggi"),
    OptionInfo("wild_card", "C4", "the card that is the matta, not a diamond (None: no matta)"),
    OptionInfo("clockwise", "D2", "play and deal clockwise (presentation only)"),
    OptionInfo("luzzati", "D7", "Luzzati misdeals and instant wins"),
    OptionInfo("ace_choice", "P4", "the ace may also make any fifteen"),
    OptionInfo("may_decline_capture", "P6", "a card that could capture may be laid on the table"),
    OptionInfo(
        "bonuses_stack",
        "B4",
        "a hand that is both cirulla and decino scores both (13); not with no_decino",
    ),
    OptionInfo("no_decino", "B4", "no ten-point bonus"),
    OptionInfo("matta_choice", "B5", "the declarer names the matta's value"),
    OptionInfo("matta_keeps_value", "B6", "a laid matta keeps its declared value"),
    OptionInfo("declare_at_deal", "B7", "declarations right after the deal"),
    OptionInfo("dealer_nine", "B9", "dealer's table of 9 or less: 3 points"),
    OptionInfo("dossena", "B10, S7", "Dossena / La Spezia bonus and sequence scores"),
    OptionInfo("piccola_to_seven", "S7", "the piccola may run to the 7"),
    OptionInfo("cappotto_scores_only", "S8", "all diamonds is no instant win"),
    OptionInfo("stages", "D5, CR2", "hand sizes per stage, e.g. (9,) or (6, 3)"),
    OptionInfo("declared_first", "CR3", "declared cards must be played before the others"),
    OptionInfo("declare_all_at_once", "CR3", "every bonus set declared at the first turn"),
    OptionInfo("carte_viste", "O1", "show the cards seen in this smazzata"),
    OptionInfo("carte_scoperte", "O2", "partners see each other's hands"),
)

# Options that change Cirulla-only rules, so they make no sense with game="scopa".
_CIRULLA_ONLY: Final = (
    "luzzati",
    "may_decline_capture",
    "ace_choice",
    "bonuses_stack",
    "no_decino",
    "matta_choice",
    "matta_keeps_value",
    "declare_at_deal",
    "dealer_nine",
    "dossena",
    "piccola_to_seven",
    "cappotto_scores_only",
    "stages",
    "declared_first",
    "declare_all_at_once",
)
CARDS_IN_HANDS: Final = 36  # 40 cards less the 4 on the table
# The longest partite the sources know are 101 points (CR4: "101 or more") and six
# smazzate (the VP table of S000); ten times that is still a partita, and a bound keeps
# an absurd number from making one that never ends.
MAX_TARGET: Final = 1000
MAX_HANDS: Final = 100


@dataclass(frozen=True, slots=True)
class Rules:
    """A complete rule set; build one with `Rules.preset(name)` and `rules.replace(...)`."""

    game: str = "cirulla"
    target: int | None = 51
    hands: int | None = None
    knockout: bool = False
    wild_card: str | None = "7H"
    clockwise: bool = False
    luzzati: bool = False
    ace_choice: bool = False
    may_decline_capture: bool = False
    bonuses_stack: bool = False
    no_decino: bool = False
    matta_choice: bool = False
    matta_keeps_value: bool = False
    declare_at_deal: bool = False
    dealer_nine: bool = False
    dossena: bool = False
    piccola_to_seven: bool = False
    cappotto_scores_only: bool = False
    stages: tuple[int, ...] | None = None
    declared_first: bool = False
    declare_all_at_once: bool = False
    carte_viste: bool = False
    carte_scoperte: bool = False
    # The matta as a Card, worked out once (Deal asks for it every smazzata).
    _matta: Card | None = field(default=None, init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        _validate(self)

    # ---- construction -------------------------------------------------------------
    @classmethod
    def preset(cls, name: str) -> Rules:
        """The named preset (RULES.md section 14); ValueError for an unknown name."""
        if not isinstance(name, str) or name not in PRESETS:
            raise ValueError(f"unknown preset {name!r} (presets: {', '.join(PRESETS)})")
        return PRESETS[name]

    @classmethod
    def presets(cls) -> list[str]:
        return list(PRESETS)

    @classmethod
    def option_names(cls) -> list[str]:
        return [o.name for o in OPTIONS]

    def replace(self, **options: Any) -> Rules:
        """A changed copy; an unknown option or a bad value raises ValueError naming it.

        Giving `hands` alone switches the partita to a fixed number of smazzate
        (and `target` alone back to a target); giving both non-None is an error.
        """
        known = set(self.option_names())
        for name in options:
            if name not in known:
                raise ValueError(
                    f"unknown rules option {name!r} (options: {', '.join(sorted(known))})"
                )
        if options.get("hands") is not None and "target" not in options:
            options["target"] = None
        if options.get("target") is not None and "hands" not in options:
            options["hands"] = None
        if "stages" in options and isinstance(options["stages"], list):
            options["stages"] = tuple(options["stages"])
        return dataclasses.replace(self, **options)

    def to_dict(self) -> dict[str, Any]:
        """Every option by name, JSON-ready (for game records)."""
        out: dict[str, Any] = {o.name: getattr(self, o.name) for o in OPTIONS}
        if self.stages is not None:
            out["stages"] = list(self.stages)
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Rules:
        """Rules from `to_dict`'s output (or any subset of the options)."""
        if not isinstance(data, dict):
            raise ValueError("rules must be an object of options")
        return cls().replace(**data)

    def preset_name(self) -> str | None:
        """The preset these rules equal, if any (for display)."""
        for name, rules in PRESETS.items():
            if rules == self:
                return name
        return None

    # ---- derived facts --------------------------------------------------------------
    @property
    def is_scopa(self) -> bool:
        return self.game == "scopa"

    def matta(self) -> Card | None:
        """The wild card, or None when the rules have none (always None in Scopa)."""
        return self._matta

    def stage_sizes(self, players: int) -> tuple[int, ...]:
        """Cards each seat gets at each stage (D5, CR2)."""
        if self.stages is not None:
            return self.stages
        return (3,) * (CARDS_IN_HANDS // (3 * players))

    def check_players(self, players: object) -> int:
        """Raise ValueError when these rules cannot be played by that many players."""
        if not isinstance(players, int) or isinstance(players, bool) or players not in (2, 3, 4):
            raise ValueError(f"players must be 2, 3 or 4, not {players!r}")
        if self.is_scopa and players not in (2, 4):
            raise ValueError(f"game='scopa' is for 2 or 4 players (SC1), not {players}")
        if self.stages is not None and sum(self.stages) * players != CARDS_IN_HANDS:
            fits = [p for p in (2, 3, 4) if sum(self.stages) * p == CARDS_IN_HANDS]
            name = self.preset_name()
            label = f"preset {name!r}" if name else f"stages={self.stages}"
            counts = " or ".join(map(str, fits)) if fits else "no number of"
            raise ValueError(
                f"{label} is for {counts} players, not {players}: {sum(self.stages)} cards each"
                f" and 4 on the table must use all 40 cards (CR2, D5)"
            )
        if self.carte_scoperte and players != 4:
            raise ValueError(f"carte_scoperte needs partners, so 4 players, not {players} (O2)")
        if self.luzzati and players == 3:
            raise ValueError("luzzati needs two sides (2 or 4 players): 'the other side wins' (D7)")
        if self.knockout and players == 3:
            raise ValueError(
                "knockout needs two sides (2 or 4 players): 'the side that made the last capture"
                " loses' (E3)"
            )
        return players


def _validate(r: Rules) -> None:
    if r.game not in ("cirulla", "scopa"):
        raise ValueError(f"game must be 'cirulla' or 'scopa', not {r.game!r}")
    for f in dataclasses.fields(r):  # every option whose default is a bool must be one
        name = f.name
        if isinstance(f.default, bool) and not isinstance(getattr(r, name), bool):
            raise ValueError(
                f"rules option {name!r} must be True or False, not {getattr(r, name)!r}"
            )
    for name, most in (("target", MAX_TARGET), ("hands", MAX_HANDS)):
        v = getattr(r, name)
        if v is not None and (not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= most):
            raise ValueError(
                f"rules option {name!r} must be a whole number from 1 to {most},"
                f" not {shown_value(v)}"
            )
    if r.target is not None and r.hands is not None:
        raise ValueError("rules options 'target' and 'hands' are exclusive: set one, not both")
    if r.target is None and r.hands is None:
        raise ValueError("the partita needs an end: set 'target' (points) or 'hands' (smazzate)")
    if r.wild_card is not None:
        try:
            card = Card.parse(r.wild_card)
        except ValueError as exc:
            raise ValueError(f"rules option 'wild_card': {exc}") from None
        if card.suit == "D":  # C4, C5
            raise ValueError(
                f"rules option 'wild_card': the matta cannot be a diamond ({card}): diamonds"
                " score on their own (cards, settebello, grande, piccola, cappotto) and no"
                " source has a diamond matta"
            )
        object.__setattr__(r, "wild_card", str(card))
        if not r.is_scopa:
            object.__setattr__(r, "_matta", card)
    if r.stages is not None:
        stages = r.stages
        if isinstance(stages, list):
            stages = tuple(stages)
            object.__setattr__(r, "stages", stages)
        if (
            not isinstance(stages, tuple)
            or not stages
            or not all(isinstance(s, int) and not isinstance(s, bool) and s >= 1 for s in stages)
        ):
            raise ValueError(
                f"rules option 'stages' must be a tuple of positive hand sizes, not {stages!r}"
            )
        if sum(stages) > CARDS_IN_HANDS // 2:  # D1: at least two players share the 36
            raise ValueError(
                f"rules option 'stages' deals {sum(stages)} cards to each player: the"
                f" {CARDS_IN_HANDS} hand cards make at most {CARDS_IN_HANDS // 2} each (D5, CR2)"
            )
    if r.is_scopa:
        defaults = Rules.__dataclass_fields__
        if r.wild_card not in ("7H", None):
            raise ValueError("rules option 'wild_card': Scopa has no matta (SC5)")
        for name in _CIRULLA_ONLY:
            if getattr(r, name) != defaults[name].default:
                raise ValueError(
                    f"rules option {name!r} is a Cirulla rule; it cannot be set with game='scopa'"
                )
    if r.declared_first and r.declare_all_at_once:
        raise ValueError(
            "rules options 'declared_first' and 'declare_all_at_once' contradict each other (CR3)"
        )
    if r.bonuses_stack and r.no_decino:
        raise ValueError(
            "rules options 'bonuses_stack' and 'no_decino' contradict each other: with no"
            " decino there is nothing to stack the cirulla on (B4)"
        )
    for other in ("bonuses_stack", "dealer_nine", "piccola_to_seven"):
        if r.dossena and getattr(r, other):
            raise ValueError(
                f"rules option 'dossena' has its own scores; it cannot be combined with {other!r}"
            )


_PAGAT: Final[dict[str, Any]] = {
    "ace_choice": True,
    "matta_choice": True,
    "matta_keeps_value": True,
}

PRESETS: Final[dict[str, Rules]] = {
    "cirulla": Rules(),
    "pagat": Rules(**_PAGAT),
    "luzzati": Rules(**_PAGAT, luzzati=True),
    "dossena": Rules(**_PAGAT, dossena=True),
    "scopa": Rules(game="scopa", target=11),
    "cirullone": Rules(
        stages=(9,),
        matta_choice=True,
        matta_keeps_value=True,
        declared_first=True,
        target=101,
    ),
    "cirullone-6-3": Rules(**_PAGAT, stages=(6, 3), declared_first=True, target=101),
    "cirullone-3-6": Rules(**_PAGAT, stages=(3, 6), declared_first=True, target=101),
}
