"""The score keeper page (/score) in Chromium on a phone: house rules, cards tapped to
each side for two smazzate, scope and accusi, the engine's sheet and totals, the
winner; a reload keeps the partita; cards left unassigned give a clear error."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from browserutil import PHONE, expect, page_opener, screenshot
from serverutil import Server, running_server

from cirulla import Rules, score_piles
from cirulla.cards import full_deck

DECK = [str(c) for c in full_deck()]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(tmp_path_factory.mktemp("web-score-keeper")) as s:
        yield s


@pytest.fixture
def pages(browser: Any, server: Server) -> Iterator[Callable[..., Any]]:
    with page_opener(browser, server.base_url) as open_page:
        yield open_page


def phone(pages: Callable[..., Any]) -> Any:
    return pages(viewport=PHONE, has_touch=True, is_mobile=True)


def card(page: Any, code: str) -> Any:
    return page.locator(f'.keeper-card[data-card="{code}"]')


def tap_cards(page: Any, codes: list[str]) -> None:
    for code in codes:
        before = card(page, code).get_attribute("data-side")
        card(page, code).tap()
        expect(card(page, code)).not_to_have_attribute("data-side", before or "")


def press(page: Any, side: int, what: str, label: str, times: int = 1) -> None:
    box = page.locator(f'.keeper-counter[data-what="{what}"][data-side="{side}"]')
    for _ in range(times):
        before = int(box.locator(".value").inner_text())
        step = int(label.lstrip("+"))
        box.locator("button", has_text=re.compile(rf"^\+{step}$")).tap()
        expect(box.locator(".value")).to_have_text(str(before + step))


def start(page: Any, *, target: int, names: tuple[str, str]) -> None:
    page.goto("/score")
    expect(page.get_by_role("heading", name="Segnapunti", level=1)).to_be_visible()
    expect(page.locator("#keeper-preset option")).not_to_have_count(1)  # /api/choices came
    page.locator("#keeper-target").fill(str(target))
    page.locator('input[name="name-0"]').fill(names[0])
    page.locator('input[name="name-1"]').fill(names[1])
    page.get_by_role("button", name="Inizia la partita").tap()
    expect(page.locator(".keeper-hand h2")).to_have_text("Smazzata 1")


def test_two_smazzate_tapped_on_a_phone_give_the_engines_totals_and_winner(
    pages: Callable[..., Any],
) -> None:
    rules = Rules().replace(target=21)
    page = phone(pages)
    start(page, target=21, names=("Anna", "Bruno"))

    # Smazzata 1: Anna takes six diamonds and the 7 of hearts; one tap too many moves
    # the 2 of hearts on to Bruno; Bruno takes the rest with one button.
    anna1 = ["AD", "2D", "3D", "4D", "5D", "6D", "7H"]
    tap_cards(page, anna1)
    tap_cards(page, ["2H", "2H"])
    expect(card(page, "2H")).to_have_attribute("data-side", "1")
    expect(page.locator(".keeper-counts")).to_contain_text("32 carte da assegnare")
    page.get_by_role("button", name="Il resto a Bruno").tap()
    expect(page.locator(".keeper-counts")).to_contain_text("0 carte da assegnare")
    press(page, 0, "scope", "+1", times=2)
    press(page, 0, "bonus", "+3")
    press(page, 1, "scope", "+1")
    screenshot(page, "score-keeper-phone-cards")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    box = card(page, "KS").bounding_box()
    assert box["width"] >= 44 and box["height"] >= 44  # a thumb's target
    bruno1 = [c for c in DECK if c not in anna1]
    sheet1 = score_piles(rules, [anna1, bruno1], scope=[2, 1], bonus=[3, 0])
    page.get_by_role("button", name="Conta la smazzata").tap()
    expect(page.locator(".keeper-hand h2")).to_have_text("Smazzata 2")
    totals = page.locator(".keeper-totals")
    expect(totals).to_have_text(f"Partita: Anna {sheet1.totals[0]} \u2013 Bruno {sheet1.totals[1]}")
    for i, side in enumerate(sheet1.sides):
        cell = page.locator(f'.score-table tr[data-item="total"] td[data-side="{i}"]')
        expect(cell).to_have_text(str(side["total"]))

    # A reload (a phone gone to sleep) keeps the partita and the sheet.
    page.reload()
    expect(page.locator(".keeper-hand h2")).to_have_text("Smazzata 2")
    expect(totals).to_have_text(f"Partita: Anna {sheet1.totals[0]} \u2013 Bruno {sheet1.totals[1]}")
    half = page.locator(".keeper-counter .value")
    expect(half.first).to_have_text("0")  # the new smazzata starts from nothing

    # Smazzata 2: tapping for Bruno first, the rest to Anna, and a decino for Anna.
    page.locator(".keeper-active").get_by_role("button", name="Bruno").tap()
    bruno2 = ["7D", "JD", "QD", "KD", "7C", "7S", "6C", "6S", "AC", "AS"]
    tap_cards(page, bruno2)
    page.get_by_role("button", name="Il resto a Anna").tap()
    press(page, 0, "bonus", "+10")
    press(page, 1, "scope", "+1", times=3)
    anna2 = [c for c in DECK if c not in bruno2]
    sheet2 = score_piles(rules, [anna2, bruno2], scope=[0, 3], bonus=[10, 0])
    page.get_by_role("button", name="Conta la smazzata").tap()
    final = [a + b for a, b in zip(sheet1.totals, sheet2.totals, strict=True)]
    assert max(final) >= 21 and final[0] != final[1]  # the partita is over after these two
    winner = "Anna" if final[0] > final[1] else "Bruno"
    expect(totals).to_have_text(f"Partita: Anna {final[0]} \u2013 Bruno {final[1]}")
    expect(page.locator(".keeper-winner")).to_have_text(f"{winner} vince la partita!")
    expect(page.locator(".keeper-hand")).to_have_count(0)  # no third smazzata to enter
    screenshot(page, "score-keeper-phone")

    # Undo brings the second smazzata back to be entered again.
    page.get_by_role("button", name="Annulla l'ultima smazzata").tap()
    expect(page.locator(".keeper-winner")).to_have_count(0)
    expect(page.locator(".keeper-hand h2")).to_have_text("Smazzata 2")
    expect(totals).to_have_text(f"Partita: Anna {sheet1.totals[0]} \u2013 Bruno {sheet1.totals[1]}")


def test_cards_left_unassigned_show_which_and_score_nothing(
    pages: Callable[..., Any],
) -> None:
    page = phone(pages)
    start(page, target=51, names=("Anna", "Bruno"))
    tap_cards(page, ["AD", "2D"])
    page.locator(".keeper-active").get_by_role("button", name="Bruno").tap()
    tap_cards(page, [c for c in DECK if c not in ("AD", "2D", "5H", "KS")])
    with page.expect_response("**/api/score") as answer:
        page.get_by_role("button", name="Conta la smazzata").tap()
    assert answer.value.status == 422
    assert "2 missing" in answer.value.json()["error"]["message"]
    alert = page.locator(".keeper-error")
    expect(alert).to_have_text(
        "2 carte ancora da assegnare (5\u2665 K\u2660): ogni carta va a qualcuno."
    )
    expect(page.locator(".keeper-hand h2")).to_have_text("Smazzata 1")
    expect(page.locator(".keeper-result .score-table")).to_have_count(0)
    # Given to a side, the smazzata counts.
    page.get_by_role("button", name="Il resto a Anna").tap()
    page.get_by_role("button", name="Conta la smazzata").tap()
    expect(page.locator(".keeper-hand h2")).to_have_text("Smazzata 2")
    expect(page.locator(".keeper-result .score-table")).to_have_count(1)


def test_the_score_keeper_needs_no_login_and_is_in_the_menu(pages: Callable[..., Any]) -> None:
    page = pages(locale="en-GB")
    page.goto("/")
    page.locator(".topnav").get_by_role("link", name="Scores").click()
    page.wait_for_url("**/score")
    expect(page.get_by_role("heading", name="Score keeper", level=1)).to_be_visible()
    expect(page.get_by_role("button", name="Start the partita")).to_be_visible()
