#!/usr/bin/env python3
"""Draw the SVG card decks of the cirulla web client.

    python scripts/make_decks.py            # (re)write src/cirulla/web/decks/
    python scripts/make_decks.py --out DIR  # write somewhere else
    python scripts/make_decks.py --check    # exit 1 if the committed files are stale

Standard library only, and deterministic: the same script always writes the same
bytes (no dates, no trigonometry in the output, numbers rounded to two decimals),
so tests/test_decks.py can regenerate the decks and compare them with the committed
ones.

Output, for each style in STYLES (french, napoletane, piacentine):
`<style>/<CODE>.svg` for the 40 cards (codes as in cirulla.cards: rank A 2-7 J Q K +
suit D H C S, e.g. `7D.svg`), `<style>/back.svg`, and `index.json` listing the
styles, their cards, back, Italian card names and palette.

Cirulo's Spanish cards (cirulla.cirulo.cards) are the style `spagnole`, not one of
the styles a player picks for Cirulla: `spagnole/<CODE>.svg` for the 48-card deck
(ranks 1-12: 10 sota, 11 caballo, 12 rey; suits O oros, C copas, E espadas,
B bastos, e.g. `12O.svg`), `spagnole/poker52/<CODE>.svg` for the 52-card Spanish
poker deck (A 2-10 J Q K: its 10 is a number card, the 48-card deck's is the sota),
`spagnole/back.svg`, and index.json's "spanish" entry (paths, codes, names,
palette). They are drawn with the Italian decks' machinery, the Spanish suits on
the Italian letters (oros = D, copas = H, espadas = S, bastos = C).

Every file is one card: viewBox 0 0 200 300, rounded corners and a border,
`role="img"` and a `<title>` with the card's Italian name ("Sette di denari",
"Donna di picche"). Repeated shapes (pips, the corner index, the second half of a
double-ended court) are drawn once and repeated with `<use>`. Ids are prefixed with
the style's initial and the card code ("n7Dp"), so cards can also be inlined
together in one HTML page without clashing ids.

Design (the project's own drawings, built from simple shapes):

- Corner indices on every card of every style, top left and (turned) bottom right:
  the rank and a small suit pip, so that a fanned hand stays readable. The French
  deck shows A 2-7 J Q K; the Italian decks show 1-10 (fante 8, cavallo 9, re 10:
  the capture values, as on Piacentine cards; real Napoletane cards have no index,
  we add one for usability).
- Pips 1-7 laid out like real cards: French pips in two columns with the lower half
  upside down; Italian coins and cups upright (the 3 of denari on a diagonal),
  Italian batons and swords long and crossed in a lattice.
- Courts: French J Q K (Fante, Donna, Re) double-ended in a frame; Piacentine fante,
  cavallo, re double-ended, mirrored across a diagonal; Napoletane fante, cavallo,
  re as full-length standing figures (the cavallo on horseback). Each figure holds
  its suit symbol; its robe is in the suit colour.
- Napoletane and Piacentine differ in pips (coin with a petal rosette vs. coin with
  a ring of dots and a star; round goblet vs. tall chalice; knotted club vs. banded
  staff; slightly curved sabre vs. scimitar), palette, paper tint, court layout and
  back.
- Backs: french a blue lattice, napoletane a red ground with gold rosettes,
  piacentine a green tartan, each with a central medallion.
- Spagnole: a coin with a ring of sun rays, a goblet with a knotted stem, a straight
  sword with a cross guard, a knotted club; pips 1-10 (8-10 in columns); courts
  (sota, caballo, rey) standing full length as on Spanish cards; and the Spanish
  "pinta", breaks in the lines along the top and bottom edges that tell the suit
  by shape: none for oros, one for copas, two for espadas, three for bastos.
  A blue back with gold diamonds.

Palette (suit colour = pip fill; ink = corner index text and outlines; all inks have
WCAG contrast >= 4.5 on the paper). The suit colours were picked so that all four
stay apart (CIELAB distance, tests/test_decks.py) for normal vision and for
simulated deuteranopia, protanopia and tritanopia (Machado et al. 2009), and every
suit also has its own pip shape:

    french (paper #ffffff)
        D quadri  #1d5bd6 blue           ink #1d5bd6
        H cuori   #cc3373 raspberry red  ink #cc3373
        C fiori   #4d8217 leaf green     ink #4d8217
        S picche  #161616 black          ink #161616
    napoletane (paper #fbf5e6)
        D denari  #f9bb10 gold           ink #7d5200
        H coppe   #9b2757 wine red       ink #9b2757
        C bastoni #2e7e07 green          ink #2e7e07
        S spade   #1d3c8f dark blue      ink #1d3c8f
    piacentine (paper #f4eedf)
        D denari  #e09a1a amber          ink #7a4a00
        H coppe   #b01c1c red            ink #b01c1c
        C bastoni #0b9467 teal green     ink #086a4a
        S spade   #154a7d steel blue     ink #154a7d

    spagnole (paper #fdf8ec)
        D oros    #f2b30f gold           ink #7a4f00
        H copas   #a81c4a crimson        ink #a81c4a
        C bastos  #2e7e07 green          ink #2e7e07
        S espadas #163a86 dark blue      ink #163a86

(The French deck is the "four-colour deck": red and green differ in lightness and
the red leans to crimson so that deuteranopes and protanopes still tell them apart;
the blue is far lighter than the black.)
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterable
from pathlib import Path

#: Same as cirulla.cards.RANKS / SUITS / STYLES (kept here so the script needs nothing
#: but the standard library; tests/test_decks.py checks that they agree).
RANKS = ("A", "2", "3", "4", "5", "6", "7", "J", "Q", "K")
SUITS = ("D", "H", "C", "S")
STYLES = ("french", "napoletane", "piacentine")

#: Cirulo's Spanish decks (cirulla.cirulo.cards): suits, ranks per deck, and the
#: Italian suit letter each Spanish suit is drawn with.
SPANISH = "spagnole"
SPANISH_SUITS = ("O", "C", "E", "B")
SPANISH_RANKS = {
    "spanish48": tuple(str(r) for r in range(1, 13)),
    "poker52": ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"),
}
SPANISH_PATHS = {"spanish48": SPANISH, "poker52": f"{SPANISH}/poker52"}
AS_ITALIAN = {"O": "D", "C": "H", "E": "S", "B": "C"}

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "src" / "cirulla" / "web" / "decks"

W, H = 200, 300
SVG_NS = "http://www.w3.org/2000/svg"

# ---- names -------------------------------------------------------------------------

_NUMBER_WORDS = {
    "A": "Asso",
    "2": "Due",
    "3": "Tre",
    "4": "Quattro",
    "5": "Cinque",
    "6": "Sei",
    "7": "Sette",
}
_COURTS = {
    "french": {"J": "Fante", "Q": "Donna", "K": "Re"},
    "latin": {"J": "Fante", "Q": "Cavallo", "K": "Re"},
}
_SUIT_WORDS = {
    "french": {"D": "quadri", "H": "cuori", "C": "fiori", "S": "picche"},
    "latin": {"D": "denari", "H": "coppe", "C": "bastoni", "S": "spade"},
}
_STYLE_WORDS = {
    "french": "francesi",
    "napoletane": "napoletane",
    "piacentine": "piacentine",
    "spagnole": "spagnole",
}


def family(style: str) -> str:
    return "french" if style == "french" else "latin"


def card_name(style: str, code: str) -> str:
    """The Italian name of a card, for its <title>: "Sette di denari", "Donna di picche"."""
    rank, suit = code[0], code[1]
    fam = family(style)
    word = _NUMBER_WORDS.get(rank) or _COURTS[fam][rank]
    return f"{word} di {_SUIT_WORDS[fam][suit]}"


def back_name(style: str) -> str:
    return f"Dorso delle carte {_STYLE_WORDS[style]}"


def corner_label(style: str, rank: str) -> str:
    """The rank printed in the corners: A 2-7 J Q K (french) or 1-10 (Italian decks)."""
    if style == "french":
        return rank
    return str(RANKS.index(rank) + 1)


def codes() -> list[str]:
    """The 40 codes in cirulla's fixed order (suits D H C S, ranks A..K)."""
    return [rank + suit for suit in SUITS for rank in RANKS]


