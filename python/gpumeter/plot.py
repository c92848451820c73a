"""Plots of records: ``gpumeter plot RECORD...`` and ``python -m gpumeter plot RECORD...``.

Three kinds of figure, each drawn from what a record holds (nothing is measured again):

- ``sweep``: time against size on log-log axes, one series per implementation, with each
  regime's growth exponent labelled at its points, the crossover brackets shaded between the two
  measured sizes of each bracket (a bracket whose order is not established is hatched), and the
  device's L2 size marked when the axis is a byte count.
- ``totals``: total(N) by phase, one stacked bar per candidate and N (the fixed terms, then N x
  the per-call time), the measured total of N calls beside each bar with its spread, and the
  crossovers in N.
- ``comparisons``: each comparison of the record, device-time differences as a percent with the
  interval they state (99%), wall-clock comparisons as the time ratio with the band under the
  core's resolution ratio (RESOLUTION_RATIO).

Each figure is written as ``gpumeter-<run id>-<kind>[-<case>].<svg|png>`` and never over an
existing file: when any file a run would write exists, it writes nothing and says which. Every
drawn element has a stable id (its matplotlib gid, the SVG element's id): ``series-<impl>``,
``exponent-<impl>-<i>``, ``bracket-<low>-<high>``, ``l2-line``, ``stack-<candidate>-<N>-<phase>``,
``measured-<candidate>-<N>``, ``interval-<candidate>``, ``ratio-<candidate>``; a repeated id gets
``-2``, ``-3``... in drawing order.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
import textwrap
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple, Union

from . import _gpumeter
from ._errors import ConfigError, Error
from ._records import read_record

MISSING_MATPLOTLIB = ("gpumeter plot draws with matplotlib: pip install matplotlib "
                      "(or, in the gpumeter checkout, pip install '.[plot]')")

# What plot() and `gpumeter plot` accept and draw when told nothing: written here once, the
# parser's choices, help and defaults made from them.
FORMATS = ("svg", "png", "pdf")
DEFAULT_FORMATS = ("svg", "png")
KINDS = ("sweep", "totals", "comparisons")

# Under it a wall-clock comparison claims no difference: the core's resolution, read from it to
# draw its band and to word an amount as the core words it (a percent under it, a factor from it).
RESOLUTION_RATIO: float = _gpumeter.RESOLUTION_RATIO
_RATIO = f"{RESOLUTION_RATIO:g}x"  # as captions and ids say it

# A regime's label names its fit's largest miss beyond this (log10 residual 0.05).
MISS_SHOWN = 10 ** 0.05 - 1

# A stacked bar chart switches to a log axis when its bars span more than this factor: then the
# smallest bar would be under 2% of the axis and unreadable.
LOG_SPAN = 50.0


class NothingToDraw(Error):
    """None of the records given holds anything a plot can show (no sweep of 3 or more sizes,
    no phases, no comparison)."""


# --- small helpers -------------------------------------------------------------------------


def _matplotlib() -> Any:
    try:
        import matplotlib
    except ImportError as e:
        raise ImportError(MISSING_MATPLOTLIB) from e
    return matplotlib


_ID_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def _t(text: object) -> str:
    """A record's text as a label shows it: each line through the core's terminal rule
    (inert_text: controls, zero-width and bidirectional marks shown as escapes, so an ESC in a
    name cannot make the SVG invalid XML, nor a mark reorder a label), and a '$' a dollar, never
    the start of math. The lines a label is drawn on stay lines."""
    return "\n".join(_gpumeter.inert_text(line) for line in str(text).split("\n")).replace(
        "$", r"\$")


def _choices(values: Sequence[str], allowed: Sequence[str], argument: str) -> None:
    """Refuses, before anything is read or drawn, a list of `argument` values that is empty,
    names a value twice (the second file would meet the first) or one not in `allowed`."""
    if isinstance(values, str) or not values:
        raise ConfigError(f"{argument}: no {argument} given (one or more of "
                          f"{', '.join(allowed)}, comma-separated)", argument=argument)
    seen = set()
    for value in values:
        shown = _gpumeter.inert_text(str(value))
        if value not in allowed:
            raise ConfigError(f"{argument}: '{shown}' is not one of {', '.join(allowed)}",
                              argument=argument)
        if value in seen:
            raise ConfigError(f"{argument}: '{shown}' is given twice", argument=argument)
        seen.add(value)


def _slug(text: str, limit: int = 48) -> str:
    """Text made safe for an SVG id or a file name: letters, digits, '_', '.', '-'."""
    out = _ID_UNSAFE.sub("_", text).strip("_.") or "x"
    return out[:limit]


def _num(x: float) -> str:
    """A size as an id writes it: 1000000, 0.5, 1.5e+20 -> 1.5e20."""
    if float(x).is_integer() and abs(x) < 1e18:
        return str(int(x))
    return f"{x:g}".replace("+", "")


def _short(x: float) -> str:
    """A size as a label writes it: 1e4, 3.2e6, 512."""
    if x == 0:
        return "0"
    if abs(x) < 1e4 and float(x).is_integer():
        return str(int(x))
    text = f"{x:.2g}"
    return text.replace("e+0", "e").replace("e+", "e").replace("e-0", "e-")


_UNITS = ((1e9, "s"), (1e6, "ms"), (1e3, "\u00b5s"), (1.0, "ns"))


def _time_unit(max_ns: float) -> Tuple[float, str]:
    """The unit the largest value reads best in: (ns per unit, name)."""
    for scale, name in _UNITS:
        if max_ns >= scale:
            return scale, name
    return 1.0, "ns"


def _bytes_text(n: float) -> str:
    for scale, name in ((2**40, "TiB"), (2**30, "GiB"), (2**20, "MiB"), (2**10, "KiB")):
        if n >= scale:
            return f"{n / scale:.3g} {name}"
    return f"{n:.0f} B"


def _statistic_words(statistic: str) -> str:
    # The core's one title of a statistic (wording.cpp), the one the reports' tables give it.
    return str(_gpumeter.statistic_title(statistic))


def _params_text(params: Dict[str, str]) -> str:
    return ", ".join(f"{k}={v}" for k, v in sorted(params.items()))


def _implementation(row_or_name: Any) -> str:
    return row_or_name if isinstance(row_or_name, str) else str(row_or_name.implementation)


class _Ids:
    """Element ids, unique within one figure: a repeated id gets -2, -3... in drawing order."""

    def __init__(self) -> None:
        self.seen: Dict[str, int] = {}

    def __call__(self, *parts: object) -> str:
        base = "-".join(_slug(str(p), 64) for p in parts)
        n = self.seen.get(base, 0) + 1
        self.seen[base] = n
        return base if n == 1 else f"{base}-{n}"


@dataclass
class Figure:
    """One figure to write: its kind, the name part after the kind ("" or "-<case>"), the
    matplotlib Figure, and what its caption says."""

    kind: str
    suffix: str
    figure: Any


@dataclass
class _Source:
    label: str  # the path, or "record <run id>"
    record: Any
    notes: List[str] = field(default_factory=list)


def _new_figure(width: float, height: float) -> Any:
    from matplotlib.figure import Figure as MplFigure

    # Not pyplot: no global state, no GUI backend, figures freed when dropped.
    return MplFigure(figsize=(width, height), layout="constrained")


def _colors(names: Iterable[str]) -> Dict[str, Any]:
    import matplotlib

    cycle = matplotlib.colormaps["tab10"]
    out: Dict[str, Any] = {}
    for name in names:
        if name not in out:
            out[name] = cycle(len(out) % cycle.N)  # an int picks the map's n-th colour
    return out


#: Characters of a caption's 8-point line per inch of the figure's width: a caption never widens
#: the figure it is under (a totals plot's list of terms not measured made it 3234 px wide, 40%
#: of it blank beside the plot).
CAPTION_CHARACTERS_PER_INCH = 15


def _caption(fig: Any, lines: Sequence[str], gid: str) -> None:
    if lines:
        # Wrapped by hand: matplotlib's wrap does not reach constrained layout.
        width = max(60, int(fig.get_figwidth() * CAPTION_CHARACTERS_PER_INCH))
        wrapped = [w for line in lines for w in (textwrap.wrap(line, width) or [""])]
        fig.text(0.01, 0.0, _t("\n".join(wrapped)), ha="left", va="top", fontsize=8,
                 color="0.25", gid=gid, transform=fig.transFigure)


# --- sweep: time against size ----------------------------------------------------------------


def _growth_groups(growth: Sequence[Any]) -> List[List[Any]]:
    """Growths of one case, params (other than the axis), axis and statistic, in record order:
    one panel each (never two statistics on one axis)."""
    groups: Dict[Tuple[Any, ...], List[Any]] = {}
    for g in growth:
        key = (g.row.case_name, tuple(sorted(dict(g.row.params).items())), g.axis,
               str(g.statistic))
        groups.setdefault(key, []).append(g)
    return list(groups.values())


def _other_params(params: Dict[str, str], axis: str) -> Dict[str, str]:
    return {k: v for k, v in dict(params).items() if k != axis}


def _spreads(record: Any, g: Any) -> Dict[float, Tuple[float, float]]:
    """Each size's 10th and 90th percentile, from the record's results of the series."""
    out: Dict[float, Tuple[float, float]] = {}
    others = dict(g.row.params)
    for r in getattr(record, "results", []) or []:
        row = r.row
        if (row.case_name != g.row.case_name or row.implementation != g.row.implementation
                or str(getattr(r, "statistic", g.statistic)) != str(g.statistic)):
            continue
        params = dict(row.params)
        if g.axis not in params or _other_params(params, g.axis) != others:
            continue
        try:
            size = float(params[g.axis])
        except ValueError:
            continue
        out[size] = (float(r.device_busy.p10_ns), float(r.device_busy.p90_ns))
    return out


def _regime_fit(g: Any, regime: Any) -> Optional[Tuple[float, float, float]]:
    """The regime's line through its points with the record's exponent: (intercept of log10
    time at log10 size 0, first size, last size). Only the intercept is computed here, as the
    mean offset of the regime's points from the exponent's slope."""
    pts = [(s, t) for s, t in zip(g.sizes, g.median_ns)
           if regime.low * (1 - 1e-9) <= s <= regime.high * (1 + 1e-9) and s > 0 and t > 0]
    if not pts:
        return None
    b = float(regime.exponent)
    a = sum(math.log10(t) - b * math.log10(s) for s, t in pts) / len(pts)
    return a, float(regime.low), float(regime.high)


def _regime_word(label: str) -> str:
    """"flat: a fixed cost dominates" -> "flat"."""
    return label.split(":", 1)[0].strip() or label


def _is_byte_axis(axis: str) -> bool:
    return "byte" in axis.lower()


def _draw_sweep_panel(record: Any, group: List[Any], crossovers: Sequence[Any]) -> Figure:
    from matplotlib.patches import Patch
    from matplotlib.lines import Line2D
    from matplotlib.transforms import blended_transform_factory

    first = group[0]
    axis, statistic = first.axis, str(first.statistic)
    others = dict(first.row.params)
    impls = [g.row.implementation for g in group]
    colors = _colors(impls)
    ids = _Ids()
    all_ns = [t for g in group for t in g.median_ns if t > 0]
    spreads = {g.row.implementation: _spreads(record, g) for g in group}
    highs = all_ns + [hi for s in spreads.values() for _, hi in s.values()]
    scale, unit = _time_unit(max(highs) if highs else 1.0)

    fig = _new_figure(10.5, 6.2)
    ax = fig.add_subplot()
    ax.set_gid("panel")
    ax.set_xscale("log")
    ax.set_yscale("log")
    where = f"{first.row.case_name}" + (f" ({_params_text(others)})" if others else "")
    ax.set_title(_t(f"{where}: time against {axis}, {_statistic_words(statistic)}"),
                 fontsize=11)
    ax.set_xlabel(_t(f"{axis} (log scale)"))
    ax.set_ylabel(f"median {statistic} ({unit}, log scale)")
    ax.grid(True, which="major", color="0.9", linewidth=0.6)

    handles: List[Any] = []
    all_sizes = [s for g in group for s in g.sizes]
    for k, g in enumerate(group):
        impl = g.row.implementation
        c = colors[impl]
        xs = list(g.sizes)
        ys = [t / scale for t in g.median_ns]
        (line,) = ax.plot(xs, ys, marker="o", markersize=4.5, linewidth=1.2, color=c,
                          gid=ids("series", impl), label=_t(impl), zorder=3)
        handles.append(line)
        spread = spreads[impl]
        if spread:
            sx = [s for s in xs if s in spread]
            lo = [(t - spread[s][0]) / scale for s, t in zip(xs, g.median_ns) if s in spread]
            hi = [(spread[s][1] - t) / scale for s, t in zip(xs, g.median_ns) if s in spread]
            sy = [t / scale for s, t in zip(xs, g.median_ns) if s in spread]
            bars = ax.errorbar(sx, sy, yerr=[[max(v, 0) for v in lo], [max(v, 0) for v in hi]],
                               fmt="none", ecolor=c, elinewidth=0.8, capsize=2, zorder=2)
            for part in bars.lines[2]:
                part.set_gid(ids("spread", impl))
        regimes = list(g.regimes)
        for i, regime in enumerate(regimes):
            fit = _regime_fit(g, regime)
            if fit is None:
                continue
            a, lo_s, hi_s = fit
            fx = [lo_s, hi_s]
            fy = [10 ** (a + regime.exponent * math.log10(s)) / scale for s in fx]
            ax.plot(fx, fy, linestyle="--", linewidth=2.2, color=c, alpha=0.45,
                    gid=ids("fit", impl, i), zorder=1)
            mid = math.sqrt(lo_s * hi_s)
            mid_y = 10 ** (a + regime.exponent * math.log10(mid)) / scale
            # The exponent as the report's sentence writes it: the axis's name, two decimals.
            text = f"{axis}^{regime.exponent:.2f} ({_regime_word(str(regime.label))})"
            # A fit that misses a point by more than 12% (0.05 in log10) says so; R^2 would
            # flag every flat regime, where there is little variance to explain.
            miss = 10 ** float(regime.max_residual) - 1
            if miss > MISS_SHOWN:
                text += f", misses by up to {miss:.0%}"
            ax.annotate(text, (mid, mid_y), xytext=(0, 12 if k % 2 == 0 else -16),
                        textcoords="offset points", ha="center", fontsize=8, color=c,
                        gid=ids("exponent", impl, i),
                        bbox=dict(boxstyle="round,pad=0.15", fc="white", ec="none", alpha=0.8),
                        zorder=5)
            if i + 1 < len(regimes):
                edge = math.sqrt(regime.high * regimes[i + 1].low)
                ax.axvline(edge, color=c, linestyle=":", linewidth=1.0, alpha=0.8,
                           gid=ids("boundary", impl, i), zorder=1)
    if any(len(g.regimes) > 1 for g in group):
        handles.append(Line2D([], [], color="0.4", linestyle=":",
                              label="regime boundary"))
    handles.append(Line2D([], [], color="0.4", linestyle="--", linewidth=2.2, alpha=0.45,
                          label="fit per regime"))

    # Crossovers: shaded between the two measured sizes, never a point between them.
    top = blended_transform_factory(ax.transData, ax.transAxes)
    drew_resolved = drew_unresolved = False
    for c in crossovers:
        lo_x, hi_x = float(c.low), float(c.high)
        span_id = ids("bracket", _num(lo_x), _num(hi_x))
        pair = f"{c.first.implementation} \u2192 {c.second.implementation}"
        if c.resolved:
            ax.axvspan(lo_x, hi_x, color="tab:olive", alpha=0.22, linewidth=0, gid=span_id,
                       zorder=0)
            text = f"crossover\n{pair}\n{_short(lo_x)}\u2013{_short(hi_x)}"
            drew_resolved = True
        else:
            ax.axvspan(lo_x, hi_x, facecolor="none", edgecolor="0.6", hatch="///",
                       linewidth=0.6, gid=span_id, zorder=0)
            text = f"order not established\n({pair}?)\n{_short(lo_x)}\u2013{_short(hi_x)}"
            drew_unresolved = True
        ax.text(math.sqrt(lo_x * hi_x), 0.98, _t(text), transform=top, ha="center", va="top",
                fontsize=7.5, color="0.2", gid=span_id + "-label",
                bbox=dict(boxstyle="round,pad=0.2", fc="white", ec="0.7", alpha=0.85),
                zorder=6)
    if drew_resolved:
        handles.append(Patch(color="tab:olive", alpha=0.22, label="crossover bracket"))
    if drew_unresolved:
        handles.append(Patch(facecolor="none", edgecolor="0.45", hatch="///",
                             label="order not established"))

    l2 = getattr(getattr(record, "device", None), "l2_bytes", None)
    caption = [f"Points: median {_statistic_words(statistic)} per size"
               + (", bars: 10th to 90th percentile" if any(spreads.values()) else "")
               + ". Labels x^k: time grows as size^k over that regime (log-log fit of the "
                 "regime's medians).",
               "Crossovers are brackets of two measured sizes, never an interpolated point."]
    if _is_byte_axis(axis) and l2:
        if all_sizes and min(all_sizes) <= l2 <= max(all_sizes):
            line = ax.axvline(float(l2), color="tab:red", linewidth=1.2, linestyle="-.",
                              gid="l2-line", zorder=1)
            line.set_label(f"L2 ({_bytes_text(float(l2))})")
            handles.append(line)
        else:
            caption.append(f"The device's L2 ({_bytes_text(float(l2))}) lies outside the "
                           f"sizes swept.")
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8,
              frameon=False)
    _caption(fig, caption, "caption")
    suffix = "-" + _slug(first.row.case_name + (("-" + _params_text(others)) if others else "")
                         + "-" + axis, 80)
    return Figure("sweep", suffix, fig)


def _matches(crossover: Any, group: List[Any]) -> bool:
    first = group[0]
    impls = {g.row.implementation for g in group}
    others = dict(first.row.params)
    axis = getattr(crossover, "axis", "") or first.axis
    statistic = getattr(crossover, "statistic", None)
    return (crossover.first.case_name == first.row.case_name
            and axis == first.axis
            and (statistic is None or str(statistic) == str(first.statistic))
            and crossover.first.implementation in impls
            and crossover.second.implementation in impls
            and _other_params(crossover.first.params, first.axis) == others)


def sweep_figures(record: Any) -> List[Figure]:
    """The sweep figures of a record: one per case, axis and statistic with 3 or more sizes."""
    analysis = record.sweeps()
    growth = [g for g in analysis.growth if len(g.sizes) > 0]
    out = []
    for group in _growth_groups(growth):
        crossovers = [c for c in analysis.crossovers if _matches(c, group)]
        out.append(_draw_sweep_panel(record, group, crossovers))
    return out


# --- totals: total(N) by phase ---------------------------------------------------------------

# Colours by phase, the same in every figure; the per-call term last and darkest.
_PHASE_ORDER = ("process_start", "init", "cold_compile", "cached_load", "conversion",
                "first_build", "graph_capture", "per_call")


def _phase_colors() -> Dict[str, Any]:
    import matplotlib

    cmap = matplotlib.colormaps["tab20c"]
    picks = tuple(cmap(i) for i in (19, 0, 4, 6, 8, 12, 14, 9))
    return dict(zip(_PHASE_ORDER, picks))


_SETTING_WORDS = {"fresh_cold": "cold caches", "fresh_cached": "warm caches",
                  "warm_process": "warm"}


def _candidate(t: Any) -> Tuple[str, str]:
    """(label, id part) of one decomposition: the implementation, and its setting when not the
    cached one (what a rerun pays)."""
    impl = t.row.implementation
    setting = str(t.setting)
    if setting == "fresh_cached":
        return impl, impl
    short = _SETTING_WORDS.get(setting, setting)
    return f"{impl}\n({short})", f"{impl}-{setting}"


def _same_row(a: Any, b: Any) -> bool:
    return (a.case_name == b.case_name and a.implementation == b.implementation
            and dict(a.params) == dict(b.params))


def _measured_spread(record: Any, t: Any, calls: int) -> Optional[Tuple[float, float, int]]:
    """The lowest and highest sample of the measured totals of N calls, and how many."""
    for m in getattr(record, "totals", []) or []:
        if m.calls == calls and str(m.setting) == str(t.setting) and _same_row(m.row, t.row):
            samples = [float(s) for s in m.samples_ns]
            if samples:
                return min(samples), max(samples), len(samples)
    return None


def _term_title(term: Any) -> str:
    title = getattr(term, "title", None)
    return str(title) if title else str(term.phase).replace("_", " ")


def _draw_totals_panel(record: Any, group: List[Any], crossovers: Sequence[Any]) -> Figure:
    from matplotlib.patches import Patch
    from matplotlib.lines import Line2D
    from matplotlib.transforms import blended_transform_factory

    ids = _Ids()
    colors = _phase_colors()
    first = group[0]
    params = dict(first.row.params)
    ns = sorted({a.calls for t in group for a in t.at})
    bars_per_group = len(group)
    width = 0.8 / bars_per_group
    values: List[float] = []
    for t in group:
        for a in t.at:
            fixed = sum(x.median_ns for x in t.fixed if x.median_ns is not None)
            per = t.per_call.median_ns
            top = fixed + (a.calls * per if per is not None else 0.0)
            if top > 0:
                values.append(top)
            if a.measured_ns:
                values.append(float(a.measured_ns))
    scale, unit = _time_unit(max(values) if values else 1.0)
    log_y = bool(values) and max(values) / min(values) > LOG_SPAN

    fig = _new_figure(max(8.0, 2.2 + 1.1 * len(ns) * bars_per_group), 6.4)
    ax = fig.add_subplot()
    ax.set_gid("panel")
    where = first.row.case_name + (f" ({_params_text(params)})" if params else "")
    ax.set_title(_t(f"{where}: total(N) = fixed costs + N \u00d7 per call, synchronized wall "
                    "clock"), fontsize=11)
    ax.set_ylabel(f"time ({unit}" + (", log scale)" if log_y else ")"))
    if log_y:
        ax.set_yscale("log")
    ax.grid(True, axis="y", color="0.9", linewidth=0.6)
    ax.set_axisbelow(True)

    seen_phases: Dict[str, str] = {}
    not_measured: List[str] = []
    unpredicted: List[str] = []
    ratio_shown = False
    tick_x: List[float] = []
    tick_labels: List[str] = []
    group_x: Dict[int, float] = {}
    for gi, n in enumerate(ns):
        group_x[n] = float(gi)
        for bi, t in enumerate(group):
            label, key = _candidate(t)
            x = gi - 0.4 + width * (bi + 0.5)
            tick_x.append(x)
            tick_labels.append(label)
            at = next((a for a in t.at if a.calls == n), None)
            bottom = 0.0
            terms = [(term, term.median_ns) for term in t.fixed]
            per = t.per_call.median_ns
            terms.append((None, None if per is None else n * per))
            for term, value in terms:
                phase = "per_call" if term is None else str(term.phase)
                if value is None:
                    continue
                title = (f"N \u00d7 per call ({_term_title(t.per_call)}, warm)" if term is None
                         else _term_title(term))
                seen_phases.setdefault(phase, title)
                ax.bar(x, value / scale, width * 0.92, bottom=bottom / scale,
                       color=colors.get(phase, "0.5"), edgecolor="white", linewidth=0.5,
                       gid=ids("stack", key, n, phase))
                bottom += value
            if at is not None and at.measured_ns is not None:
                spread = _measured_spread(record, t, n)
                y = float(at.measured_ns) / scale
                yerr = None
                if spread is not None:
                    yerr = [[max(y - spread[0] / scale, 0)], [max(spread[1] / scale - y, 0)]]
                bars = ax.errorbar([x], [y], yerr=yerr, fmt="D", color="black", markersize=5,
                                   capsize=3, elinewidth=1.0, zorder=5,
                                   markerfacecolor="white", markeredgewidth=1.3)
                bars.lines[0].set_gid(ids("measured", key, n))
                for part in bars.lines[2]:
                    part.set_gid(ids("measured", key, n, "spread"))
                if at.measured_over_predicted is not None:
                    ratio_shown = True
                    top = max(bottom, spread[1] if spread else 0.0, float(at.measured_ns))
                    ax.annotate(f"{at.measured_over_predicted:.2f}", (x, top / scale),
                                xytext=(0, 4), textcoords="offset points", ha="center",
                                fontsize=7, color="0.2", gid=ids("ratio", key, n))
    for t in group:
        label = _candidate(t)[0].replace("\n", " ")
        missing = [_term_title(x) for x in t.fixed if x.median_ns is None]
        if t.per_call.median_ns is None:
            missing.append(f"per call ({_term_title(t.per_call)})")
        if missing:
            not_measured.append(f"{label}: {', '.join(missing)}")
        if t.at and all(a.predicted_ns is None for a in t.at):
            unpredicted.append(label)
    ax.set_xticks(tick_x, [_t(label) for label in tick_labels], fontsize=8)
    under = blended_transform_factory(ax.transData, ax.transAxes)
    for n, gx in group_x.items():
        ax.text(gx, -0.11, f"N = {n}", transform=under, ha="center", va="top", fontsize=9,
                fontweight="bold", gid=ids("group", n))
    ax.set_xlim(-0.6, len(ns) - 0.4)

    top = blended_transform_factory(ax.transData, ax.transAxes)
    for c in crossovers:
        if c.low not in group_x or c.high not in group_x:
            continue
        lo_x, hi_x = group_x[int(c.low)], group_x[int(c.high)]
        span_id = ids("bracket", "n", _num(c.low), _num(c.high))
        pair = f"{c.first.implementation} \u2192 {c.second.implementation}"
        setting = str(getattr(c, "setting", None) or "fresh_cached")
        if setting != "fresh_cached":
            pair += f", {_SETTING_WORDS.get(setting, setting)}"
        if c.resolved:
            ax.axvspan(lo_x, hi_x, color="tab:olive", alpha=0.15, linewidth=0, gid=span_id,
                       zorder=0)
            text = f"crossover {pair}\nbetween N = {_num(c.low)} and {_num(c.high)}"
        else:
            ax.axvspan(lo_x, hi_x, facecolor="none", edgecolor="0.8", hatch="///",
                       linewidth=0.5, gid=span_id, zorder=0)
            text = (f"order not established ({pair}?)\nbetween N = {_num(c.low)} and "
                    f"{_num(c.high)}")
        ax.text((lo_x + hi_x) / 2, 0.98, _t(text), transform=top, ha="center", va="top",
                fontsize=7.5, gid=span_id + "-label",
                bbox=dict(boxstyle="round,pad=0.2", fc="white", ec="0.7", alpha=0.85))

    handles: List[Any] = [Patch(color=colors.get(p, "0.5"), label=title)
                          for p, title in sorted(seen_phases.items(),
                                                 key=lambda kv: _PHASE_ORDER.index(kv[0])
                                                 if kv[0] in _PHASE_ORDER else 99)]
    handles.append(Line2D([], [], marker="D", color="black", markerfacecolor="white",
                          linestyle="none",
                          label="measured total of N calls\n(median; bar: lowest to highest)"))
    if not_measured:
        handles.append(Patch(facecolor="none", edgecolor="0.5", linestyle="--",
                             label="not measured (not in the bars): see below"))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8,
              frameon=False, title="phase", title_fontsize=8)
    caption = ["Bars: the decomposition, each fixed term's median (fresh processes) plus N "
               "times the warm per-call median; a term not measured is left out, never read "
               "as zero."]
    if ratio_shown:
        caption.append("Number above a bar: measured total over the decomposition (above 1 "
                       "the parts miss a cost; below 1 they overlap).")
    if not_measured:
        caption.append("Not measured: " + "; ".join(not_measured) + ".")
    if unpredicted:
        caption.append("No total predicted for " + ", ".join(unpredicted) + ": a term every "
                       "candidate pays was not measured (the bar holds the terms that were).")
    _caption(fig, caption, "not-measured" if not_measured else "caption")
    suffix = "-" + _slug(first.row.case_name + (("-" + _params_text(params)) if params else ""),
                         80)
    return Figure("totals", suffix, fig)


def totals_figures(record: Any) -> List[Figure]:
    """The total(N) figures of a record: one per case and params with phases."""
    totals = list(record.total_n())
    groups: Dict[Tuple[Any, ...], List[Any]] = {}
    for t in totals:
        if not t.at:
            continue
        key = (t.row.case_name, tuple(sorted(dict(t.row.params).items())))
        groups.setdefault(key, []).append(t)
    crossovers = list(record.call_crossovers())
    out = []
    for (case, params), group in groups.items():
        mine = [c for c in crossovers if c.first.case_name == case
                and tuple(sorted(dict(c.first.params).items())) == params]
        out.append(_draw_totals_panel(record, group, mine))
    return out


# --- comparisons ---------------------------------------------------------------------------


def _comparison_rows(c: Any) -> Tuple[Any, Any]:
    """(baseline, candidate) rows: the bindings' baseline_row/candidate_row, or rows given as
    baseline/candidate."""
    base = getattr(c, "baseline_row", None)
    cand = getattr(c, "candidate_row", None)
    return (base if base is not None else c.baseline, cand if cand is not None else c.candidate)


def _percent(x: float, digits: int = 2) -> str:
    """Two significant figures by default: 3.0%, 0.51%, 28%."""
    v = abs(x) * 100
    return (f"{v:#.{digits}g}".rstrip(".") if v < 10 ** digits else f"{v:.0f}") + "%"


def _finding(comparison: Any) -> str:
    """What the comparison found, as the core reads it ("slower", "faster"), or "none" where it
    claims no difference: the key of its colour."""
    return str(comparison.finding) if comparison.found else "none"


def _interval_name(comps: Sequence[Any]) -> str:
    """"99% interval": the confidence the comparisons state (a record of an older version states
    95%); "interval" where they differ."""
    levels = {float(getattr(c.difference, "confidence", 0)) for c in comps
              if getattr(c, "difference", None) is not None}
    levels.discard(0.0)
    if len(levels) != 1:
        return "interval"
    return f"{100 * levels.pop():.2g}% interval"


#: Ratio ticks each side of 1x at most (a reach of 1.5x keeps 1.5x; of 1000x, 10x, 100x, 1000x).
RATIO_TICKS_PER_SIDE = 4


def _ratio_ticks(ax: Any, reach: float) -> None:
    """Ratio ticks as a reader says them (0.5x, 1x, 1.5x, 2x), not powers of ten."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

    ups = [1.0, 1.5, 2.0, 3.0, 5.0, 10.0, 20.0, 50.0, 100.0, 1000.0]
    # At most RATIO_TICKS_PER_SIDE ticks each side of 1x, evenly apart on the log axis: at a reach
    # of 1000x the 1x, 1.5x, 2x and 3x labels ran together.
    gap = math.log10(max(reach, 1.0)) / RATIO_TICKS_PER_SIDE
    kept = [1.0]
    for u in ups[1:]:
        if u <= reach and math.log10(u) - math.log10(kept[-1]) >= gap * 0.999:
            kept.append(u)
    ticks = sorted(set(kept) | {1 / u for u in kept})
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:.2g}x"))


