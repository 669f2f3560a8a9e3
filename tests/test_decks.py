"""The SVG card decks of the web client (scripts/make_decks.py, src/cirulla/web/decks/).

The committed files are what the generator writes; every card parses as SVG with a
viewBox, a role and an Italian title; the suit colours stay apart for normal vision
and for simulated colour-blindness. Cirulo's Spanish decks (style "spagnole": the
48-card deck and the 52-card poker deck) are checked the same way.
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from types import ModuleType

import pytest

from cirulla import cards
from cirulla.cirulo import cards as cirulo_cards

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "make_decks.py"
DECKS = ROOT / "src" / "cirulla" / "web" / "decks"
SVG = "{http://www.w3.org/2000/svg}"
CODES = [str(c) for c in cards.full_deck()]
STYLES = list(cards.STYLES)
#: Every style with a palette: the three Cirulla styles and Cirulo's Spanish cards.
PALETTE_STYLES = [*STYLES, "spagnole"]
SPANISH_DIRS = {"spanish48": "spagnole", "poker52": "spagnole/poker52"}
MAX_BYTES = 20 * 1024


def _load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_decks", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("make_decks", module)
    spec.loader.exec_module(module)
    return module


mk = _load_script()


def _files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def _svgs() -> list[Path]:
    return sorted(DECKS.rglob("*.svg"))


# ---- the committed files are current ------------------------------------------------


def test_committed_decks_are_what_the_generator_writes(tmp_path: Path) -> None:
    assert mk.main(["--out", str(tmp_path)]) == 0
    fresh = _files(tmp_path)
    committed = _files(DECKS)
    assert sorted(committed) == sorted(fresh), "run: python scripts/make_decks.py"
    stale = [rel for rel in fresh if fresh[rel] != committed[rel]]
    assert not stale, f"stale deck files {stale[:5]}: run python scripts/make_decks.py"


def test_generator_is_deterministic_and_check_mode_agrees(tmp_path: Path) -> None:
    assert mk.render() == mk.render()
    assert mk.main(["--out", str(tmp_path)]) == 0
    assert mk.main(["--out", str(tmp_path), "--check"]) == 0
    (tmp_path / "french" / "7D.svg").write_text("<svg/>", encoding="utf-8")
    (tmp_path / "napoletane" / "8D.svg").write_text("<svg/>", encoding="utf-8")
    assert mk.check(tmp_path) == ["french/7D.svg", "napoletane/8D.svg"]
    assert mk.main(["--out", str(tmp_path), "--check"]) == 1
    mk.main(["--out", str(tmp_path)])  # rewrites the stale card, removes the extra one
    assert mk.check(tmp_path) == []
    assert not (tmp_path / "napoletane" / "8D.svg").exists()


def test_script_constants_agree_with_the_engine() -> None:
    assert tuple(mk.RANKS) == tuple(cards.RANKS)
    assert tuple(mk.SUITS) == tuple(cards.SUITS)
    assert tuple(mk.STYLES) == tuple(cards.STYLES)
    assert mk.codes() == CODES


# ---- every style is complete -------------------------------------------------------


@pytest.mark.parametrize("style", STYLES)
def test_every_style_has_the_40_cards_and_a_back(style: str) -> None:
    names = sorted(p.name for p in (DECKS / style).glob("*.svg"))
    assert names == sorted([f"{code}.svg" for code in CODES] + ["back.svg"])


def test_index_lists_styles_cards_back_and_palette() -> None:
    index = json.loads((DECKS / "index.json").read_text(encoding="utf-8"))
    assert list(index["styles"]) == STYLES
    for style, entry in index["styles"].items():
        assert entry["cards"] == CODES
        assert entry["back"] == "back.svg"
        assert (DECKS / style / entry["back"]).is_file()
        for code in entry["cards"]:
            assert (DECKS / style / f"{code}.svg").is_file()
        assert entry["names"] == {code: mk.card_name(style, code) for code in CODES}
        assert entry["palette"] == mk.PALETTES[style]
        suits = entry["palette"]["suits"]
        assert list(suits) == list(cards.SUITS)
        for suit, colours in suits.items():
            assert re.fullmatch(r"#[0-9a-f]{6}", colours["color"])
            assert re.fullmatch(r"#[0-9a-f]{6}", colours["ink"])
            expected = cards.Card.parse("A" + suit).name(style, "it").split(" di ")[1]
            assert colours["name"] == expected


# ---- every file is a small, accessible SVG -----------------------------------------


@pytest.mark.parametrize("style", STYLES)
def test_every_file_is_a_small_svg_with_viewbox_role_and_title(style: str) -> None:
    for path in sorted((DECKS / style).glob("*.svg")):
        data = path.read_bytes()
        assert len(data) < MAX_BYTES, f"{path.name}: {len(data)} bytes"
        root = ET.fromstring(data)
        assert root.tag == SVG + "svg", path
        assert root.get("viewBox") == "0 0 200 300", path
        assert root.get("role") == "img", path
        title = root.find(SVG + "title")
        assert title is not None and (title.text or "").strip(), path
        assert root.get("aria-labelledby") == title.get("id"), path


def test_ids_are_unique_across_all_decks_and_every_reference_resolves() -> None:
    seen: dict[str, str] = {}
    for path in _svgs():
        root = ET.fromstring(path.read_bytes())
        ids = [e.attrib["id"] for e in root.iter() if "id" in e.attrib]
        for ident in ids:
            assert ident not in seen, f"id {ident} in {path} and {seen[ident]}"
            seen[ident] = str(path)
        for e in root.iter():
            for attr in ("href", "{http://www.w3.org/1999/xlink}href"):
                ref = e.get(attr)
                if ref is not None:
                    assert ref.startswith("#") and ref[1:] in ids, f"{path}: {ref}"
            for value in e.attrib.values():
                for ref in re.findall(r"url\(#([^)]+)\)", value):
                    assert ref in ids, f"{path}: url(#{ref})"


def test_repeated_pips_are_drawn_once_and_used() -> None:
    for style in STYLES:
        text = (DECKS / style / "7H.svg").read_text(encoding="utf-8")
        assert text.count("<defs>") == 1
        assert text.count("<use ") >= 7 + 2


_NUMBERS = ["Asso", "Due", "Tre", "Quattro", "Cinque", "Sei", "Sette"]


@pytest.mark.parametrize("style", STYLES)
def test_titles_are_the_italian_card_names(style: str) -> None:
    for card in cards.full_deck():
        root = ET.fromstring((DECKS / style / f"{card}.svg").read_bytes())
        title = root.find(SVG + "title")
        assert title is not None
        rank_word, suit_word = cards.Card.parse(card).name(style, "it").split(" di ")
        if card.value <= 7:
            rank_word = _NUMBERS[card.value - 1]
        assert title.text == f"{rank_word} di {suit_word}"
    back = ET.fromstring((DECKS / style / "back.svg").read_bytes()).find(SVG + "title")
    assert back is not None and (back.text or "").startswith("Dorso")


def test_known_titles() -> None:
    def title(style: str, code: str) -> str | None:
        root = ET.fromstring((DECKS / style / f"{code}.svg").read_bytes())
        element = root.find(SVG + "title")
        return None if element is None else element.text

    assert title("napoletane", "7D") == "Sette di denari"
    assert title("piacentine", "QS") == "Cavallo di spade"
    assert title("french", "QS") == "Donna di picche"
    assert title("french", "AH") == "Asso di cuori"
    assert title("piacentine", "KC") == "Re di bastoni"


@pytest.mark.parametrize("style", STYLES)
def test_every_card_has_corner_indices_in_its_suit_ink(style: str) -> None:
    for card in cards.full_deck():
        root = ET.fromstring((DECKS / style / f"{card}.svg").read_bytes())
        texts = list(root.iter(SVG + "text"))
        assert len(texts) == 1  # drawn once, shown twice
        label = texts[0].text
        assert label == (card.rank if style == "french" else str(card.value))
        assert texts[0].get("fill") == mk.suit_pal(style, card.suit)["ink"]
        corners = [
            e
            for e in root.iter(SVG + "use")
            if e.get("href") == f"#{style[0]}{card}i" and "rotate(180" in (e.get("transform") or "")
        ]
        assert len(corners) == 1
        assert mk.suit_pal(style, card.suit)["color"] in (DECKS / style / f"{card}.svg").read_text(
            encoding="utf-8"
        )


# ---- colours -----------------------------------------------------------------------

# Machado, Oliveira & Fernandes (2009), severity 1.0, applied to linear RGB.
_CVD = {
    "deuteranopia": (
        (0.367322, 0.860646, -0.227968),
        (0.280085, 0.672501, 0.047413),
        (-0.011820, 0.042940, 0.968881),
    ),
    "protanopia": (
        (0.152286, 1.052583, -0.204868),
        (0.114503, 0.786281, 0.099216),
        (-0.003882, -0.048116, 1.051998),
    ),
    "tritanopia": (
        (1.255528, -0.076749, -0.178779),
        (-0.078411, 0.930809, 0.147602),
        (0.004733, 0.691367, 0.303900),
    ),
}
#: Minimum CIELAB distance (Delta E 1976) between any two suit colours of a deck.
#: About 2.3 is a just-noticeable difference; 20+ reads as "a different colour".
_MIN_DELTA_E = {"normal": 40.0, "deuteranopia": 25.0, "protanopia": 25.0, "tritanopia": 20.0}


def _linear(hex_colour: str) -> tuple[float, float, float]:
    channels = [int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return r, g, b


def _simulate(rgb: tuple[float, float, float], kind: str) -> tuple[float, float, float]:
    if kind == "normal":
        return rgb
    m = _CVD[kind]
    r, g, b = (min(1.0, max(0.0, sum(m[i][j] * rgb[j] for j in range(3)))) for i in range(3))
    return r, g, b


def _lab(rgb: tuple[float, float, float]) -> tuple[float, float, float]:
    r, g, b = rgb
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116

    fx, fy, fz = f(x), f(y), f(z)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def _delta_e(a: str, b: str, kind: str) -> float:
    la, lb = _lab(_simulate(_linear(a), kind)), _lab(_simulate(_linear(b), kind))
    return float(sum((p - q) ** 2 for p, q in zip(la, lb, strict=True)) ** 0.5)


def _luminance(hex_colour: str) -> float:
    r, g, b = _linear(hex_colour)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _contrast(a: str, b: str) -> float:
    lo, hi = sorted((_luminance(a), _luminance(b)))
    return (hi + 0.05) / (lo + 0.05)


def test_colour_maths_sanity() -> None:
    assert _delta_e("#ffffff", "#ffffff", "normal") == 0
    assert _delta_e("#000000", "#ffffff", "normal") == pytest.approx(100, abs=0.1)
    assert _contrast("#000000", "#ffffff") == pytest.approx(21)
    # a plain red and a dark green: far apart for normal vision, not for a protanope
    assert _delta_e("#e0301e", "#0b6b2b", "normal") > 100
    assert _delta_e("#e0301e", "#0b6b2b", "protanopia") < 10
    # greys are unchanged by the simulations
    for kind in _CVD:
        assert _delta_e("#808080", "#808080", kind) == 0
        assert _lab(_simulate(_linear("#808080"), kind))[0] == pytest.approx(53.6, abs=0.5)


@pytest.mark.parametrize("style", PALETTE_STYLES)
@pytest.mark.parametrize("vision", list(_MIN_DELTA_E))
def test_suit_colours_stay_apart(style: str, vision: str) -> None:
    colours = {suit: mk.suit_pal(style, suit)["color"] for suit in cards.SUITS}
    for a, b in itertools.combinations(cards.SUITS, 2):
        distance = _delta_e(colours[a], colours[b], vision)
        assert distance >= _MIN_DELTA_E[vision], (
            f"{style} {a} {colours[a]} vs {b} {colours[b]}: Delta E {distance:.1f} for {vision}"
        )


@pytest.mark.parametrize("style", PALETTE_STYLES)
def test_indices_are_readable_on_the_paper(style: str) -> None:
    paper = mk.pal(style)["paper"]
    for suit in cards.SUITS:
        ink = mk.suit_pal(style, suit)["ink"]
        assert _contrast(ink, paper) >= 4.5, f"{style} {suit} ink {ink} on {paper}"


def test_palette_is_documented_in_the_script_docstring() -> None:
    doc = mk.__doc__ or ""
    sections = re.split(r"^    (\w+) \(paper (#\w+)\)$", doc, flags=re.M)
    documented = {
        style: (paper, body) for style, paper, body in zip(*[iter(sections[1:])] * 3, strict=True)
    }
    assert list(documented) == PALETTE_STYLES
    for style, (paper, body) in documented.items():
        assert paper == mk.pal(style)["paper"]
        for suit in cards.SUITS:
            entry = mk.suit_pal(style, suit)
            pattern = rf"^\s+{suit} {entry['name']}\s+{entry['color']} [\w ]+ink {entry['ink']}$"
            assert re.search(pattern, body, flags=re.M), f"{style} {suit}: docstring out of date"


# ---- Cirulo's Spanish cards --------------------------------------------------------------


def test_spanish_constants_agree_with_the_cirulo_engine() -> None:
    assert tuple(mk.SPANISH_SUITS) == tuple(cirulo_cards.SUITS)
    for deck in cirulo_cards.DECKS:
        assert mk.spanish_codes(deck) == [str(c) for c in cirulo_cards.full_deck(deck)]
        for c in cirulo_cards.full_deck(deck):
            assert mk.spanish_rank(deck, str(c)) == c.rank
    assert set(mk.SPANISH_PATHS) == set(cirulo_cards.DECKS) and mk.SPANISH_PATHS == SPANISH_DIRS


@pytest.mark.parametrize("deck", list(SPANISH_DIRS))
def test_every_spanish_deck_has_its_cards(deck: str) -> None:
    names = sorted(p.name for p in (DECKS / SPANISH_DIRS[deck]).glob("*.svg"))
    expected = [f"{c}.svg" for c in mk.spanish_codes(deck)]
    if deck == "spanish48":
        expected.append("back.svg")  # one back for both decks
    assert names == sorted(expected)


def test_index_lists_the_spanish_decks() -> None:
    index = json.loads((DECKS / "index.json").read_text(encoding="utf-8"))
    entry = index["spanish"]
    assert entry["style"] == "spagnole" and entry["back"] == "back.svg"
    assert (DECKS / "spagnole" / "back.svg").is_file()
    for deck, folder in SPANISH_DIRS.items():
        part = entry["decks"][deck]
        assert part["path"] == folder
        assert part["cards"] == [str(c) for c in cirulo_cards.full_deck(deck)]
        assert part["names"] == {code: mk.spanish_name(deck, code) for code in part["cards"]}
        for code in part["cards"]:
            assert (DECKS / folder / f"{code}.svg").is_file()
    suits = entry["palette"]["suits"]
    assert list(suits) == list(cirulo_cards.SUITS)
    assert [suits[s]["name"] for s in suits] == ["oros", "copas", "espadas", "bastos"]
    for spanish, italian in mk.AS_ITALIAN.items():
        assert suits[spanish] == mk.suit_pal("spagnole", italian)


@pytest.mark.parametrize("deck", list(SPANISH_DIRS))
def test_spanish_cards_are_small_accessible_svgs_named_in_italian(deck: str) -> None:
    words = ["Asso", "Due", "Tre", "Quattro", "Cinque", "Sei", "Sette", "Otto", "Nove", "Dieci"]
    suit_words = {"O": "denari", "C": "coppe", "E": "spade", "B": "bastoni"}
    courts = 10 if deck == "spanish48" else 11  # the 48-card deck's 10 is the sota
    for c in cirulo_cards.full_deck(deck):
        path = DECKS / SPANISH_DIRS[deck] / f"{c}.svg"
        data = path.read_bytes()
        assert len(data) < MAX_BYTES, f"{path.name}: {len(data)} bytes"
        root = ET.fromstring(data)
        assert root.tag == SVG + "svg" and root.get("viewBox") == "0 0 200 300", path
        assert root.get("role") == "img", path
        title = root.find(SVG + "title")
        assert title is not None and root.get("aria-labelledby") == title.get("id"), path
        rank = (
            ["Sota", "Caballo", "Rey"][c.rank - courts] if c.rank >= courts else words[c.rank - 1]
        )
        assert title.text == f"{rank} di {suit_words[c.suit]}", path
        texts = list(root.iter(SVG + "text"))
        assert [t.text for t in texts] == [str(c)[:-1]], path  # the corner index, drawn once
        ink = mk.suit_pal("spagnole", mk.AS_ITALIAN[c.suit])["ink"]
        assert texts[0].get("fill") == ink, path


def test_known_spanish_titles() -> None:
    def title(folder: str, code: str) -> str | None:
        element = ET.fromstring((DECKS / folder / f"{code}.svg").read_bytes()).find(SVG + "title")
        return None if element is None else element.text

    assert title("spagnole", "7C") == "Sette di coppe"
    assert title("spagnole", "10E") == "Sota di spade"
    assert title("spagnole", "11B") == "Caballo di bastoni"
    assert title("spagnole", "12O") == "Rey di denari"
    assert title("spagnole/poker52", "10E") == "Dieci di spade"
    assert title("spagnole/poker52", "AO") == "Asso di denari"
    assert title("spagnole/poker52", "QC") == "Caballo di coppe"


def test_the_pinta_tells_the_suit_by_its_breaks() -> None:
    """The lines along the top and bottom edges: oros unbroken, then one more break per
    suit (copas 1, espadas 2, bastos 3), the same on every card of the suit."""
    for deck, folder in SPANISH_DIRS.items():
        for c in cirulo_cards.full_deck(deck):
            root = ET.fromstring((DECKS / folder / f"{c}.svg").read_bytes())
            prefix = ("s" if deck == "spanish48" else "k") + str(c)
            line = next(e for e in root.iter(SVG + "path") if e.get("id") == prefix + "n")
            segments = (line.get("d") or "").count("M")
            assert segments == "OCEB".index(c.suit) + 1, (deck, str(c))
            turned = [e for e in root.iter(SVG + "use") if e.get("href") == f"#{prefix}n"]
            assert len(turned) == 1 and "rotate(180" in (turned[0].get("transform") or "")