# ---- palette -----------------------------------------------------------------------

#: Per style: paper, border, line (figure outlines), skin, hair, gold (crowns),
#: and for each suit its Italian name, colour (pip fill) and ink (index, outlines).
PALETTES: dict[str, dict[str, object]] = {
    "french": {
        "paper": "#ffffff",
        "border": "#3a3a3a",
        "line": "#222222",
        "skin": "#f6d7bd",
        "hair": "#6b4423",
        "gold": "#f2c53d",
        "trim": "#ffffff",
        "back": "#1f4e9c",
        "suits": {
            "D": {"name": "quadri", "color": "#1d5bd6", "ink": "#1d5bd6"},
            "H": {"name": "cuori", "color": "#cc3373", "ink": "#cc3373"},
            "C": {"name": "fiori", "color": "#4d8217", "ink": "#4d8217"},
            "S": {"name": "picche", "color": "#161616", "ink": "#161616"},
        },
    },
    "napoletane": {
        "paper": "#fbf5e6",
        "border": "#5b4630",
        "line": "#3b2a1a",
        "skin": "#f3d0a8",
        "hair": "#4a2e17",
        "gold": "#f9bb10",
        "trim": "#fff3c4",
        "back": "#9c2530",
        "suits": {
            "D": {"name": "denari", "color": "#f9bb10", "ink": "#7d5200"},
            "H": {"name": "coppe", "color": "#9b2757", "ink": "#9b2757"},
            "C": {"name": "bastoni", "color": "#2e7e07", "ink": "#2e7e07"},
            "S": {"name": "spade", "color": "#1d3c8f", "ink": "#1d3c8f"},
        },
    },
    "piacentine": {
        "paper": "#f4eedf",
        "border": "#4a4f3c",
        "line": "#2c2a22",
        "skin": "#eec9a3",
        "hair": "#7a4b22",
        "gold": "#e8b23a",
        "trim": "#f7f0dc",
        "back": "#1f5a45",
        "suits": {
            "D": {"name": "denari", "color": "#e09a1a", "ink": "#7a4a00"},
            "H": {"name": "coppe", "color": "#b01c1c", "ink": "#b01c1c"},
            "C": {"name": "bastoni", "color": "#0b9467", "ink": "#086a4a"},
            "S": {"name": "spade", "color": "#154a7d", "ink": "#154a7d"},
        },
    },
    "spagnole": {
        "paper": "#fdf8ec",
        "border": "#4d3b2a",
        "line": "#2e2418",
        "skin": "#f1cfa6",
        "hair": "#3f2a17",
        "gold": "#f2b30f",
        "trim": "#fff4cf",
        "back": "#1b3d7a",
        "suits": {
            "D": {"name": "oros", "color": "#f2b30f", "ink": "#7a4f00"},
            "H": {"name": "copas", "color": "#a81c4a", "ink": "#a81c4a"},
            "C": {"name": "bastos", "color": "#2e7e07", "ink": "#2e7e07"},
            "S": {"name": "espadas", "color": "#163a86", "ink": "#163a86"},
        },
    },
}


def pal(style: str) -> dict[str, str]:
    return {k: v for k, v in PALETTES[style].items() if isinstance(v, str)}


def suit_pal(style: str, suit: str) -> dict[str, str]:
    suits = PALETTES[style]["suits"]
    assert isinstance(suits, dict)
    entry = suits[suit]
    assert isinstance(entry, dict)
    return entry


# ---- SVG helpers -------------------------------------------------------------------


def num(x: float) -> str:
    """A number with at most two decimals and no trailing zeros ("12", "0.35", "-4.5")."""
    text = f"{x:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def el(tag: str, attrs: dict[str, object] | None = None, body: str | None = None) -> str:
    """One element; attribute names use '-' (pass "stroke-width"), values as given."""
    parts = [tag]
    for key, value in (attrs or {}).items():
        if value is None:
            continue
        text = num(value) if isinstance(value, int | float) else str(value)
        text = text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
        parts.append(f'{key}="{text}"')
    head = " ".join(parts)
    if body is None:
        return f"<{head}/>"
    return f"<{head}>{body}</{tag}>"


def esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def g(children: Iterable[str], **attrs: object) -> str:
    return el("g", {k.replace("_", "-"): v for k, v in attrs.items()}, "".join(children))


def use(
    ref: str, x: float = 0, y: float = 0, s: float = 1, r: float = 0, flip: bool = False
) -> str:
    """Place the symbol #ref centred at (x, y), scaled by s, turned by r degrees, mirrored."""
    parts = []
    if x or y:
        parts.append(f"translate({num(x)} {num(y)})")
    if r:
        parts.append(f"rotate({num(r)})")
    if flip:
        parts.append(f"scale({num(-s)} {num(s)})")
    elif s != 1:
        parts.append(f"scale({num(s)})")
    return el("use", {"href": "#" + ref, "transform": " ".join(parts) or None})


def path(d: str, fill: str = "none", **attrs: object) -> str:
    a: dict[str, object] = {"d": d, "fill": fill}
    a.update({k.replace("_", "-"): v for k, v in attrs.items()})
    return el("path", a)


def circle(cx: float, cy: float, r: float, fill: str, **attrs: object) -> str:
    a: dict[str, object] = {"cx": cx, "cy": cy, "r": r, "fill": fill}
    a.update({k.replace("_", "-"): v for k, v in attrs.items()})
    return el("circle", a)


def ellipse(cx: float, cy: float, rx: float, ry: float, fill: str, **attrs: object) -> str:
    a: dict[str, object] = {"cx": cx, "cy": cy, "rx": rx, "ry": ry, "fill": fill}
    a.update({k.replace("_", "-"): v for k, v in attrs.items()})
    return el("ellipse", a)


def rect(x: float, y: float, w: float, h: float, fill: str, **attrs: object) -> str:
    a: dict[str, object] = {"x": x, "y": y, "width": w, "height": h, "fill": fill}
    a.update({k.replace("_", "-"): v for k, v in attrs.items()})
    return el("rect", a)


def polygon(*points: tuple[float, float]) -> str:
    """Path data of a closed polygon."""
    return "M" + "L".join(f"{num(x)} {num(y)}" for x, y in points) + "Z"


def mirror_x(d: str, axis: float = 100) -> str:
    """Mirror a path made of absolute commands with x,y pairs (M L C Q Z) across x=axis."""
    out: list[str] = []
    tokens = re.findall(r"[A-Za-z]|-?\d+(?:\.\d+)?", d)
    expect_x = True
    for tok in tokens:
        if tok.isalpha():
            out.append(tok)
            expect_x = True
            continue
        if expect_x:
            out.append(num(2 * axis - float(tok)))
        else:
            out.append(tok)
        expect_x = not expect_x
    return "".join(
        t if t.isalpha() else (" " + t if i and not out[i - 1].isalpha() else t)
        for i, t in enumerate(out)
    )


# ---- pips (each drawn centred on 0,0 within -50..50) ---------------------------------

#: Suits whose pips are long and thin (batons, swords in the Italian decks).
LONG = {"C", "S"}


def pip_french(suit: str, color: str) -> str:
    if suit == "H":
        return path(
            "M0 46C-16 30 -48 10 -48 -16C-48 -34 -35 -45 -21 -45C-10 -45 -3 -38 0 -30"
            "C3 -38 10 -45 21 -45C35 -45 48 -34 48 -16C48 10 16 30 0 46Z",
            color,
        )
    if suit == "D":
        return path("M0 -49Q14 -22 37 0Q14 22 0 49Q-14 22 -37 0Q-14 -22 0 -49Z", color)
    if suit == "C":
        return g(
            [
                circle(0, -24, 19, color),
                circle(-22, 9, 19, color),
                circle(22, 9, 19, color),
                circle(0, 0, 12, color),
                path("M-4 4Q-3 30 -17 47H17Q3 30 4 4Z", color),
            ]
        )
    return path(
        "M0 -48C-10 -30 -48 -14 -48 10C-48 26 -36 34 -23 34C-14 34 -7 29 -4 24"
        "Q-5 38 -17 48H17Q5 38 4 24C7 29 14 34 23 34C36 34 48 26 48 10C48 -14 10 -30 0 -48Z",
        color,
    )