# A page names each comparison it draws: at most this many, so a page stays readable and its
# drawing cost is bounded (1,001 comparisons on one page took 27.7 s and 1.35 GB, and 10,001 a
# PNG 825,453 px tall).
COMPARISONS_PER_PAGE = 40
# Up to this many pages; beyond, one summary of every comparison (each a point and its interval,
# drawn as one collection) and a page of the largest changes take their place.
COMPARISON_PAGES = 5
# Refused comparisons the caption names one by one; the rest are counted.
REFUSALS_NAMED = 10


def _comparison_panels(record: Any) -> Tuple[Dict[Tuple[str, str], List[Any]], List[str]]:
    """The record's compared comparisons by (statistic, rule), and the refused ones' lines."""
    panels: Dict[Tuple[str, str], List[Any]] = {}
    refused: List[str] = []
    for c in record.comparisons:
        base, cand = _comparison_rows(c)
        if getattr(c, "refusal", ""):
            refused.append(f"{_implementation(cand)} vs {_implementation(base)}: {c.refusal}")
            continue
        rule = str(c.rule)
        if rule.startswith("resolution") and c.ratio is not None:
            panels.setdefault((str(c.statistic), "ratio"), []).append(c)
        elif c.difference is not None:
            panels.setdefault((str(c.statistic), "difference"), []).append(c)
    return panels, refused


