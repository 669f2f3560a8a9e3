"""A tournament's page left open follows it live, with no reload (docs/tournaments.md,
"Following a tournament").

The organiser opens a knockout of bots played as best of three (E5) and starts it
from the page; round 1's first partite are dealt a stacked deck that two `normale`
bots end level, so each goes to spareggi (E3). Without leaving or reloading the page,
the bracket shows the partite being played, then each partita's points, its spareggi
marked as such and its replay, and the final moving to its winner. Beside it, in a
second tab, a round robin's standings fill in with their partite and head-to-head
columns, the same figures the API gives. And the tournament words that count
(chips) follow each language's plural rules and digit grouping.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from browserutil import expect, page_opener, screenshot
from serverutil import Server, running_server
from test_server_tournament_spareggio import TIE_DEALER, TIE_DECK
from test_web_tournaments import console_errors, register, tournament_data, wait_for_data

# Slow machines: a whole tournament of bots that think a little.
TOURNAMENT_SECONDS = 300
CONFIG = {"players": 2, "options": {"hands": 1}, "move_seconds": 30}

# Counts the page's own loads: a reload or a navigation would start it again at 0.
STAY = """
window.addEventListener('load', () => {
    sessionStorage.setItem('loads', String(Number(sessionStorage.getItem('loads') || 0) + 1));
});
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    # bots that think a little: the page is open before the first partita ends
    with running_server(
        tmp_path_factory.mktemp("web-tournaments-live"), bot_delay=0.1, login_attempts=100_000
    ) as s:
        yield s


def create(page: Any, path: str, body: dict[str, Any], bots: dict[str, Any]) -> str:
    """A public tournament made by the page's player, filled with bots."""
    r = page.request.post(path, data={"starts_at": None, "private": False, **body})
    assert r.status == 201, r.text()
    tournament: str = r.json()["tournament"]["id"]
    r = page.request.post(f"/api/tournaments/{tournament}/bots", data=bots)
    assert r.ok, r.text()
    return tournament


def stays_open(page: Any, url_path: str) -> None:
    """The page is still the one first loaded: same address, loaded once, marked."""
    assert page.evaluate("() => location.pathname") == url_path
    assert page.evaluate("() => sessionStorage.getItem('loads')") == "1"
    assert page.evaluate("() => window.keptOpen") is True


def all_scored(data: dict[str, Any]) -> bool:
    """Over, and every partita's record read (its score may lag its result a moment)."""
    scores = [s for r in data["rounds"] for m in r["matches"] for s in m["scores"]]
    return data["tournament"]["status"] == "finished" and all(s["points"] for s in scores)


def points_text(pair: list[int]) -> str:
    return f"{pair[0]}–{pair[1]}"