def _club(color: str, ink: str, paper: str, w: float, sw: float) -> str:
    """Napoletane knotted club, thick end up; w is the half-width of the head."""
    d = (
        f"M{num(-0.45 * w)} 48C{num(-0.55 * w)} 20 {num(-w)} -18 {num(-w)} -37"
        f"C{num(-w)} -46 {num(-0.5 * w)} -50 0 -50C{num(0.5 * w)} -50 {num(w)} -46 {num(w)} -37"
        f"C{num(w)} -18 {num(0.55 * w)} 20 {num(0.45 * w)} 48Z"
    )
    r, q = 0.75 * w, 0.6 * w
    stubs = (
        f"M{num(r)} -24L{num(r + 0.5 * w)} -30L{num(r + 0.65 * w)} -25L{num(r + 0.1 * w)} -19Z"
        f"M{num(-q)} 2L{num(-q - 0.5 * w)} -3L{num(-q - 0.65 * w)} 2L{num(-q - 0.1 * w)} 8Z"
    )
    return g(
        [
            path(stubs, color, stroke=ink, stroke_width=sw * 0.8, stroke_linejoin="round"),
            path(d, color, stroke=ink, stroke_width=sw, stroke_linejoin="round"),
            ellipse(-0.4 * w, -32, 0.25 * w, 0.16 * w, ink),
            ellipse(0.35 * w, -10, 0.22 * w, 0.15 * w, ink),
            ellipse(-0.2 * w, 14, 0.2 * w, 0.13 * w, ink),
            ellipse(0.15 * w, 32, 0.16 * w, 0.11 * w, ink),
        ]
    )


def _sabre(color: str, ink: str, paper: str, w: float, sw: float) -> str:
    """Napoletane sword: a slightly curved sabre, point up; w is the blade half-width."""
    blade = (
        f"M{num(-w)} 22C{num(-1.15 * w)} -10 {num(-0.5 * w)} -34 {num(1.1 * w)} -50"
        f"C{num(1.6 * w)} -30 {num(1.5 * w)} -6 {num(w)} 22Z"
    )
    grip = 20 + 1.2 * w
    return g(
        [
            path(blade, color, stroke=ink, stroke_width=sw, stroke_linejoin="round"),
            path(f"M0 18C0 -6 {num(0.3 * w)} -26 {num(w)} -40", stroke=paper, stroke_width=0.3 * w),
            rect(-3.2 * w, 20, 6.4 * w, 1.2 * w, ink, rx=0.6 * w),
            rect(-0.6 * w, grip, 1.2 * w, 15, color, stroke=ink, stroke_width=sw * 0.7),
            circle(0, grip + 15 + 0.7 * w, 0.8 * w, ink),
        ]
    )


def _staff(color: str, ink: str, paper: str, w: float, sw: float) -> str:
    """Piacentine baton: a straight staff with light bands and a round knob."""
    bands = [
        rect(-1.1 * w, y - 0.28 * w, 2.2 * w, 0.56 * w, paper, stroke=ink, stroke_width=sw * 0.5)
        for y in (-24, 4, 32)
    ]
    return g(
        [
            path(
                f"M{num(-w)} -40H{num(w)}L{num(0.66 * w)} 48H{num(-0.66 * w)}Z",
                color,
                stroke=ink,
                stroke_width=sw,
                stroke_linejoin="round",
            ),
            circle(0, -41, 1.1 * w, color, stroke=ink, stroke_width=sw),
            *bands,
        ]
    )


def _scimitar(color: str, ink: str, paper: str, w: float, sw: float) -> str:
    """Piacentine sword: a scimitar broadening towards its point; w is the blade half-width."""
    blade = (
        f"M{num(-w)} 18C{num(-1.66 * w)} -6 {num(-0.66 * w)} -32 {num(3 * w)} -50"
        f"C{num(1.66 * w)} -30 {num(1.66 * w)} -6 {num(1.16 * w)} 18Z"
    )
    gw, g1, g2 = 3.3 * w, 14 + 1.16 * w, 14 + 2.5 * w
    grip = 14 + 1.6 * w
    return g(
        [
            path(blade, color, stroke=ink, stroke_width=sw, stroke_linejoin="round"),
            path(
                f"M{num(0.16 * w)} 14C{num(-0.2 * w)} -4 {num(0.3 * w)} -22 {num(1.6 * w)} -36",
                stroke=paper,
                stroke_width=0.3 * w,
            ),
            path(
                f"M{num(-gw)} 14Q0 {num(14 + 1.33 * w)} {num(gw)} 14L{num(gw)} {num(g1)}"
                f"Q0 {num(g2)} {num(-gw)} {num(g1)}Z",
                ink,
            ),
            rect(-0.6 * w, grip, 1.2 * w, 16, color, stroke=ink, stroke_width=sw * 0.7),
            path(f"M{num(-w)} {num(grip + 16)}H{num(w)}L0 {num(grip + 16 + 1.5 * w)}Z", ink),
        ]
    )


def _espada(color: str, ink: str, paper: str, w: float, sw: float) -> str:
    """Spagnole sword: a straight blade, point up, a cross guard and a round pommel."""
    blade = f"M{num(-w)} 18L{num(-w)} -38L0 -50L{num(w)} -38L{num(w)} 18Z"
    grip = 18 + 1.2 * w
    return g(
        [
            path(blade, color, stroke=ink, stroke_width=sw, stroke_linejoin="round"),
            path("M0 14V-40", stroke=paper, stroke_width=0.35 * w),
            rect(-3.4 * w, 18, 6.8 * w, 1.3 * w, ink, rx=0.65 * w),
            circle(-3.4 * w, 18 + 0.65 * w, 0.9 * w, ink),
            circle(3.4 * w, 18 + 0.65 * w, 0.9 * w, ink),
            rect(-0.6 * w, grip, 1.2 * w, 16, color, stroke=ink, stroke_width=sw * 0.7),
            circle(0, grip + 16 + 0.8 * w, w, ink),
        ]
    )


def pip_spagnole(suit: str, color: str, ink: str, paper: str, pfx: str) -> str:
    line = {"stroke": ink, "stroke-width": 3, "stroke-linejoin": "round"}
    if suit == "D":  # oros: a coin with a ring of sun rays around a boss
        ray = path("M-3 -36L0 -28L3 -36Z", ink, id=pfx + "e")
        return g(
            [
                circle(0, 0, 46, color, **line),
                circle(0, 0, 39, "none", stroke=ink, stroke_width=1.5),
                ray,
                *[use(pfx + "e", r=22.5 * k) for k in range(1, 16)],
                circle(0, 0, 22, "none", stroke=ink, stroke_width=2.5),
                circle(0, 0, 12, ink),
                circle(-3.5, -3.5, 3.5, paper, opacity=0.7),
            ]
        )
    if suit == "H":  # copas: a goblet with a knotted stem and a lid knob
        return g(
            [
                path("M-36 -34H36C36 -6 20 8 0 9C-20 8 -36 -6 -36 -34Z", color, **line),
                path("M-38 -36H38", stroke=ink, stroke_width=5, stroke_linecap="round"),
                circle(0, -44, 5, color, **line),
                path("M-28 -20Q0 -12 28 -20", stroke=paper, stroke_width=3.5),
                path("M-5 9H5L4 30H-4Z", color, **line),
                circle(0, 19, 6, color, **line),
                path("M-4 30C-10 38 -24 41 -30 47H30C24 41 10 38 4 30Z", color, **line),
            ]
        )
    if suit == "C":
        return _club(color, ink, paper, 12, 3)
    return _espada(color, ink, paper, 6, 3)