def _refusal_caption(refused: Sequence[str]) -> List[str]:
    if not refused:
        return []
    named = "; ".join(refused[:REFUSALS_NAMED])
    more = len(refused) - REFUSALS_NAMED
    return ["Not compared: " + named + (f"; and {more} more (the record names each)" if more > 0
                                        else "") + "."]


def _change(kind: str, c: Any) -> float:
    """How far a comparison is from no change, on the axis its panel draws (log of the ratio)."""
    if kind == "ratio":
        return abs(math.log(max(float(c.ratio.speedup), 1e-300)))
    d = float(c.difference.estimate)
    return abs(math.log(max(1 + d, 1e-300)))


def comparison_figures(record: Any) -> List[Figure]:
    """The record's comparisons: one page of every comparison, a panel per statistic and rule;
    more than a page's worth as pages ("-p1of3"); more than COMPARISON_PAGES pages' worth as a
    summary of every comparison ("-summary") and a page of the largest changes ("-largest")."""
    panels, refused = _comparison_panels(record)
    if not panels:
        return []
    caption = _refusal_caption(refused)
    entries = [(key, c) for key, comps in panels.items() for c in comps]
    if len(entries) <= COMPARISONS_PER_PAGE:
        return [Figure("comparisons", "", _comparison_page(panels, caption))]
    pages = [entries[i:i + COMPARISONS_PER_PAGE]
             for i in range(0, len(entries), COMPARISONS_PER_PAGE)]
    if len(pages) <= COMPARISON_PAGES:
        out = []
        for i, page in enumerate(pages, 1):
            grouped: Dict[Tuple[str, str], List[Any]] = {}
            for key, c in page:
                grouped.setdefault(key, []).append(c)
            out.append(Figure("comparisons", f"-p{i}of{len(pages)}", _comparison_page(
                grouped, [f"Page {i} of {len(pages)} of the record's {len(entries)} "
                          "comparisons, in the record's order."] + caption)))
        return out
    largest = sorted(entries, key=lambda e: -_change(e[0][1], e[1]))[:COMPARISONS_PER_PAGE]
    grouped = {}
    for key, c in largest:
        grouped.setdefault(key, []).append(c)
    return [Figure("comparisons", "-summary", _comparison_summary(panels, caption)),
            Figure("comparisons", "-largest", _comparison_page(
                grouped, [f"The {len(largest)} largest changes of the record's {len(entries)} "
                          "comparisons (all of them: the summary figure)."] + caption))]


