"""An arena run shown: the plot of the running margin and the table of final figures."""

from __future__ import annotations

from pathlib import Path

from rich.table import Table

from ..stats import MeanEstimate
from .config import ArenaConfig
from .results import CONFIDENCE, ArenaResult


def plot_running(result: ArenaResult, path: str | Path) -> None:
    """A PNG of the running margin per smazzata with its 95% band, over the pairs."""
    from matplotlib.figure import Figure  # only --plot needs matplotlib (Agg, no pyplot)

    running = result.running()
    xs = list(range(1, len(running) + 1))
    means = [e.mean if e.mean is not None else 0.0 for e in running]
    band_x: list[int] = []
    band_low: list[float] = []
    band_high: list[float] = []
    for x, e in zip(xs, running, strict=True):
        if e.low is not None and e.high is not None:
            band_x.append(x)
            band_low.append(e.low)
            band_high.append(e.high)
    fig = Figure(figsize=(8, 4.5), layout="constrained")
    ax = fig.add_subplot()
    ax.axhline(0.0, color="grey", linewidth=0.8)
    if band_x:
        ax.fill_between(
            band_x,
            band_low,
            band_high,
            alpha=0.3,
            label=f"{round(CONFIDENCE * 100)}% interval",
        )
    ax.plot(xs, means, label="running mean")
    config = result.config
    preset = _rules_label(config)
    ax.set_title(f"{config.bot_a.name} vs {config.bot_b.name}: {config.players} players, {preset}")
    ax.set_xlabel("paired decks")
    ax.set_ylabel(f"A - B points per {_unit(config)}")
    ax.legend(loc="best")
    fig.savefig(path, dpi=110, format="png")


def _fmt(value: float | None, digits: int = 3, sign: bool = True) -> str:
    if value is None:
        return "-"
    return f"{value:+.{digits}f}" if sign else f"{value:.{digits}f}"


def _fmt_estimate(e: MeanEstimate) -> str:
    if e.mean is None:
        return "-"
    if e.se is None:
        return _fmt(e.mean)
    return f"{_fmt(e.mean)} ± {_fmt(e.se, sign=False)} [{_fmt(e.low)}, {_fmt(e.high)}]"


def _unit(config: ArenaConfig) -> str:
    return "hand" if config.game == "cirulo" else "smazzata"


def _rules_label(config: ArenaConfig) -> str:
    if config.game == "cirulo":
        return f"cirulo, {config.cirulo_rules.deck}"
    return str(config.to_dict()["preset"] or "custom rules")


def result_table(result: ArenaResult) -> Table:
    """The final figures as a rich table."""
    config = result.config
    data = result.to_dict()
    table = Table(title=f"Arena: A = {config.bot_a.name}, B = {config.bot_b.name}")
    table.add_column("figure (A's point of view)")
    table.add_column("value: mean ± se [95% interval]", justify="right", no_wrap=True)
    table.add_row("players, rules", f"{config.players}, {_rules_label(config)}")
    unit = _unit(config)
    if result.pairs:
        s = data["smazzate"]
        table.add_row("paired decks (plays)", f"{s['pairs']} ({s['plays']})")
        table.add_row(f"A - B points per {unit}", _fmt_estimate(result.margin()))
        table.add_row("  A's side dealing", _fmt_estimate(result.margin_dealing(True)))
        table.add_row("  A's side not dealing", _fmt_estimate(result.margin_dealing(False)))
        table.add_row(
            f"points per {unit} A / B",
            f"{_fmt(s['a_points_per_seat'], 2, False)} / {_fmt(s['b_points_per_seat'], 2, False)}",
        )
        t = result.smazzate()
        rate = t.won / t.played if t.played else 0.0
        table.add_row(
            f"{'hands' if unit == 'hand' else 'smazzate'} won / lost / tied",
            f"{t.won} / {t.lost} / {t.tied} ({rate:.1%})",
        )
    if result.partite:
        t = result.partite_tally()
        wilson = result.partite_wilson()
        assert wilson is not None
        table.add_row(
            "partite won by A (Wilson 95%)",
            f"{t.won} of {t.played}: {t.won / t.played:.1%} [{wilson[0]:.1%}, {wilson[1]:.1%}]",
        )
        pp = result.partite_pairs()
        table.add_row("paired partite ahead / split / behind", f"{pp.won} / {pp.tied} / {pp.lost}")
        table.add_row("A - B points per partita", _fmt_estimate(result.partite_margin()))
    speed = result.speed()
    table.add_row(
        "moves per second (run)",
        f"{_fmt(speed['moves_per_second'], 0, False)} ({speed['moves']} in {result.seconds:.1f} s)",
    )
    table.add_row(
        "moves per second A / B (own time)",
        f"{_fmt(speed['a']['moves_per_second'], 0, False)}"
        f" / {_fmt(speed['b']['moves_per_second'], 0, False)}",
    )
    return table