def pip_napoletane(suit: str, color: str, ink: str, paper: str, pfx: str) -> str:
    line = {"stroke": ink, "stroke-width": 3, "stroke-linejoin": "round"}
    if suit == "D":  # coin with an eight-petal rosette
        petal = ellipse(0, -17, 6.5, 12, ink, id=pfx + "e")
        return g(
            [
                circle(0, 0, 46, color, **line),
                circle(0, 0, 37, "none", stroke=ink, stroke_width=2),
                petal,
                *[use(pfx + "e", r=45 * k) for k in range(1, 8)],
                circle(0, 0, 7, paper, stroke=ink, stroke_width=2),
            ]
        )
    if suit == "H":  # round goblet
        return g(
            [
                path("M-38 -38H38C38 -8 22 8 0 9C-22 8 -38 -8 -38 -38Z", color, **line),
                ellipse(0, -38, 38, 8, color, **line),
                ellipse(0, -38, 30, 4.5, ink),
                path("M-31 -22Q0 -14 31 -22", stroke=paper, stroke_width=4),
                path("M-6 9H6L4 28H-4Z", color, **line),
                ellipse(0, 19, 10, 5, color, **line),
                path("M-4 28C-8 37 -22 41 -28 47H28C22 41 8 37 4 28Z", color, **line),
            ]
        )
    if suit == "C":
        return _club(color, ink, paper, 13, 3)
    return _sabre(color, ink, paper, 6, 3)


def pip_piacentine(suit: str, color: str, ink: str, paper: str, pfx: str) -> str:
    line = {"stroke": ink, "stroke-width": 3, "stroke-linejoin": "round"}
    if suit == "D":  # coin with a ring of dots and an eight-pointed star
        dot = circle(0, -40, 3, ink, id=pfx + "e")
        return g(
            [
                circle(0, 0, 46, color, **line),
                dot,
                *[use(pfx + "e", r=30 * k) for k in range(1, 12)],
                circle(0, 0, 31, "none", stroke=ink, stroke_width=2.5),
                rect(-15, -15, 30, 30, ink),
                rect(-15, -15, 30, 30, ink, transform="rotate(45)"),
                circle(0, 0, 7, paper),
            ]
        )
    if suit == "H":  # tall chalice with a flared rim
        return g(
            [
                path("M-32 -46C-30 -20 -22 -6 0 -4C22 -6 30 -20 32 -46Z", color, **line),
                path("M-36 -47H36", stroke=ink, stroke_width=5, stroke_linecap="round"),
                path("M-26 -30H26", stroke=paper, stroke_width=3),
                path("M-5 -4H5L4 34H-4Z", color, **line),
                ellipse(0, 6, 9, 4.5, color, **line),
                ellipse(0, 22, 7, 3.5, color, **line),
                path("M-4 34L-26 46H26L4 34Z", color, **line),
            ]
        )
    if suit == "C":
        return _staff(color, ink, paper, 9, 3)
    return _scimitar(color, ink, paper, 6, 3)


def long_pip_def(style: str, suit: str, pfx: str, ace: bool) -> str:
    """The slender baton or sword laid out long on the Italian 1-7 (id <pfx>l)."""
    sp = suit_pal(style, suit)
    paper = pal(style)["paper"]
    draw = {
        ("napoletane", "C"): (_club, 5.5, 8.0),
        ("napoletane", "S"): (_sabre, 3.6, 4.4),
        ("piacentine", "C"): (_staff, 5.0, 6.5),
        ("piacentine", "S"): (_scimitar, 3.6, 4.4),
        ("spagnole", "C"): (_club, 5.5, 8.0),
        ("spagnole", "S"): (_espada, 3.4, 4.4),
    }
    fn, w_long, w_ace = draw[style, suit]
    body = fn(sp["color"], pal(style)["line"], paper, w_ace if ace else w_long, 1.3)
    return f'<g id="{pfx}l">' + body[3:]


def pip_def(style: str, suit: str, pfx: str) -> str:
    sp = suit_pal(style, suit)
    paper = pal(style)["paper"]
    line = sp["ink"] if suit == "D" else pal(style)["line"]
    if style == "french":
        body = pip_french(suit, sp["color"])
    elif style == "napoletane":
        body = pip_napoletane(suit, sp["color"], line, paper, pfx)
    elif style == SPANISH:
        body = pip_spagnole(suit, sp["color"], line, paper, pfx)
    else:
        body = pip_piacentine(suit, sp["color"], line, paper, pfx)
    if body.startswith("<g>"):
        return f'<g id="{pfx}p">' + body[3:]
    return g([body], id=pfx + "p")


# ---- layouts -----------------------------------------------------------------------

# French: two columns, the lower half upside down.
_FR_LAYOUT: dict[int, list[tuple[float, float]]] = {
    2: [(100, 64), (100, 236)],
    3: [(100, 64), (100, 150), (100, 236)],
    4: [(64, 64), (136, 64), (64, 236), (136, 236)],
    5: [(64, 64), (136, 64), (100, 150), (64, 236), (136, 236)],
    6: [(64, 64), (136, 64), (64, 150), (136, 150), (64, 236), (136, 236)],
    7: [(64, 64), (136, 64), (100, 107), (64, 150), (136, 150), (64, 236), (136, 236)],
}

# Italian coins and cups, upright (the 3 of coins on a diagonal).
_ROUND_LAYOUT: dict[int, list[tuple[float, float]]] = {
    2: [(100, 86), (100, 214)],
    3: [(100, 68), (100, 150), (100, 232)],
    4: [(66, 86), (134, 86), (66, 214), (134, 214)],
    5: [(66, 78), (134, 78), (100, 150), (66, 222), (134, 222)],
    6: [(66, 70), (134, 70), (66, 150), (134, 150), (66, 230), (134, 230)],
    7: [(66, 70), (134, 70), (54, 150), (100, 150), (146, 150), (66, 230), (134, 230)],
}
_DENARI_3 = [(62, 76), (100, 150), (138, 224)]

# Italian batons and swords: long and crossed, as on real cards, each pair mirrored
# (x, y, rotation, scale, mirrored).
_Long = tuple[float, float, float, float, bool]
_X: list[_Long] = [(100, 150, -24, 1.9, False), (100, 150, 24, 1.9, True)]
_SIDES: list[_Long] = [(50, 150, 0, 1.75, True), (150, 150, 0, 1.75, False)]
_TWO_X: list[_Long] = [
    (100, 94, -36, 1.0, False),
    (100, 94, 36, 1.0, True),
    (100, 206, -36, 1.0, False),
    (100, 206, 36, 1.0, True),
]
_MIDDLE: list[_Long] = [(100, 150, 0, 1.9, False)]
_LONG_LAYOUT: dict[int, list[_Long]] = {
    2: _X,
    3: _X + _MIDDLE,
    4: _SIDES + _X,
    5: _SIDES + _X + _MIDDLE,
    6: _SIDES + _TWO_X,
    7: _MIDDLE + _SIDES + _TWO_X,
}


# Spanish 8, 9 and 10 (the 10 of the poker deck only), in rows and columns: coins and
# cups small, batons and swords upright; (spots, scale).
_ROUND_COLUMNS: dict[int, list[tuple[float, float]]] = {
    8: [(66, 60), (134, 60), (66, 120), (134, 120), (66, 180), (134, 180), (66, 240), (134, 240)],
    9: [
        (54, 72),
        (100, 72),
        (146, 72),
        (54, 150),
        (100, 150),
        (146, 150),
        (54, 228),
        (100, 228),
        (146, 228),
    ],
    10: [
        (62, 60),
        (138, 60),
        (100, 92),
        (62, 124),
        (138, 124),
        (62, 176),
        (138, 176),
        (100, 208),
        (62, 240),
        (138, 240),
    ],
}
_LONG_COLUMNS: dict[int, list[tuple[float, float]]] = {
    8: [(x, y) for y in (96, 204) for x in (46, 82, 118, 154)],
    9: [(x, y) for y in (72, 150, 228) for x in (58, 100, 142)],
    10: [(x, y) for y in (96, 204) for x in (40, 70, 100, 130, 160)],
}
_COLUMN_SCALES = {True: {8: 0.95, 9: 0.68, 10: 0.9}, False: {8: 0.34, 9: 0.34, 10: 0.32}}