def _comparison_summary(panels: Dict[Tuple[str, str], List[Any]],
                        caption: Sequence[str]) -> Any:
    """Every comparison as a point and its interval, sorted by the change, one panel per
    statistic and rule: a fixed size and a few collections whatever their number."""
    from matplotlib.ticker import FuncFormatter

    ids = _Ids()
    fig = _new_figure(10.5, 3.6 * len(panels) + 0.9)
    axes = fig.subplots(len(panels), 1, squeeze=False)[:, 0]
    color_of = {"slower": "tab:orange", "faster": "tab:blue", "none": "0.45"}
    counts_all: Dict[str, int] = {"slower": 0, "faster": 0, "none": 0}
    for ax, ((statistic, kind), comps) in zip(axes, panels.items()):
        ax.set_gid(ids("summary", statistic, kind))
        rows = []
        for c in comps:
            verdict = _finding(c)
            if kind == "ratio":
                r = 1.0 / float(c.ratio.speedup)
                d = c.difference
                lo, hi = ((1 + d.low, 1 + d.high) if d is not None and 1 + d.low > 0
                          else (r, r))
                rows.append((r, lo, hi, verdict))
            else:
                d = c.difference
                rows.append((1 + d.estimate, 1 + d.low, 1 + d.high, verdict))
        rows.sort(key=lambda x: x[0])
        ys = list(range(len(rows)))
        for verdict, col in color_of.items():
            mine = [(y, x) for y, x in zip(ys, rows) if x[3] == verdict]
            counts_all[verdict] += len(mine)
            if not mine:
                continue
            ax.hlines([y for y, _ in mine], [max(x[1], 1e-12) for _, x in mine],
                      [max(x[2], 1e-12) for _, x in mine], colors=[col], linewidth=0.6,
                      alpha=0.5, gid=ids("intervals", verdict))
            words = "no difference" if verdict == "none" else verdict
            ax.scatter([max(x[0], 1e-12) for _, x in mine], [y for y, _ in mine], s=4,
                       color=col, gid=ids("estimates", verdict), label=f"{words} ({len(mine)})")
        ax.set_xscale("log")
        ax.axvline(1, color="0.3", linewidth=0.8)
        if kind == "ratio":
            ax.axvspan(1 / RESOLUTION_RATIO, RESOLUTION_RATIO, color="0.88", linewidth=0,
                       zorder=0)
        finite = [v for x in rows for v in x[:3] if v > 0 and math.isfinite(v)]
        reach = max(max(finite + [1.0]), 1 / min(finite + [1.0]), RESOLUTION_RATIO) * 1.2
        ax.set_xlim(1 / reach, reach)
        _ratio_ticks(ax, reach)
        ax.set_ylim(-1, max(len(rows), 1))
        ax.set_yticks([])
        ax.set_ylabel(f"{len(rows)} comparisons, sorted", fontsize=9)
        ax.legend(loc="lower right", fontsize=8)
        ax.xaxis.set_minor_formatter(FuncFormatter(lambda v, _: ""))
        ax.set_xlabel("candidate time / baseline time (log scale): right of 1x slower, left "
                      f"faster; lines: {_interval_name(comps)}", fontsize=9)
        rule = f"time ratio by the {_RATIO} rule" if kind == "ratio" else \
            f"relative difference with its {_interval_name(comps)}"
        ax.set_title(f"{_statistic_words(statistic)}: {rule}, every comparison", fontsize=10)
    total = sum(counts_all.values())
    words = (f"Every one of the record's {total} compared comparisons, against its case's first "
             f"implementation: {counts_all['slower']} slower, {counts_all['faster']} faster, "
             f"{counts_all['none']} with no difference detected. Too many to name one by one: "
             "the largest are named on the -largest page, and `gpumeter report` lists them all.")
    lines = textwrap.wrap(words, 120) + [w for c in caption for w in textwrap.wrap(c, 120)]
    _caption(fig, lines, "caption")
    return fig


