"""The web client's weight and time to first interaction on a phone profile.

    python benchmarks/web_weight.py [--src DIR] [--runs 3] [--proxy nginx] [--json PATH]

Starts `cirulla serve` (test mode, SQLite in a temporary directory) from the source
tree `--src` (default: this checkout's src/; give another worktree's src/ to measure
an older commit), then opens Chromium (/usr/bin/chromium, or CIRULLA_CHROMIUM) with a
phone profile: a 390x844 touch viewport, CPU throttled 4x
(`Emulation.setCPUThrottlingRate`) and a fast-3G-like network (1.6 Mbit/s down,
750 kbit/s up, 150 ms latency; `Network.emulateNetworkConditions`), cache disabled.

Two pages, each loaded cold `--runs` times (the median is reported):
- the lobby, with one open table listed: its "Siediti" button;
- a table where the guest is seated against a bot and moves first (test mode's table
  route, the bot dealing): the cards of the guest's hand on the board that lists the
  guest's legal moves (`.board[data-legal] .hand-card`).

Time to first interaction (`ms_to_interaction`) is when the player can act there: the
page's own clock (performance.now(), 0 being the navigation's start) at the first
animation frame in which every element the selector matches (the "Siediti" button; every
`.hand-card`) is in the layout (has a box), is not disabled, and shows its face: each
<img> inside it has loaded (complete, with a width). A hand card is a button whose click
handlers table-play.js attaches in the same task that draws it, so from that frame a tap
plays it; a card whose SVG has not arrived yet is blank and does not count. The frame is
watched by a requestAnimationFrame loop installed before the page's own scripts, so no
round trip of Playwright's is in the figure. `ms_wall` is the same moment as Playwright
sees it (from `goto` until its polling notices, which adds its own round trips to the
throttled page; the figure of the earliest results).

`--proxy nginx` puts nginx (/usr/sbin/nginx, or CIRULLA_NGINX) in front of the server
with deploy/nginx/cirulla.conf, the file the README gives operators: TLS with a
certificate made for the run (the browser told to accept it) and HTTP/2, as a public
server is reached; without it the browser talks HTTP/1.1 to `cirulla serve` itself.
Each sample names the protocols its responses came by.

For each: the bytes transferred (response bodies and headers as Chromium received
them, every request of the page including the WebSocket handshake; the frames are not
counted, nor requests the page makes after the network is idle), the number of
requests, the time to first interaction, and where the time went until then
(`Performance.getMetrics`, throttled milliseconds): script, style and layout.
`--waterfall` adds each page's requests of its last load, in order, with their start,
first byte and end in ms from the first request, and the bytes of each. Prints JSON;
`--json PATH` writes it too (with the load average: other work on the machine slows
the throttled page, so compare figures taken at a similar load, or interleave runs of
two trees). Targets (issue 15): under 300 KB and 1 s.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from _report import write_json
from nginx_front import free_port, start_nginx, wait_healthy

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = os.environ.get("CIRULLA_CHROMIUM", "/usr/bin/chromium")
PHONE = {"width": 390, "height": 844}
CPU_SLOWDOWN = 4
NETWORK = {  # a fast 3G, as Chromium's DevTools preset
    "offline": False,
    "latency": 150,
    "downloadThroughput": 1.6 * 1024 * 1024 / 8,
    "uploadThroughput": 750 * 1024 / 8,
}


def start_server(
    src: Path, data: Path, extra_env: dict[str, str] | None = None
) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = dict(os.environ)
    env.update(
        {
            "PYTHONPATH": str(src),  # before the editable install's path: this tree's code
            "CIRULLA_TEST_MODE": "1",
            "CIRULLA_BOT_DELAY": "0.3",
            "CIRULLA_LOG_LEVEL": "warning",
            "CIRULLA_REGISTRATIONS_PER_HOUR": "100000",
            "CIRULLA_SOCKETS_PER_ADDRESS": "100000",
            "CIRULLA_LOGIN_ATTEMPTS": "100000",
            **(extra_env or {}),
        }
    )
    cmd = [sys.executable, "-m", "cirulla", "serve", "--port", str(port)]
    cmd += ["--data-dir", str(data)]
    log = (data.parent / "server.log").open("ab")
    proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=log, cwd=data.parent)
    base = f"http://127.0.0.1:{port}"
    wait_healthy(proc, base, 60, "the server")
    return proc, base


# Checked at every frame from the document's start: the page's own clock
# (performance.now(), 0 at the navigation's start) when every element `READY` matches is
# first in the layout, enabled, and its images loaded (the module docstring's definition).
WATCH_READY = """(() => {
  const drawn = (img) => img.complete && img.naturalWidth > 0;
  const ready = (el) => !el.disabled && el.getClientRects().length > 0
    && [...el.querySelectorAll("img")].every(drawn);
  const check = () => {
    const els = [...document.querySelectorAll(READY)];
    if (els.length && els.every(ready)) window.__readyAt = performance.now();
    else requestAnimationFrame(check);
  };
  requestAnimationFrame(check);
})();"""


def measure(
    browser: Any, base: str, path: str, ready: str, setup: Any, waterfall: bool = False
) -> dict[str, Any]:
    """One cold load of `path` in a fresh phone context; `ready` is the selector that
    must be visible and enabled."""
    ctx = browser.new_context(
        base_url=base,
        viewport=PHONE,
        is_mobile=True,
        has_touch=True,
        locale="it-IT",
        ignore_https_errors=True,  # --proxy: the run's own certificate
    )
    page = ctx.new_page()
    page.set_default_timeout(60_000)
    target = setup(page)
    # in the page, from its navigation's start: the first frame where `ready` is shown
    # and enabled (no round trip of Playwright's own in the figure)
    page.add_init_script(WATCH_READY.replace("READY", json.dumps(ready.format(target=target))))
    cdp = ctx.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
    cdp.send("Network.emulateNetworkConditions", NETWORK)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": CPU_SLOWDOWN})
    cdp.send("Performance.enable", {"timeDomain": "threadTicks"})
    sizes: dict[str, float] = {}
    cdp.on(
        "Network.loadingFinished",
        lambda e: sizes.__setitem__(e["requestId"], e.get("encodedDataLength", 0)),
    )
    # the waterfall: request id -> url, and the times (CDP's monotonic seconds)
    times: dict[str, dict[str, Any]] = {}

    def at(event: Any, key: str, **extra: Any) -> None:
        times.setdefault(event["requestId"], {}).update({key: event["timestamp"], **extra})

    cdp.on("Network.requestWillBeSent", lambda e: at(e, "start", url=e["request"]["url"]))
    cdp.on(
        "Network.responseReceived",
        lambda e: at(e, "response", protocol=e["response"].get("protocol", "")),
    )
    cdp.on("Network.loadingFinished", lambda e: at(e, "end", bytes=e.get("encodedDataLength", 0)))
    cdp.on(
        "Network.webSocketCreated", lambda e: times.setdefault(e["requestId"], {"url": e["url"]})
    )
    cdp.on("Network.webSocketWillSendHandshakeRequest", lambda e: at(e, "start"))
    cdp.on("Network.webSocketHandshakeResponseReceived", lambda e: at(e, "end"))
    start = time.perf_counter()
    page.goto(path.format(target=target), wait_until="commit")
    in_page = page.wait_for_function("() => window.__readyAt").json_value()
    elapsed = (time.perf_counter() - start) * 1000
    metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
    # let the requests the page started finish (fonts, late modules) before summing
    page.wait_for_load_state("networkidle")
    result: dict[str, Any] = {
        "load_average_1min": round(os.getloadavg()[0], 2),
        "ms_to_interaction": round(in_page),
        "ms_wall": round(elapsed),
        "bytes": int(sum(sizes.values())),
        "requests": len(sizes),
        "protocols": sorted({t["protocol"] for t in times.values() if t.get("protocol")}),
        "until_interaction_ms": {
            "script": round(metrics.get("ScriptDuration", 0) * 1000),
            "style": round(metrics.get("RecalcStyleDuration", 0) * 1000),
            "layout": round(metrics.get("LayoutDuration", 0) * 1000),
            "tasks": round(metrics.get("TaskDuration", 0) * 1000),
        },
    }
    if waterfall:
        result["waterfall"] = waterfall_of(times, base)
    ctx.close()
    return result


def waterfall_of(times: dict[str, dict[str, Any]], base: str) -> list[dict[str, Any]]:
    """The requests in the order they started: [url, start, first byte, end] in ms from
    the first request (the page's own)."""
    seen = [t for t in times.values() if "start" in t and "url" in t]
    if not seen:
        return []
    zero = min(t["start"] for t in seen)

    def ms(t: dict[str, Any], key: str) -> int | None:
        return round((t[key] - zero) * 1000) if key in t else None

    host = base.split("//", 1)[1]
    return [
        {
            "url": t["url"].replace(base, "").replace(f"ws://{host}", "ws:"),
            "start": ms(t, "start"),
            "response": ms(t, "response"),
            "end": ms(t, "end"),
            "bytes": int(t.get("bytes", 0)),
        }
        for t in sorted(seen, key=lambda t: t["start"])
    ]


def run(src: Path, runs: int, waterfall: bool = False, proxy: str | None = None) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        trusted = {"CIRULLA_TRUSTED_PROXIES": "127.0.0.1"} if proxy else {}
        proc, base = start_server(src, data, trusted)
        front: subprocess.Popen[bytes] | None = None
        page_base = base  # where the browser goes: the server, or nginx in front of it
        try:
            if proxy == "nginx":
                front, page_base = start_nginx(base.split("//", 1)[1], Path(tmp) / "nginx")
            host = httpx.Client(base_url=base, timeout=10)
            assert host.post("/api/guest").status_code == 201
            config = {"name": "bench", "players": 2}
            r = host.post("/api/tables", json={"config": config, "seat": 0})
            assert r.status_code == 201, r.text
            lobby_table: str = r.json()["table"]["id"]

            def as_guest(page: Any) -> str:
                assert page.request.post("/api/guest").status == 201
                return lobby_table

            def at_a_table(page: Any) -> str:
                as_guest(page)
                # seat 1 deals: the guest (seat 0) moves first, so the hand can be played
                config = {"players": 2, "bots": {"1": "facile"}}
                body = {"config": config, "seat": 0, "dealer": 1}
                r = page.request.post("/api/test/tables", data=body)
                assert r.status == 201, r.text()
                table: str = r.json()["table"]["id"]
                return table

            with sync_playwright() as pw:
                browser = pw.chromium.launch(
                    executable_path=CHROMIUM,
                    headless=True,
                    args=["--no-sandbox", "--disable-gpu"],
                )
                out: dict[str, Any] = {}
                lobby_button = '.lobby-table[data-table="{target}"] button'
                pages = {
                    "lobby": ("/lobby", lobby_button, as_guest),
                    "table": ("/table/{target}", ".board[data-legal] .hand-card", at_a_table),
                }
                for name, (path, ready, setup) in pages.items():
                    samples = [
                        measure(browser, page_base, path, ready, setup, waterfall and i == runs - 1)
                        for i in range(runs)
                    ]
                    out[name] = {
                        "ms_to_interaction": statistics.median(
                            s["ms_to_interaction"] for s in samples
                        ),
                        "ms_wall": statistics.median(s["ms_wall"] for s in samples),
                        "bytes": statistics.median(s["bytes"] for s in samples),
                        "requests": statistics.median(s["requests"] for s in samples),
                        "protocols": sorted({p for s in samples for p in s["protocols"]}),
                        "until_interaction_ms": {
                            k: statistics.median(s["until_interaction_ms"][k] for s in samples)
                            for k in samples[0]["until_interaction_ms"]
                        },
                        "samples": samples,
                    }
                browser.close()
            return out
        finally:
            for running in (front, proc):
                if running is None:
                    continue
                running.terminate()
                try:
                    running.wait(10)
                except subprocess.TimeoutExpired:
                    running.kill()


def git_commit(src: Path) -> str:
    try:
        return subprocess.run(
            ["git", "-C", str(src), "rev-parse", "HEAD"], capture_output=True, text=True
        ).stdout.strip()
    except OSError:
        return ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--src", type=Path, default=ROOT / "src")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--waterfall", action="store_true", help="each page's requests")
    parser.add_argument(
        "--proxy", choices=["nginx"], help="TLS and HTTP/2 in front (deploy/nginx/cirulla.conf)"
    )
    args = parser.parse_args(argv)
    load_before = [round(x, 2) for x in os.getloadavg()]
    pages = run(args.src.resolve(), args.runs, args.waterfall, args.proxy)
    result = {
        "benchmark": "web_weight",
        "src": str(args.src.resolve()),
        "commit": git_commit(args.src),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        # other work on the machine (1, 5 and 15 minutes), before and after the runs; each
        # sample has the 1-minute figure at its end
        "load_average_start": load_before,
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "profile": {
            "viewport": PHONE,
            "mobile": True,
            "cpu_slowdown": CPU_SLOWDOWN,
            "network": NETWORK,
            "cache": "disabled",
            "proxy": args.proxy,
        },
        "targets": {"bytes": 300 * 1024, "ms_to_interaction": 1000},
        "pages": pages,
    }
    write_json(result, args.json, echo=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