def italian_long(style: str, suit: str) -> bool:
    return style != "french" and suit in LONG


def pips(style: str, suit: str, n: int, pfx: str) -> list[str]:
    ref = pfx + "p"
    if style == "french":
        if n == 1:
            return [use(ref, 100, 150, 1.1)]
        return [use(ref, x, y, 0.42, 180 if y > 150 else 0) for x, y in _FR_LAYOUT[n]]
    if n >= 8:  # Spanish decks only
        long = italian_long(style, suit)
        grid = _LONG_COLUMNS[n] if long else _ROUND_COLUMNS[n]
        ref = pfx + ("l" if long else "p")
        return [use(ref, x, y, _COLUMN_SCALES[long][n]) for x, y in grid]
    if italian_long(style, suit):
        if n == 1:
            return [use(pfx + "l", 100, 150, 2.2)]
        return [use(pfx + "l", x, y, s, r, f) for x, y, r, s, f in _LONG_LAYOUT[n]]
    if n == 1:
        return [use(ref, 100, 150, 1.25 if suit == "D" else 1.5)]
    spots = _DENARI_3 if (n == 3 and suit == "D") else _ROUND_LAYOUT[n]
    s = 0.38 if n >= 6 else 0.44
    return [use(ref, x, y, s) for x, y in spots]


def ace_frame(style: str, suit: str) -> list[str]:
    """A little decoration around the big pip of an ace."""
    sp = suit_pal(style, suit)
    if style == "french":
        return [circle(100, 150, 70, "none", stroke=sp["color"], stroke_width=1.5, opacity=0.5)]
    if style == "napoletane":
        return [
            rect(34, 44, 132, 212, "none", stroke=sp["ink"], stroke_width=1.5, rx=66, opacity=0.6)
        ]
    if style == SPANISH:
        return [
            circle(100, 150, 74, "none", stroke=sp["ink"], stroke_width=1.5, opacity=0.6),
            circle(100, 150, 80, "none", stroke=sp["ink"], stroke_width=0.8, opacity=0.5),
        ]
    return [
        path(
            "M100 40L162 150L100 260L38 150Z",
            "none",
            stroke=sp["ink"],
            stroke_width=1.5,
            opacity=0.6,
        )
    ]


# ---- corner index ------------------------------------------------------------------

FONTS = {
    "french": "Helvetica, Arial, sans-serif",
    "napoletane": "Georgia, 'Times New Roman', serif",
    "piacentine": "Georgia, 'Times New Roman', serif",
    "spagnole": "Georgia, 'Times New Roman', serif",
}


def index_group(style: str, code: str, pfx: str) -> str:
    rank, suit = code[0], code[1]
    sp = suit_pal(style, suit)
    label = corner_label(style, rank)
    size = 22 if len(label) > 1 else 25
    text = el(
        "text",
        {
            "x": 19,
            "y": 32,
            "fill": sp["ink"],
            "font-family": FONTS[style],
            "font-size": size,
            "font-weight": "bold",
            "text-anchor": "middle",
            "letter-spacing": -1 if len(label) > 1 else None,
        },
        esc(label),
    )
    if italian_long(style, suit):
        mark = use(pfx + "p", 19, 50, 0.28)
    else:
        mark = use(pfx + "p", 19, 47, 0.18)
    return g([text, mark], id=pfx + "i")


# ---- court figures -----------------------------------------------------------------


def _line(style: str) -> dict[str, object]:
    return {"stroke": pal(style)["line"], "stroke-width": 1.5, "stroke-linejoin": "round"}


def _face(style: str, cx: float, cy: float, rx: float = 16, ry: float = 19) -> list[str]:
    p = pal(style)
    ln = p["line"]
    return [
        rect(cx - 6, cy + ry - 6, 12, 16, p["skin"], **_line(style)),
        ellipse(cx, cy, rx, ry, p["skin"], **_line(style)),
        circle(cx - 6, cy - 2, 1.8, ln),
        circle(cx + 6, cy - 2, 1.8, ln),
        path(
            f"M{num(cx - 1)} {num(cy + 1)}Q{num(cx - 4)} {num(cy + 7)} {num(cx + 1)} {num(cy + 7)}",
            stroke=ln,
            stroke_width=1.2,
        ),
        path(
            f"M{num(cx - 5)} {num(cy + 12)}Q{num(cx)} {num(cy + 15)} {num(cx + 5)} {num(cy + 12)}",
            stroke=ln,
            stroke_width=1.2,
        ),
    ]


def _crown(style: str, cx: float, top: float, small: bool = False) -> list[str]:
    p = pal(style)
    w = 12 if small else 17
    h = 12 if small else 20
    b = top + h
    d = polygon(
        (cx - w, b),
        (cx - w - 2, top + 4),
        (cx - w / 2, top + h / 2),
        (cx, top),
        (cx + w / 2, top + h / 2),
        (cx + w + 2, top + 4),
        (cx + w, b),
    )
    return [
        path(d, p["gold"], **_line(style)),
        circle(cx, b - 4, 2.5, p["paper"], stroke=p["line"], stroke_width=1),
        circle(cx - w + 4, b - 4, 1.8, p["line"]),
        circle(cx + w - 4, b - 4, 1.8, p["line"]),
    ]


def _held(ref: str, x: float, y: float, style: str, suit: str, scale: float = 0.3) -> list[str]:
    """The suit symbol held up at (x, y), with the hand holding it."""
    p = pal(style)
    if italian_long(style, suit):  # held by the grip, leaning out
        s = scale * 1.25
        d = 34 * s
        hand = circle(x - 0.34 * d, y + 0.94 * d, 5.5, p["skin"], **_line(style))
        return [use(ref, x, y, s, 20), hand]
    return [use(ref, x, y, scale), circle(x, y + 50 * scale + 3, 5.5, p["skin"], **_line(style))]


def _sleeve(cx: float, hx: float, hy: float, robe: str, style: str) -> str:
    """An arm from the right shoulder (cx + 26, ~112) up to a hand at (hx, hy)."""
    d = (
        f"M{num(cx + 22)} 110Q{num(hx + 10)} 108 {num(hx + 6)} {num(hy + 3)}"
        f"L{num(hx - 6)} {num(hy + 3)}Q{num(hx - 6)} {num(hy + 14)} {num(cx + 20)} 124Z"
    )
    return path(d, robe, **_line(style))