def _comparison_page(panels: Dict[Tuple[str, str], List[Any]],
                     caption_lines: Sequence[str]) -> Any:
    """One figure naming each comparison it is given: a panel per statistic and rule."""
    from matplotlib.ticker import FuncFormatter

    ids = _Ids()
    heights = [max(len(v), 1) * 0.55 + 1.3 for v in panels.values()]
    fig = _new_figure(10.5, sum(heights) + 0.9)
    axes = fig.subplots(len(panels), 1, squeeze=False,
                        gridspec_kw={"height_ratios": heights})[:, 0]
    color_of = {"slower": "tab:orange", "faster": "tab:blue", "none": "0.45"}
    for ax, ((statistic, kind), comps) in zip(axes, panels.items()):
        ax.set_gid(ids("panel", statistic, kind))
        cases = {(_comparison_rows(c)[1].case_name,
                  _params_text(dict(_comparison_rows(c)[1].params))) for c in comps}
        labels = []
        for c in comps:
            base, cand = _comparison_rows(c)
            label = f"{_implementation(cand)} vs {_implementation(base)}"
            if len(cases) > 1:
                p = _params_text(dict(cand.params))
                label += f"\n{cand.case_name}" + (f" ({p})" if p else "")
            labels.append(label)
        ys = list(range(len(comps)))[::-1]
        ax.set_yticks(ys, [_t(label) for label in labels], fontsize=8)
        ax.set_ylim(-0.7, len(comps) - 0.3)
        ax.grid(True, axis="x", color="0.9", linewidth=0.6)
        if kind == "difference":
            # Percent on a linear axis while every interval is under the resolution ratio either
            # way (said as a percent, as_factor); past it,
            # the time ratio on a log axis (a 4x slower and a 4x faster read as far from 1).
            factor = any(_gpumeter.as_factor(x) for c in comps
                         for x in (c.difference.low, c.difference.high))

            def shown(f: float, factor: bool = factor) -> float:
                return 1 + f if factor else 100 * f

            origin = shown(0.0)
            if factor:
                ax.set_xscale("log")
            ax.axvline(origin, color="0.3", linewidth=0.8, gid=ids("zero-line"))
            lows, highs = [origin], [origin]
            for y, c in zip(ys, comps):
                d = c.difference
                est, lo, hi = shown(d.estimate), shown(d.low), shown(d.high)
                lows.append(lo)
                highs.append(hi)
                verdict = _finding(c)
                col = color_of[verdict]
                bars = ax.errorbar([est], [y], xerr=[[max(est - lo, 0)], [max(hi - est, 0)]],
                                   fmt="o", color=col, capsize=4, elinewidth=2, markersize=5)
                gid = ids("interval", _implementation(_comparison_rows(c)[1]))
                bars.lines[0].set_gid(gid)
                for part in bars.lines[2]:
                    part.set_gid(gid + "-bar")
                if verdict == "none":
                    sd = getattr(d, "smallest_detectable", None)
                    words = "no difference detected" + (
                        f" (would see {_percent(sd)})" if sd else "")
                else:
                    e, n, f = _gpumeter.difference_amounts(d.estimate, d.low, d.high)
                    words = f"{e} {verdict} ({n} to {f})"
                ax.annotate(words, (hi, y), xytext=(6, 0), textcoords="offset points",
                            va="center", fontsize=8, color=col, gid=gid + "-text")
            if factor:
                reach = max(max(highs), 1 / min(lows)) * 1.3
                ax.set_xlim(min(lows) / 1.3, max(highs) * reach ** 0.8)  # room for the words
                _ratio_ticks(ax, max(reach, max(highs) * reach ** 0.8))
                ax.set_xlabel("candidate time / baseline time (log scale): right of 1x slower, "
                              f"left faster; bars: {_interval_name(comps)}", fontsize=9)
            else:
                span = max(max(highs), -min(lows), 0.5) * 1.15
                ax.set_xlim(-span, span * 2.2)  # room on the right for the words
                ax.xaxis.set_major_formatter(
                    FuncFormatter(lambda v, _: f"{v:+.3g}%" if v else "0"))
                ax.set_xlabel("candidate / baseline \u2212 1 (%): right of 0 slower, left "
                              f"faster; bars: {_interval_name(comps)}", fontsize=9)
            ax.set_title(f"{_statistic_words(statistic)}: relative difference with its "
                         f"{_interval_name(comps)}", fontsize=10)
        else:
            ax.set_xscale("log")
            ax.axvspan(1 / RESOLUTION_RATIO, RESOLUTION_RATIO, color="0.88", linewidth=0,
                       gid=ids(f"band-{_RATIO}"), zorder=0)
            ax.axvline(1, color="0.3", linewidth=0.8)
            extent = [RESOLUTION_RATIO * 1.3]
            for y, c in zip(ys, comps):
                v = c.ratio
                ratio = 1.0 / float(v.speedup)  # candidate time over baseline time
                col = color_of[_finding(c)]
                xerr = None
                d = c.difference
                if d is not None and 1 + d.low > 0:
                    xerr = [[max(ratio - (1 + d.low), 0)], [max((1 + d.high) - ratio, 0)]]
                    extent += [1 + d.high, 1 / (1 + d.low)]
                extent += [ratio, 1 / ratio]
                bars = ax.errorbar([ratio], [y], xerr=xerr, fmt="s", color=col, capsize=4,
                                   elinewidth=2, markersize=6)
                gid = ids("ratio", _implementation(_comparison_rows(c)[1]))
                bars.lines[0].set_gid(gid)
                words = str(getattr(v, "wording", "")) or f"{ratio:.2g}x the time"
                label = str(getattr(v, "label", ""))
                ax.annotate(_t(words + (f": {label}" if label else "")), (ratio, y),
                            xytext=(0, 9), textcoords="offset points", ha="center",
                            fontsize=8, color=col, gid=gid + "-text")
            reach = max(extent) * 1.4
            ax.set_xlim(1 / reach, reach)
            _ratio_ticks(ax, reach)
            ax.set_xlabel(f"candidate time / baseline time (log scale); shaded: under {_RATIO} "
                          "either way, no measured difference at this precision", fontsize=9)
            ax.set_title(f"{_statistic_words(statistic)}: time ratio by the {_RATIO} rule",
                         fontsize=10)
    caption = ["Every point is a comparison the record holds, against its case's first "
               "implementation; device time and wall clock are never on one axis."]
    _caption(fig, caption + list(caption_lines), "caption")
    return fig