def test_open_page_follows_partite_spareggi_and_standings_without_reload(
    browser: Any, server: Server
) -> None:
    with page_opener(browser, server.base_url) as pages:
        page = pages()
        errors = console_errors(page)
        page.context.add_init_script(STAY)
        register(page, "organiser_live")
        knockout = create(
            page,
            "/api/test/tournaments",
            {
                "name": "Live knockout",
                "format": "knockout",
                "config": CONFIG,
                "best_of": 3,
                "decks": [TIE_DECK],
                "dealer": TIE_DEALER,
            },
            {"level": "normale", "count": 4},
        )
        page.goto(f"/tournament/{knockout}")
        page.wait_for_selector(".tournament-head")
        page.evaluate("() => { window.keptOpen = true; }")
        expect(page.locator(".bracket-round .match.future")).to_have_count(3)  # 2 + the final

        # A second tab (same player) on a round robin of three bots.
        tab = page.context.new_page()
        tab_errors = console_errors(tab)
        robin = create(
            tab,
            "/api/tournaments",
            {
                "name": "Live robin",
                "format": "round-robin",
                "config": CONFIG,
            },
            {"level": "normale", "count": 3},
        )
        tab.goto(f"/tournament/{robin}")
        tab.wait_for_selector(".tournament-head")
        tab.evaluate("() => { window.keptOpen = true; }")
        tab.locator("button[name=start]").click()

        # Start the knockout from its page: round 1's partite are played.
        page.bring_to_front()
        page.locator("button[name=start]").click()
        first_round = page.locator(".bracket-round[data-round='1'] .match:not(.future)")
        expect(first_round).to_have_count(2)
        playing = page.locator(".bracket-round[data-round='1'] .match-partita[data-status=playing]")
        expect(playing).to_have_count(2)
        expect(playing.locator("a[data-action=table]")).to_have_count(2)
        expect(page.locator(".bracket-round[data-round='2'] .match.future")).to_have_count(1)

        # The partite end and the final is played to its end, all on the open page.
        expect(page.locator(".tournament-winner")).to_be_visible(timeout=TOURNAMENT_SECONDS * 1000)
        data = wait_for_data(page, knockout, all_scored, TOURNAMENT_SECONDS)
        stays_open(page, f"/tournament/{knockout}")
        for rnd in data["rounds"]:
            column = page.locator(f".bracket-round[data-round='{rnd['round']}']")
            for index, m in enumerate(rnd["matches"]):
                match = column.locator(f".match[data-match='{index}']")
                expect(match).to_have_attribute("data-status", "finished")
                rows = match.locator(".match-partita")
                expect(rows).to_have_count(len(m["scores"]))
                assert 2 <= len(m["scores"]) <= 3  # a best of three (E5)
                for k, score in enumerate(m["scores"]):
                    row = rows.nth(k)
                    expect(row).to_have_attribute("data-table", score["table"])
                    expect(row).to_contain_text(f"Partita {k + 1}")
                    expect(row.locator(".partita-points").first).to_have_text(
                        points_text(score["points"])
                    )
                    replay = row.locator("a[data-action=replay]")
                    expect(replay).to_have_attribute("href", f"/replay/{score['table']}")
                    spareggi = row.locator(".partita-spareggio")
                    expect(spareggi).to_have_count(len(score["spareggi"]))
                    for s, pair in enumerate(score["spareggi"]):
                        expect(spareggi.nth(s)).to_have_text(
                            f"spareggio {s + 1} {points_text(pair)}"
                        )
                if rnd["round"] == 1:  # the stacked deck: level, then spareggi (E3)
                    first = m["scores"][0]
                    assert first["points"] == [8, 8] and first["spareggi"], first
                    expect(rows.first.locator(".partita-spareggio").first).to_contain_text(
                        "spareggio 1"
                    )
        screenshot(page, "web-tournament-live-bracket")

        # The round robin's standings filled in, in place, with the new columns.
        tab.bring_to_front()
        wait_for_data(
            tab, robin, lambda d: d["tournament"]["status"] == "finished", TOURNAMENT_SECONDS
        )
        expect(tab.locator(".tournament-winner")).to_be_visible(timeout=30_000)
        stays_open(tab, f"/tournament/{robin}")
        standings = tournament_data(tab, robin)["standings"]
        head = tab.locator(".tournament-standings thead")
        expect(head.locator("th[data-col=head_to_head]")).to_have_text("Scontri diretti")
        expect(head.locator("th[data-col=partite_won]")).to_have_text("Partite")
        expect(head.locator("th[data-col=buchholz]")).to_have_count(0)  # Swiss only
        body_rows = tab.locator(".tournament-standings tbody tr")
        expect(body_rows).to_have_count(len(standings))
        for i, row in enumerate(standings):
            cells = body_rows.nth(i)
            for col in ("rank", "vp", "mp", "head_to_head", "partite_won", "played", "byes"):
                expect(cells.locator(f"td[data-col={col}]")).to_have_text(str(row[col]))
        # every partita of a round, with its points and replay, under the standings
        played = [m for r in tournament_data(tab, robin)["rounds"] for m in r["matches"]]
        assert sum(len(m["scores"]) for m in played) == 3  # 3 sides: 3 partite, 3 byes
        expect(tab.locator(".round-matches .match-partita a[data-action=replay]")).to_have_count(3)
        screenshot(tab, "web-tournament-live-standings")
        assert not errors, errors
        assert not tab_errors, tab_errors


PLURAL = """async ([lang, key, n, params]) => {
    const i18n = await import('/static/js/i18n.js');
    await i18n.setLanguage(lang);  // the other language's catalog may still be on its way
    return i18n.plural(key, n, params);
}"""


@pytest.mark.parametrize(
    ("lang", "key", "params", "one", "many"),
    [
        ("en", "tournament.prize_pool", {"split": "100%"}, "1 chip (100%)", "12,000 chips (100%)"),
        ("it", "tournament.prize_pool", {"split": "100%"}, "1 fiche (100%)", "12.000 fiche (100%)"),
        (
            "en",
            "tournament.prize_paid",
            {"name": "Anna"},
            "Anna won 1 chip",
            "Anna won 12,000 chips",
        ),
        ("it", "tournament.entry_fee", {}, "iscrizione: 1 fiche", "iscrizione: 12.000 fiche"),
        ("en", "tournament.entry_fee", {}, "entry fee: 1 chip", "entry fee: 12,000 chips"),
    ],
)
def test_tournament_counts_follow_each_languages_plural_rules(
    browser: Any, server: Server, lang: str, key: str, params: dict[str, str], one: str, many: str
) -> None:
    with page_opener(browser, server.base_url) as pages:
        page = pages()
        page.goto("/")
        page.wait_for_selector("#app *")
        assert page.evaluate(PLURAL, [lang, key, 1, params]) == one
        assert page.evaluate(PLURAL, [lang, key, 12000, params]) == many