def half_figure(style: str, code: str, ref: str) -> list[str]:
    """The top half of a double-ended court (drawn for y < ~150, x 30..170)."""
    rank, suit = code[0], code[1]
    p = pal(style)
    robe = suit_pal(style, suit)["color"]
    trim = p["gold"] if suit != "D" else p["trim"]
    ln = _line(style)
    cavallo = style != "french" and rank == "Q"
    queen = style == "french" and rank == "Q"
    cx = 114 if cavallo else 100
    out: list[str] = []
    if queen:  # long hair, behind the shoulders
        hair = "M83 66C76 90 74 112 68 128L90 124C86 106 86 88 88 70Z"
        out.append(path(hair, p["hair"], **ln))
        out.append(path(mirror_x(hair), p["hair"], **ln))
    torso = (
        f"M{num(cx - 46)} 190L{num(cx - 45)} 132C{num(cx - 44)} 116 {num(cx - 34)} 108"
        f" {num(cx - 18)} 105L{num(cx)} 112L{num(cx + 18)} 105C{num(cx + 34)} 108"
        f" {num(cx + 44)} 116 {num(cx + 45)} 132L{num(cx + 46)} 190Z"
    )
    out.append(path(torso, robe, **ln))
    out.append(
        path(
            f"M{num(cx - 30)} 122Q{num(cx - 33)} 150 {num(cx - 30)} 190",
            stroke=p["line"],
            stroke_width=1.5,
        )
    )
    out.append(
        path(f"M{num(cx - 18)} 105L{num(cx)} 128L{num(cx + 18)} 105", stroke=trim, stroke_width=5)
    )
    out.append(path(f"M{num(cx)} 128V190", stroke=trim, stroke_width=3))
    if rank == "K":  # ermine collar and a sceptre
        collar = f"M{num(cx - 38)} 122Q{num(cx)} 102 {num(cx + 38)} 122"
        out.append(path(collar, stroke=p["trim"], stroke_width=9, stroke_linecap="round"))
        out.append(
            path(
                collar,
                stroke=p["line"],
                stroke_width=2.5,
                stroke_dasharray="1.5 8",
                stroke_linecap="round",
            )
        )
        out.append(
            path(
                f"M{num(cx - 36)} 170L{num(cx - 40)} 92",
                stroke=p["line"],
                stroke_width=3.5,
                stroke_linecap="round",
            )
        )
        out.append(circle(cx - 40, 88, 5, p["gold"], **ln))
        out.append(circle(cx - 38, 136, 5.5, p["skin"], **ln))
    if queen:  # a necklace and a flower
        out.append(
            path(
                "M86 110Q100 122 114 110",
                stroke=p["trim"],
                stroke_width=3,
                stroke_dasharray="0.1 5",
                stroke_linecap="round",
            )
        )
        out.append(path("M64 140L58 100", stroke=p["line"], stroke_width=1.5))
        out.append(circle(58, 96, 5, p["trim"], **ln))
        out.append(circle(58, 96, 2, p["gold"]))
        out.append(circle(63, 136, 5.5, p["skin"], **ln))
    hx, hy = cx + 40, 100 if rank == "K" else 96
    hand_y = hy + 15 + 3 if not italian_long(style, suit) else hy + 16
    out.append(_sleeve(cx, hx, hand_y, robe, style))
    out.extend(_face(style, cx, 76))
    if rank == "K":  # beard and crown
        out.append(
            path(
                f"M{num(cx - 16)} 80Q{num(cx - 16)} 104 {num(cx)} 108Q{num(cx + 16)} 104"
                f" {num(cx + 16)} 80Q{num(cx + 10)} 92 {num(cx)} 92Q{num(cx - 10)} 92"
                f" {num(cx - 16)} 80Z",
                p["hair"],
                **ln,
            )
        )
        out.extend(_crown(style, cx, 40))
    elif queen:
        out.append(
            path("M84 72Q86 56 100 56Q114 56 116 72Q108 62 100 62Q92 62 84 72Z", p["hair"], **ln)
        )
        out.extend(_crown(style, 100, 44, small=True))
    else:  # fante, cavallo: hair and a cap with a feather
        out.append(
            path(
                f"M{num(cx - 17)} 72Q{num(cx - 16)} 58 {num(cx)} 58Q{num(cx + 16)} 58"
                f" {num(cx + 17)} 72Q{num(cx + 8)} 64 {num(cx)} 64Q{num(cx - 8)} 64"
                f" {num(cx - 17)} 72Z",
                p["hair"],
                **ln,
            )
        )
        out.append(
            path(
                f"M{num(cx - 20)} 62C{num(cx - 20)} 46 {num(cx - 2)} 40 {num(cx + 18)} 48"
                f"C{num(cx + 26)} 52 {num(cx + 24)} 60 {num(cx + 18)} 62Z",
                robe,
                **ln,
            )
        )
        out.append(
            path(
                f"M{num(cx + 14)} 50Q{num(cx + 30)} 34 {num(cx + 24)} 22"
                f"Q{num(cx + 22)} 40 {num(cx + 8)} 48Z",
                trim,
                **ln,
            )
        )
    if cavallo:
        out.append(g(_horse_head(style), transform="translate(4 40) scale(.78)"))
    out.extend(_held(ref, hx, hy, style, suit))
    return out


def _horse_head(style: str, colour: str | None = None) -> list[str]:
    """A horse's head and neck looking left (for the cavallo), x 26..90, y 44..190."""
    p = pal(style)
    horse = colour or ("#9a6a3e" if style == "piacentine" else "#e9e2d3")
    ln = _line(style)
    return [
        path(
            "M46 190C40 150 42 116 50 100L40 88C32 84 26 78 28 70L42 58C46 54 52 54"
            " 56 56L62 44L68 58C78 70 84 92 84 112C84 140 80 170 78 190Z",
            horse,
            **ln,
        ),
        path("M64 52C78 64 88 88 88 126", stroke=p["line"], stroke_width=5, stroke_linecap="round"),
        circle(48, 66, 2.2, p["line"]),
        circle(32, 72, 1.5, p["line"]),
        path("M36 80L56 68L64 84", stroke=p["gold"], stroke_width=2.5),
    ]


def full_figure(style: str, code: str, ref: str) -> list[str]:
    """A standing (or riding) Napoletane court figure, head up, over the whole card."""
    rank, suit = code[0], code[1]
    p = pal(style)
    sp = suit_pal(style, suit)
    robe = sp["color"]
    trim = p["gold"] if suit != "D" else p["trim"]
    ln = _line(style)
    out: list[str] = [ellipse(100, 262, 56, 7, "#d9ccb0")]
    if rank == "Q":  # cavallo: rider on a horse
        horse = "#e9e2d3"
        out.append(
            path("M150 186C166 196 168 222 160 244C156 226 152 206 144 196Z", p["hair"], **ln)
        )
        for x in (66, 82, 120, 136):
            out.append(rect(x, 196, 9, 62, horse, **ln))
            out.append(rect(x - 1, 252, 11, 7, p["line"], rx=2))
        out.append(ellipse(102, 192, 52, 26, horse, **ln))
        out.append(g(_horse_head(style, horse), transform="translate(8 40) scale(.8)"))
        # rider
        out.append(path("M86 178C86 150 92 130 106 126C120 130 126 150 126 178Z", robe, **ln))
        out.append(path("M100 170L98 226H114L116 170Z", robe, **ln))
        out.append(path("M96 222H118L120 232H94Z", p["line"]))
        out.append(path("M106 126V178", stroke=trim, stroke_width=3))
        out.append(path("M118 136Q136 128 140 112L132 106Q128 120 114 126Z", robe, **ln))
        out.extend(_face(style, 106, 102, 14, 17))
        out.append(path("M88 92C88 78 102 72 120 78C128 82 128 88 122 90Z", robe, **ln))
        out.append(path("M118 80Q134 64 128 52Q126 68 112 76Z", trim, **ln))
        out.extend(_held(ref, 138, 80, style, suit, 0.3))
        return out
    wide = rank == "K"
    if wide:  # long robe and a sceptre
        out.append(
            path(
                "M62 260C64 200 72 140 80 116L100 120L120 116C128 140 136 200 138 260Z", robe, **ln
            )
        )
        out.append(
            path("M58 260C58 210 62 150 74 118L80 116C74 160 76 220 80 260Z", p["trim"], **ln)
        )
        out.append(
            path(
                mirror_x("M58 260C58 210 62 150 74 118L80 116C74 160 76 220 80 260Z"),
                p["trim"],
                **ln,
            )
        )
        out.append(path("M100 122V258", stroke=trim, stroke_width=4))
        out.append(path("M76 170H124", stroke=trim, stroke_width=5))
        out.append(
            path(
                "M80 112Q100 128 120 112", stroke=p["trim"], stroke_width=9, stroke_linecap="round"
            )
        )
        out.append(
            path(
                "M80 112Q100 128 120 112",
                stroke=p["line"],
                stroke_width=2.5,
                stroke_dasharray="1.5 7",
                stroke_linecap="round",
            )
        )
        out.append(path("M60 96V230", stroke=p["line"], stroke_width=3.5, stroke_linecap="round"))
        out.append(circle(60, 92, 6, p["gold"], **ln))
        out.append(circle(62, 150, 6, p["skin"], **ln))
        out.append(path("M118 120Q138 124 140 146L132 150Q130 134 116 132Z", robe, **ln))
        out.extend(_face(style, 100, 84, 15, 18))
        out.append(
            path("M85 86Q86 110 100 114Q114 110 115 86Q108 98 100 98Q92 98 85 86Z", p["hair"], **ln)
        )
        out.extend(_crown(style, 100, 48))
        out.extend(_held(ref, 140, 126, style, suit, 0.3))
        return out
    # fante: young man in a tunic and hose
    out.append(rect(86, 176, 12, 80, p["line"], **ln))
    out.append(rect(102, 176, 12, 80, trim if suit != "D" else p["line"], **ln))
    out.append(ellipse(90, 257, 10, 4.5, p["line"]))
    out.append(ellipse(110, 257, 10, 4.5, p["line"]))
    out.append(
        path("M70 186C72 150 76 118 86 106L100 110L114 106C124 118 128 150 130 186Z", robe, **ln)
    )
    out.append(path("M76 150H124", stroke=trim, stroke_width=5))
    out.append(path("M86 106L100 122L114 106", stroke=trim, stroke_width=4))
    out.append(path("M82 112Q70 130 72 160L80 162Q80 136 88 120Z", robe, **ln))
    out.append(circle(76, 164, 5.5, p["skin"], **ln))
    out.append(path("M114 110Q134 112 140 96L132 90Q126 102 112 102Z", robe, **ln))
    out.extend(_face(style, 100, 80, 15, 18))
    out.append(
        path("M85 78Q86 62 100 62Q114 62 115 78Q108 68 100 68Q92 68 85 78Z", p["hair"], **ln)
    )
    out.append(path("M82 68C82 52 98 46 118 52C126 56 126 64 120 66Z", robe, **ln))
    out.append(path("M116 54Q132 38 126 26Q124 42 110 52Z", trim, **ln))
    out.extend(_held(ref, 138, 70, style, suit, 0.3))
    return out