# --- files ---------------------------------------------------------------------------------


_DRAWERS: Dict[str, Callable[[Any], List[Figure]]] = {
    "sweep": sweep_figures, "totals": totals_figures, "comparisons": comparison_figures}

_NOTHING = {
    "sweep": "no sweep to draw (no numeric param with 3 or more sizes)",
    "totals": "no total(N) to draw (the record has no phases)",
    "comparisons": "no comparison to draw (the record holds none, or none was compared)",
}


def _load(item: Any) -> _Source:
    if isinstance(item, (str, os.PathLike)):
        return _Source(os.fspath(item), read_record(item))
    return _Source(f"record {getattr(item, 'run_id', '?')}", item)


def _write_exclusive(fig: Any, path: str, fmt: str) -> None:
    """Writes to a temporary file beside `path`, then links it to `path`, which fails if
    `path` exists: a plot is never written over another file, even by a run beside this one."""
    import tempfile

    directory = os.path.dirname(path) or "."
    fd, tmp = tempfile.mkstemp(prefix=".gpumeter-plot-", suffix="." + fmt, dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            # No date and a fixed hash salt: the same record draws the same SVG.
            metadata = {"Date": None} if fmt == "svg" else None
            fig.savefig(f, format=fmt, dpi=150, bbox_inches="tight", metadata=metadata)
            # mkstemp makes the file private (0600); a plot is as readable as a record (0644
            # less the umask).
            umask = os.umask(0)
            os.umask(umask)
            os.fchmod(f.fileno(), 0o644 & ~umask)
        os.link(tmp, path)
    finally:
        os.unlink(tmp)


def plot(records: Sequence[Union[str, "os.PathLike[str]", Any]],
         out_dir: Union[str, "os.PathLike[str]"] = ".", formats: Sequence[str] = DEFAULT_FORMATS,
         *,
         kinds: Sequence[str] = KINDS,
         note: Optional[Callable[[str], None]] = None) -> List[str]:
    """Draws the records' plots and returns the paths written.

    Args:
        records: Record files (paths) or Record objects (read_record's).
        out_dir: Where to write; created if needed.
        formats: Any of FORMATS.
        kinds: Which figures: any of KINDS.
        note: Called with one line for each kind a record has nothing to draw for (default:
            written to stderr).

    Returns:
        list[str]: the files written, ``gpumeter-<run id>-<kind>[-<case>].<format>``.

    Raises:
        ImportError: matplotlib is not installed.
        ConfigError: no format or kind, an unknown one, or one given twice.
        InvalidRecord: a record file that cannot be read.
        NothingToDraw: no record has anything to draw.
        FileExistsError: a file this would write exists (nothing is written then).
    """
    _choices(formats, FORMATS, "format")
    _choices(kinds, KINDS, "kind")
    if not records:
        raise ConfigError("records: no record given", argument="records")
    if note is None:
        def note(line: str) -> None:
            sys.stderr.write(line + "\n")
    matplotlib = _matplotlib()
    sources = [_load(r) for r in records]  # every record read before anything is drawn

    planned: List[Tuple[str, Figure]] = []
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "gpumeter",
                                "font.size": 9}):
        for src in sources:
            run_id = _slug(str(getattr(src.record, "run_id", "") or "record"), 80)
            for kind in kinds:
                figures = _DRAWERS[kind](src.record)
                if not figures:
                    note(f"gpumeter plot: {src.label}: {_NOTHING[kind]}")
                for f in figures:
                    planned.append((f"gpumeter-{run_id}-{f.kind}{f.suffix}", f))
        if not planned:
            raise NothingToDraw("nothing to draw in " + ", ".join(s.label for s in sources)
                                + ": no sweep of 3 or more sizes, no phases, no comparison")
        names: Dict[str, int] = {}
        paths: List[Tuple[str, str, Figure]] = []
        out = os.fspath(out_dir)
        for stem, f in planned:
            k = names.get(stem, 0) + 1
            names[stem] = k
            unique = stem if k == 1 else f"{stem}-{k}"
            for fmt in formats:
                paths.append((os.path.join(out, f"{unique}.{fmt}"), fmt, f))
        existing = [p for p, _, _ in paths if os.path.exists(p)]
        if existing:
            raise FileExistsError(
                f"{existing[0]} exists" + (f" (and {len(existing) - 1} more)" if len(existing) > 1
                                           else "")
                + ": plots are never written over a file; remove them or choose another --out")
        os.makedirs(out, exist_ok=True)
        written: List[str] = []
        for path, fmt, f in paths:
            _write_exclusive(f.figure, path, fmt)
            written.append(path)
    return written


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # one line, then where the help is
        sys.stderr.write(f"gpumeter plot: {message}\nRun 'gpumeter plot --help' for usage.\n")
        sys.exit(_gpumeter.EXIT_USAGE)


class _HelpFormatter(argparse.HelpFormatter):
    """100 columns whatever the terminal: the help the C++ command prints without the module
    (src/cli/plot_help.inc) is this one, word for word."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, width=100, max_help_position=32)


def _parser() -> argparse.ArgumentParser:
    """`gpumeter plot`'s one parser: the C++ command hands it every argument untouched, --help
    included (src/cli/plot.cpp)."""
    parser = _Parser(
        prog="gpumeter plot",
        description="Draw a record's sweep (time against size, growth exponents, crossover "
                    "brackets), total(N) by phase, and comparisons with their intervals, as "
                    "SVG and PNG. Every point is read from the records; nothing is measured. "
                    "Files: gpumeter-<run_id>-<kind>[-<case>].<format>, never written over an "
                    "existing file. A record with nothing to draw for a kind says so in one "
                    "line.",
        epilog=_gpumeter.exit_codes_help("plot"), formatter_class=_HelpFormatter)
    parser.add_argument("records", nargs="+", metavar="RECORD",
                        help="record files (gpumeter-<run_id>.json)")
    parser.add_argument("--out", default=".", metavar="DIR",
                        help="directory to write into (default: the current one)")
    parser.add_argument("--format", default=",".join(DEFAULT_FORMATS), metavar="LIST",
                        help=f"comma-separated formats: {', '.join(FORMATS)} "
                             f"(default {','.join(DEFAULT_FORMATS)})")
    parser.add_argument("--kind", default=",".join(KINDS), metavar="LIST",
                        help=f"comma-separated figures: {', '.join(KINDS)} (default: all)")
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    """``gpumeter plot RECORD... [--out DIR] [--format svg,png]``; returns the exit code."""
    parser = _parser()
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))

    def fail(message: str) -> int:
        flat = " ".join(message.split())
        sys.stderr.write(f"gpumeter plot: {flat}\n")
        return _gpumeter.EXIT_USAGE

    # Every item kept, empty ones too: "--format ''" or "svg,,png" is refused by plot(), not read
    # as fewer formats.
    formats = [f.strip().lower() for f in args.format.split(",")] if args.format else []
    kinds = [k.strip().lower() for k in args.kind.split(",")] if args.kind else []
    try:
        written = plot(args.records, args.out, formats, kinds=kinds)
    except ImportError as e:
        return fail(str(e) if str(e) == MISSING_MATPLOTLIB else f"{MISSING_MATPLOTLIB} ({e})")
    except Error as e:
        return fail(str(e))
    except OSError as e:
        # Named by its file and the system's words, not Python's "[Errno 13] ..." text.
        where = f"{e.filename}: " if e.filename else ""
        return fail(f"{where}{e.strerror or e}")
    for path in written:
        sys.stdout.write(path + "\n")
    return _gpumeter.EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