def court(style: str, code: str, pfx: str) -> list[str]:
    ref = pfx + "p"
    sp = suit_pal(style, code[1])
    p = pal(style)
    if style == "napoletane":
        return full_figure(style, code, ref)
    half = pfx + "h"
    clip = pfx + "c"
    if style == "french":
        clip_shape = rect(36, 28, 128, 122, "#000")
        frame = [rect(36, 28, 128, 244, p["paper"], stroke=sp["ink"], stroke_width=2, rx=3)]
        divider = [path("M36 150H164", stroke=sp["ink"], stroke_width=1.5)]
    else:
        clip_shape = path("M0 0H200V122L0 178Z", "#000")
        frame = []
        divider = [
            path("M24 180L176 120", stroke=sp["ink"], stroke_width=2),
            circle(100, 150, 5, p["gold"], stroke=sp["ink"], stroke_width=1.5),
        ]
    defs = el("clipPath", {"id": clip}, clip_shape)
    top = g(half_figure(style, code, ref), id=half, clip_path=f"url(#{clip})")
    bottom = el("use", {"href": "#" + half, "transform": "rotate(180 100 150)"})
    return [defs, *frame, top, bottom, *divider]


# ---- backs -------------------------------------------------------------------------


def back(style: str) -> str:
    p = pal(style)
    pfx = style[0] + "b"
    ground = p["back"]
    light = p["paper"]
    if style == "french":
        tile = el(
            "pattern",
            {
                "id": pfx + "t",
                "width": 16,
                "height": 16,
                "patternUnits": "userSpaceOnUse",
                "patternTransform": "rotate(45)",
            },
            rect(0, 0, 16, 16, ground)
            + path("M0 8H16M8 0V16", stroke=light, stroke_width=1.2, opacity=0.55)
            + circle(8, 8, 2.2, light),
        )
        medal = [
            circle(100, 150, 34, ground, stroke=light, stroke_width=3),
            path("M100 124L114 150L100 176L86 150Z", light),
            circle(100, 150, 5, ground),
        ]
    elif style == "napoletane":
        tile = el(
            "pattern",
            {
                "id": pfx + "t",
                "x": 16,
                "y": 18,
                "width": 24,
                "height": 24,
                "patternUnits": "userSpaceOnUse",
            },
            rect(0, 0, 24, 24, ground)
            + circle(12, 12, 6, "none", stroke=p["gold"], stroke_width=1.6)
            + circle(12, 12, 2, p["gold"])
            + circle(0, 0, 2.5, p["gold"], opacity=0.6)
            + circle(24, 0, 2.5, p["gold"], opacity=0.6)
            + circle(0, 24, 2.5, p["gold"], opacity=0.6)
            + circle(24, 24, 2.5, p["gold"], opacity=0.6),
        )
        medal = [
            ellipse(100, 150, 40, 52, ground, stroke=p["gold"], stroke_width=4),
            ellipse(100, 150, 30, 42, "none", stroke=light, stroke_width=1.5),
            circle(100, 150, 16, p["gold"]),
            circle(100, 150, 6, ground),
        ]
    elif style == SPANISH:
        gold = p["gold"]
        tile = el(
            "pattern",
            {
                "id": pfx + "t",
                "x": 12,
                "y": 12,
                "width": 22,
                "height": 22,
                "patternUnits": "userSpaceOnUse",
            },
            rect(0, 0, 22, 22, ground)
            + path("M11 1L21 11L11 21L1 11Z", "none", stroke=gold, stroke_width=1.3, opacity=0.8)
            + circle(11, 11, 2.2, gold)
            + circle(0, 0, 1.6, light, opacity=0.7)
            + circle(22, 0, 1.6, light, opacity=0.7)
            + circle(0, 22, 1.6, light, opacity=0.7)
            + circle(22, 22, 1.6, light, opacity=0.7),
        )
        medal = [
            ellipse(100, 150, 42, 56, ground, stroke=gold, stroke_width=4),
            ellipse(100, 150, 33, 46, "none", stroke=light, stroke_width=1.5),
            circle(100, 150, 20, gold, stroke=light, stroke_width=1.5),
            circle(100, 150, 12, "none", stroke=ground, stroke_width=2),
            circle(100, 150, 5, ground),
        ]
    else:
        stripe = "#d9c98a"
        tile = el(
            "pattern",
            {
                "id": pfx + "t",
                "x": 25,
                "y": 15,
                "width": 30,
                "height": 30,
                "patternUnits": "userSpaceOnUse",
            },
            rect(0, 0, 30, 30, ground)
            + rect(0, 10, 30, 10, "#143d30", opacity=0.7)
            + rect(10, 0, 10, 30, "#143d30", opacity=0.7)
            + rect(0, 14, 30, 2, stripe, opacity=0.8)
            + rect(14, 0, 2, 30, stripe, opacity=0.8)
            + rect(0, 0, 30, 1, "#b23a2e", opacity=0.8)
            + rect(0, 0, 1, 30, "#b23a2e", opacity=0.8),
        )
        medal = [
            path("M100 100L140 150L100 200L60 150Z", ground, stroke=stripe, stroke_width=4),
            path("M100 116L126 150L100 184L74 150Z", "none", stroke=light, stroke_width=1.5),
            circle(100, 150, 10, stripe),
        ]
    body = [
        el("defs", None, tile),
        rect(12, 12, 176, 276, f"url(#{pfx}t)", rx=6),
        rect(12, 12, 176, 276, "none", stroke=light, stroke_width=2, rx=6),
        *medal,
    ]
    return document(style, pfx, back_name(style), body)


# ---- cards -------------------------------------------------------------------------


def document(style: str, pfx: str, title: str, body: list[str]) -> str:
    p = pal(style)
    head = (
        f'<svg xmlns="{SVG_NS}" viewBox="0 0 {W} {H}" width="{W}" height="{H}" role="img"'
        f' aria-labelledby="{pfx}-t">'
    )
    frame = rect(2, 2, W - 4, H - 4, p["paper"], stroke=p["border"], stroke_width=2, rx=12)
    parts = [head, el("title", {"id": pfx + "-t"}, esc(title)), frame, *body, "</svg>"]
    return "\n".join(parts) + "\n"


def card(style: str, code: str) -> str:
    rank, suit = code[0], code[1]
    pfx = style[0] + code
    n = RANKS.index(rank) + 1
    shapes = pip_def(style, suit, pfx)
    if n <= 7 and italian_long(style, suit):
        shapes += long_pip_def(style, suit, pfx, ace=n == 1)
    body: list[str] = [el("defs", None, shapes)]
    if rank in "JQK":
        body.extend(court(style, code, pfx))
    else:
        if n == 1:
            body.extend(ace_frame(style, suit))
        body.extend(pips(style, suit, n, pfx))
    body.append(index_group(style, code, pfx))
    body.append(el("use", {"href": f"#{pfx}i", "transform": "rotate(180 100 150)"}))
    return document(style, pfx, card_name(style, code), body)


# ---- Cirulo's Spanish cards ---------------------------------------------------------

_SPANISH_NUMBERS = (
    "Asso",
    "Due",
    "Tre",
    "Quattro",
    "Cinque",
    "Sei",
    "Sette",
    "Otto",
    "Nove",
    "Dieci",
)
_SPANISH_COURTS = ("Sota", "Caballo", "Rey")
_SPANISH_SUIT_WORDS = {"O": "denari", "C": "coppe", "E": "spade", "B": "bastoni"}
#: Breaks in the top and bottom lines (the "pinta") per suit, on the Italian letters.
_PINTA = {"D": 0, "H": 1, "S": 2, "C": 3}


def spanish_codes(deck: str) -> list[str]:
    """Every code of a Spanish deck in cirulla.cirulo's order (suits O C E B, then rank)."""
    return [rank + suit for suit in SPANISH_SUITS for rank in SPANISH_RANKS[deck]]


def spanish_rank(deck: str, code: str) -> int:
    """1 (the ace) to 12 (rey) or 13 (K), as cirulla.cirulo.Card.rank."""
    return SPANISH_RANKS[deck].index(code[:-1]) + 1


def spanish_court(deck: str, code: str) -> int | None:
    """0 sota, 1 caballo, 2 rey, or None for a number card."""
    n = spanish_rank(deck, code)
    first = 10 if deck == "spanish48" else 11
    return n - first if n >= first else None


def spanish_name(deck: str, code: str) -> str:
    """The Italian name, as js/cirulo-cards.js says it: "Sette di coppe", "Rey di spade"."""
    court = spanish_court(deck, code)
    if court is not None:
        word = _SPANISH_COURTS[court]
    else:
        word = _SPANISH_NUMBERS[spanish_rank(deck, code) - 1]
    return f"{word} di {_SPANISH_SUIT_WORDS[code[-1]]}"


def pinta(suit: str, pfx: str) -> str:
    """The line along the top edge, broken once more per suit from oros (none) to bastos."""
    breaks = _PINTA[suit]
    left, right, gap = 44.0, 156.0, 9.0
    seg = (right - left - gap * breaks) / (breaks + 1)
    d = "".join(
        f"M{num(left + k * (seg + gap))} 13H{num(left + k * (seg + gap) + seg)}"
        for k in range(breaks + 1)
    )
    ink = suit_pal(SPANISH, suit)["ink"]
    return path(d, stroke=ink, stroke_width=2.2, stroke_linecap="round", id=pfx + "n")


def spanish_index(label: str, suit: str, pfx: str) -> str:
    sp = suit_pal(SPANISH, suit)
    text = el(
        "text",
        {
            "x": 19,
            "y": 32,
            "fill": sp["ink"],
            "font-family": FONTS[SPANISH],
            "font-size": 22 if len(label) > 1 else 25,
            "font-weight": "bold",
            "text-anchor": "middle",
            "letter-spacing": -1 if len(label) > 1 else None,
        },
        esc(label),
    )
    if italian_long(SPANISH, suit):
        mark = use(pfx + "p", 19, 50, 0.28)
    else:
        mark = use(pfx + "p", 19, 47, 0.18)
    return g([text, mark], id=pfx + "i")


def spanish_card(deck: str, code: str) -> str:
    """One card of a Spanish deck: pips 1-10 or a standing court, the pinta, the indices."""
    suit = AS_ITALIAN[code[-1]]
    pfx = ("s" if deck == "spanish48" else "k") + code
    n = spanish_rank(deck, code)
    court = spanish_court(deck, code)
    shapes = pip_def(SPANISH, suit, pfx)
    if court is None and italian_long(SPANISH, suit):
        shapes += long_pip_def(SPANISH, suit, pfx, ace=n == 1)
    body: list[str] = [el("defs", None, shapes)]
    if court is not None:
        body.extend(full_figure(SPANISH, "JQK"[court] + suit, pfx + "p"))
    else:
        if n == 1:
            body.extend(ace_frame(SPANISH, suit))
        body.extend(pips(SPANISH, suit, n, pfx))
    body.append(pinta(suit, pfx))
    body.append(el("use", {"href": f"#{pfx}n", "transform": "rotate(180 100 150)"}))
    body.append(spanish_index(code[:-1], suit, pfx))
    body.append(el("use", {"href": f"#{pfx}i", "transform": "rotate(180 100 150)"}))
    return document(SPANISH, pfx, spanish_name(deck, code), body)


def spanish_index_entry() -> dict[str, object]:
    """index.json's "spanish": where each Cirulo deck's files are, codes, names, palette."""
    suits = PALETTES[SPANISH]["suits"]
    assert isinstance(suits, dict)
    return {
        "style": SPANISH,
        "back": "back.svg",
        "decks": {
            deck: {
                "path": SPANISH_PATHS[deck],
                "cards": spanish_codes(deck),
                "names": {code: spanish_name(deck, code) for code in spanish_codes(deck)},
            }
            for deck in SPANISH_RANKS
        },
        "palette": {
            **{k: v for k, v in PALETTES[SPANISH].items() if k != "suits"},
            "suits": {suit: suits[AS_ITALIAN[suit]] for suit in SPANISH_SUITS},
        },
    }


def index_json() -> str:
    styles: dict[str, object] = {}
    for style in STYLES:
        styles[style] = {
            "cards": codes(),
            "back": "back.svg",
            "names": {code: card_name(style, code) for code in codes()},
            "corners": {rank: corner_label(style, rank) for rank in RANKS},
            "palette": PALETTES[style],
        }
    data = {"styles": styles, "spanish": spanish_index_entry()}
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def render() -> dict[str, str]:
    """Every output file, relative path -> text."""
    files: dict[str, str] = {}
    for style in STYLES:
        for code in codes():
            files[f"{style}/{code}.svg"] = card(style, code)
        files[f"{style}/back.svg"] = back(style)
    for deck, where in SPANISH_PATHS.items():
        for code in spanish_codes(deck):
            files[f"{where}/{code}.svg"] = spanish_card(deck, code)
    files[f"{SPANISH}/back.svg"] = back(SPANISH)
    files["index.json"] = index_json()
    return files


def _our_dirs() -> list[str]:
    """The folders whose SVG files are all ours (stale ones are removed or reported)."""
    return [*STYLES, *SPANISH_PATHS.values()]


def write(out: Path) -> list[Path]:
    """Write every file under `out` (removing stale SVGs of ours); return the paths."""
    files = render()
    written = []
    for rel, text in files.items():
        target = out / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        data = text.encode("utf-8")
        if not target.exists() or target.read_bytes() != data:
            target.write_bytes(data)
        written.append(target)
    for folder in _our_dirs():
        for old in sorted((out / folder).glob("*.svg")):
            if f"{folder}/{old.name}" not in files:
                old.unlink()
    return written


def check(out: Path) -> list[str]:
    """The relative paths under `out` that are missing, stale or extra."""
    files = render()
    bad = [
        rel
        for rel, text in files.items()
        if not (out / rel).exists() or (out / rel).read_bytes() != text.encode("utf-8")
    ]
    for folder in _our_dirs():
        for old in sorted((out / folder).glob("*.svg")):
            if f"{folder}/{old.name}" not in files:
                bad.append(f"{folder}/{old.name}")
    return bad


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output directory")
    parser.add_argument("--check", action="store_true", help="only check the files are current")
    args = parser.parse_args(argv)
    if args.check:
        bad = check(args.out)
        for rel in bad:
            print(f"stale: {rel}", file=sys.stderr)
        return 1 if bad else 0
    paths = write(args.out)
    print(f"wrote {len(paths)} files under {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
