"""gpumeter plot (B9): the figures read back from their SVG, by the ids of what they draw.

Two layers: records made of plain stand-in objects with the attributes of gpumeter's types (the
drawing alone, every number known), and the committed records read by gpumeter.read_record (the
core's growth fits, crossovers and total(N) drawn as the record says).
"""
import math
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from types import SimpleNamespace as NS

import pytest

matplotlib = pytest.importorskip("matplotlib", reason="gpumeter plot draws with matplotlib")

import gpumeter  # noqa: E402
from gpumeter import plot as gplot  # noqa: E402

DATA = os.path.join(os.path.dirname(__file__), "..", "data")
SVG = "{http://www.w3.org/2000/svg}"


# --- reading an SVG back -------------------------------------------------------------------


def ids(path):
    """Every element with an id, by id."""
    return {el.get("id"): el for el in ET.parse(path).iter() if el.get("id")}


def text(el):
    return "".join(el.itertext()).strip()


def path_points(el):
    """The vertices of the first path under `el`, in SVG coordinates."""
    p = el if el.tag == SVG + "path" else el.find(f".//{SVG}path")
    assert p is not None, f"no path under {el.get('id')}"
    nums = [float(x) for x in re.findall(r"-?\d+(?:\.\d+)?(?:e-?\d+)?", p.get("d"))]
    return list(zip(nums[0::2], nums[1::2]))


def starting(found, prefix):
    return sorted(k for k in found if k.startswith(prefix))


# --- stand-ins: records as plain objects ---------------------------------------------------


def row(case, impl, **params):
    return NS(case_name=case, implementation=impl, params={k: str(v) for k, v in params.items()})


SIZES = [10 ** (4 + 5 * i / 11) for i in range(12)]


def regime(low, high, exponent, label, max_residual=0.01):
    return NS(low=low, high=high, points=0, exponent=exponent, r_squared=0.99,
              max_residual=max_residual, label=label)


def sweep_standin(crossovers=None, l2=52428800, axis="bytes"):
    def a(s):
        return 5000 + s / 100.0

    def b(s):
        return 20000 + s / 400.0

    growth = [
        NS(row=row("copy", "a"), axis=axis, statistic="device_busy", sizes=SIZES,
           median_ns=[a(s) for s in SIZES],
           regimes=[regime(SIZES[0], SIZES[4], 0.07, "flat: a fixed cost dominates"),
                    regime(SIZES[5], SIZES[11], 0.96, "linear")]),
        NS(row=row("copy", "b"), axis=axis, statistic="device_busy", sizes=SIZES,
           median_ns=[b(s) for s in SIZES],
           regimes=[regime(SIZES[0], SIZES[11], 0.61, "between", max_residual=0.1)]),
    ]
    results = [NS(row=row("copy", g.row.implementation, **{axis: int(s)}), statistic="device_busy",
                  device_busy=NS(median_ns=t, p10_ns=t * 0.97, p90_ns=t * 1.04))
               for g in growth for s, t in zip(g.sizes, g.median_ns)]
    if crossovers is None:
        crossovers = [NS(first=row("copy", "a"), second=row("copy", "b"), low=SIZES[5],
                         high=SIZES[6], resolved=True),
                      NS(first=row("copy", "b"), second=row("copy", "a"), low=SIZES[9],
                         high=SIZES[10], resolved=False)]
    return NS(run_id="20261201T000000Z-1-sweep", results=results, comparisons=[],
              device=NS(l2_bytes=l2, name="NVIDIA H200"), totals=[],
              sweeps=lambda: NS(axes=[axis], growth=growth, crossovers=crossovers),
              total_n=lambda: [], call_crossovers=lambda: [])


def term(phase, title, setting, median):
    return NS(phase=phase, title=title, setting=setting, median_ns=median)


def totals_standin():
    key = {"n": 1048576}
    per = term("end_to_end", "end-to-end call", "warm_process", 20_000.0)
    warp = NS(row=row("saxpy", "warp", **key), setting="fresh_cached", per_call=per, absent=[],
              fixed=[term("process_start", "process start", "fresh_cached", 30e6),
                     term("init", "framework import and init", "fresh_cached", 900e6),
                     term("cached_load", "cached module load", "fresh_cached", 12e6),
                     term("first_build", "first build", "fresh_cached", None)],
              at=[NS(calls=1, predicted_ns=None, measured_ns=1000e6, measured_over_predicted=None),
                  NS(calls=10, predicted_ns=None, measured_ns=None, measured_over_predicted=None),
                  NS(calls=100, predicted_ns=None, measured_ns=1003e6,
                     measured_over_predicted=None)])
    cupy = NS(row=row("saxpy", "cupy", **key), setting="fresh_cached",
              per_call=term("end_to_end", "end-to-end call", "warm_process", 40_000.0),
              absent=[],
              fixed=[term("process_start", "process start", "fresh_cached", 30e6),
                     term("init", "framework import and init", "fresh_cached", 300e6)],
              at=[NS(calls=1, predicted_ns=330.04e6, measured_ns=340e6,
                     measured_over_predicted=340 / 330.04),
                  NS(calls=10, predicted_ns=330.4e6, measured_ns=None,
                     measured_over_predicted=None),
                  NS(calls=100, predicted_ns=334e6, measured_ns=345e6,
                     measured_over_predicted=345 / 334)])
    totals = [NS(row=row("saxpy", impl, **key), calls=n, setting="fresh_cached",
                 samples_ns=samples)
              for impl, n, samples in (("warp", 1, [990e6, 1000e6, 1010e6]),
                                       ("warp", 100, [995e6, 1003e6, 1012e6]),
                                       ("cupy", 1, [338e6, 340e6, 345e6]),
                                       ("cupy", 100, [342e6, 345e6, 350e6]))]
    crossings = [NS(first=row("saxpy", "cupy", **key), second=row("saxpy", "warp", **key),
                    low=1, high=100, resolved=False)]
    return NS(run_id="20261201T000000Z-2-totals", results=[], comparisons=[], totals=totals,
              device=NS(l2_bytes=None, name=""),
              sweeps=lambda: NS(axes=[], growth=[], crossovers=[]),
              total_n=lambda: [warp, cupy], call_crossovers=lambda: crossings)


def comparisons_standin():
    def diff(e, lo, hi, sd=0.005):
        return NS(estimate=e, low=lo, high=hi, smallest_detectable=sd, slower=lo > 0,
                  faster=hi < 0)

    # `finding`: what the core's rule found (Comparison.finding); plot colours by it alone.
    def cmp(case, base, cand, statistic, rule, difference=None, ratio=None, refusal="",
            finding="no difference"):
        return NS(baseline=base, candidate=cand, baseline_row=row(case, base),
                  candidate_row=row(case, cand), statistic=statistic, rule=rule,
                  difference=difference, ratio=ratio, refusal=refusal,
                  finding="" if refusal else finding,
                  found=finding in ("slower", "faster") and not refusal)

    comps = [
        cmp("gemm", "cublas", "triton", "device_busy", "relative_difference",
            diff(0.028, 0.026, 0.030), finding="slower"),
        cmp("gemm", "cublas", "naive", "device_busy", "relative_difference",
            diff(-0.001, -0.004, 0.002, 0.0051)),
        cmp("mlp", "eager", "compiled", "synchronized_wall_clock", "resolution_1.5x",
            diff(-0.47, -0.50, -0.44), finding="faster",
            ratio=NS(speedup=1.9, resolution="directional_difference", claimed=True,
                     wording="1.9x faster", label="directional difference")),
        cmp("mlp", "eager", "jit", "synchronized_wall_clock", "resolution_1.5x", None,
            NS(speedup=1.2, resolution="no_measured_difference", claimed=False,
               wording="0.83x the time",
               label="no measured difference at this precision")),
        cmp("zero", "a", "b", "device_busy", "relative_difference",
            refusal="every sample is 0 ns"),
    ]
    return NS(run_id="20261201T000000Z-3-cmp", results=[], comparisons=comps, totals=[],
              device=NS(l2_bytes=None, name=""),
              sweeps=lambda: NS(axes=[], growth=[], crossovers=[]),
              total_n=lambda: [], call_crossovers=lambda: [])


def draw(record, tmp_path, kinds, formats=("svg",)):
    notes = []
    paths = gplot.plot([record], tmp_path, formats, kinds=kinds, note=notes.append)
    return paths, notes


# --- the sweep -----------------------------------------------------------------------------


def test_sweep_draws_both_series_the_brackets_between_measured_sizes_and_the_exponents(tmp_path):
    paths, notes = draw(sweep_standin(), tmp_path, ["sweep"])
    assert [os.path.basename(p) for p in paths] == [
        "gpumeter-20261201T000000Z-1-sweep-sweep-copy-bytes.svg"]
    assert notes == []
    found = ids(paths[0])
    a, b = path_points(found["series-a"]), path_points(found["series-b"])
    assert len(a) == len(b) == 12
    # The resolved bracket spans exactly the 6th and 7th measured sizes (the points' x).
    lo, hi = gplot._num(SIZES[5]), gplot._num(SIZES[6])
    span = [x for x, _ in path_points(found[f"bracket-{lo}-{hi}"])]
    assert min(span) == pytest.approx(a[5][0], abs=0.01)
    assert max(span) == pytest.approx(a[6][0], abs=0.01)
    assert "crossover" in text(found[f"bracket-{lo}-{hi}-label"])
    assert "a \u2192 b" in text(found[f"bracket-{lo}-{hi}-label"])
    # The unresolved one is drawn, and says so.
    lo, hi = gplot._num(SIZES[9]), gplot._num(SIZES[10])
    span = [x for x, _ in path_points(found[f"bracket-{lo}-{hi}"])]
    assert (min(span), max(span)) == (pytest.approx(a[9][0], abs=0.01),
                                      pytest.approx(a[10][0], abs=0.01))
    assert "order not established" in text(found[f"bracket-{lo}-{hi}-label"])
    assert len(starting(found, "bracket-")) == 4  # two spans, two labels
    # Each regime's exponent, with its word; a fit that misses a point by 26% says so.
    assert text(found["exponent-a-0"]) == "bytes^0.07 (flat)"
    assert text(found["exponent-a-1"]) == "bytes^0.96 (linear)"
    assert text(found["exponent-b-0"]) == "bytes^0.61 (between), misses by up to 26%"
    # The exponent's label sits at its regime: between the regime's first and last point.
    # (The label's own x is the middle of the text, its anchor the regime's geometric middle.)
    assert "boundary-a-0" in found and "boundary-b-0" not in found
    bx = path_points(found["boundary-a-0"])[0][0]
    assert a[4][0] < bx < a[5][0]
    # L2 (50 MiB) between the 9th (43 MB) and 10th (123 MB) size.
    l2x = path_points(found["l2-line"])[0][0]
    assert a[8][0] < l2x < a[9][0]
    assert "L2 (50 MiB)" in ET.tostring(ET.parse(paths[0]).getroot(), encoding="unicode")
    # The 10th to 90th percentile of each size, from the results.
    assert "spread-a" in found


def test_sweep_without_a_byte_axis_or_l2_draws_no_l2_line(tmp_path):
    found = ids(draw(sweep_standin(axis="n"), tmp_path / "n", ["sweep"])[0][0])
    assert "l2-line" not in found and "series-a" in found
    found = ids(draw(sweep_standin(l2=None), tmp_path / "none", ["sweep"])[0][0])
    assert "l2-line" not in found
    # Outside the sizes swept: said in the caption, not drawn.
    p = draw(sweep_standin(l2=64 * 2**30), tmp_path / "far", ["sweep"])[0][0]
    assert "l2-line" not in ids(p)
    assert "lies outside the sizes swept" in text(ids(p)["caption"])


def test_sweep_with_no_crossover_draws_no_bracket(tmp_path):
    found = ids(draw(sweep_standin(crossovers=[]), tmp_path, ["sweep"])[0][0])
    assert starting(found, "bracket-") == []


# --- total(N) ------------------------------------------------------------------------------


def test_totals_stack_every_measured_term_and_name_the_missing_ones(tmp_path):
    paths, _ = draw(totals_standin(), tmp_path, ["totals"])
    assert [os.path.basename(p) for p in paths] == [
        "gpumeter-20261201T000000Z-2-totals-totals-saxpy-n_1048576.svg"]
    found = ids(paths[0])
    for n in (1, 10, 100):
        for phase in ("process_start", "init", "cached_load", "per_call"):
            assert f"stack-warp-{n}-{phase}" in found
        assert f"stack-warp-{n}-first_build" not in found  # not measured: not drawn as 0
        assert f"stack-cupy-{n}-init" in found
    # The per-call segment is N times the per-call median: heights in the SVG scale so.
    def height(gid):
        ys = [y for _, y in path_points(found[gid])]
        return max(ys) - min(ys)
    assert height("stack-cupy-100-per_call") == pytest.approx(
        100 * height("stack-cupy-1-per_call"), rel=0.02)
    assert height("stack-cupy-1-init") / height("stack-cupy-1-process_start") == pytest.approx(
        10, rel=0.02)
    # The measured totals beside their bars, with their spread; none at N = 10 (not measured).
    assert starting(found, "measured-warp-1") and starting(found, "measured-cupy-100")
    assert not starting(found, "measured-cupy-10-") and "measured-cupy-10" not in found
    # measured over predicted, where both are numbers.
    assert text(found["ratio-cupy-1"]) == "1.03"
    assert "ratio-warp-1" not in found
    caption = text(found["not-measured"])
    assert "Not measured: warp: first build." in caption
    assert "No total predicted for warp: a term every candidate pays was not measured" in caption
    assert "cupy" not in caption.split("No total predicted")[1]
    # The crossover in N, unresolved.
    assert "order not established" in text(found["bracket-n-1-100-label"])


def test_totals_switch_to_a_log_axis_when_the_bars_span_decades(tmp_path):
    rec = totals_standin()
    linear = ET.tostring(ET.parse(draw(rec, tmp_path / "lin", ["totals"])[0][0]).getroot(),
                         encoding="unicode")
    assert "log scale" not in linear
    ts = rec.total_n()
    ts[1].fixed[1].median_ns = 3e3  # cupy: init in 3 us, process start 30 ms -> 10 s of warp
    ts[0].fixed[1].median_ns = 900e9
    log = ET.tostring(ET.parse(draw(rec, tmp_path / "log", ["totals"])[0][0]).getroot(),
                      encoding="unicode")
    assert "log scale" in log


# --- comparisons ---------------------------------------------------------------------------


def test_one_interval_per_comparison_and_the_15x_band(tmp_path):
    paths, _ = draw(comparisons_standin(), tmp_path, ["comparisons"])
    found = ids(paths[0])
    assert starting(found, "interval-") == [
        "interval-naive", "interval-naive-bar", "interval-naive-text",
        "interval-triton", "interval-triton-bar", "interval-triton-text"]
    assert text(found["interval-triton-text"]) == "2.8% slower (2.6% to 3.0%)"
    # The amounts are the core's words (difference_amounts), plot keeps no copy of its rule: a
    # factor from the resolution ratio on, in the captions too.
    assert gplot._gpumeter.difference_amounts(0.028, 0.026, 0.030) == ("2.8%", "2.6%", "3.0%")
    assert gplot._gpumeter.difference_amounts(-0.47, -0.50, -0.44) == ("1.9x", "1.8x", "2.0x")
    assert not hasattr(gplot, "_amount") and not hasattr(gplot, "_factor")
    assert text(found["interval-naive-text"]) == "no difference detected (would see 0.51%)"
    # "no difference detected" is drawn as the interval around 0.
    zero = path_points(found["zero-line"])[0][0]
    xs = [x for x, _ in path_points(found["interval-naive-bar"])]
    assert min(xs) < zero < max(xs)
    xs = [x for x, _ in path_points(found["interval-triton-bar"])]
    assert min(xs) > zero
    # Wall clock: the ratio (candidate time over baseline), inside or outside the 1.5x band.
    band = [x for x, _ in path_points(found["band-1.5x"])]
    assert starting(found, "ratio-") == ["ratio-compiled", "ratio-compiled-text", "ratio-jit",
                                         "ratio-jit-text"]
    assert text(found["ratio-jit-text"]) == "0.83x the time: no measured difference at this " \
                                            "precision"
    # Markers are <use> elements placed at x; the band spans 1/1.5 to 1.5.
    def marker_x(gid):
        use = found[gid].find(f".//{SVG}use")
        return float(use.get("x"))
    assert min(band) < marker_x("ratio-jit") < max(band)
    assert marker_x("ratio-compiled") < min(band)
    assert "Not compared: b vs a: every sample is 0 ns." in text(found["caption"])
    # Device time and wall clock on two axes, never one.
    assert starting(found, "panel-") == ["panel-device_busy-difference",
                                         "panel-synchronized_wall_clock-ratio"]


def test_hostile_names_are_drawn_as_text(tmp_path):
    rec = comparisons_standin()
    rec.comparisons[0].candidate_row = row("gemm", "$x$ <b>&amp;")
    rec.comparisons[0].candidate = "$x$ <b>&amp;"
    found = ids(draw(rec, tmp_path, ["comparisons"])[0][0])
    assert "interval-x_b_amp" in found
    path = draw(rec, tmp_path / "again", ["comparisons"], ("svg",))[0][0]
    with open(path, encoding="utf-8") as f:  # the GPU machine's locale is ASCII
        svg = f.read()
    assert "$x$ &lt;b&gt;&amp;amp; vs cublas" in svg


# Every text a name can carry that bends an output: controls (ESC raw made the SVG invalid XML),
# zero-width and bidirectional marks, line and paragraph separators, a byte order mark, markup.
HOSTILE = ["esc\x1b[31mred", "nul\x00", "bell\x07", "zw\u200bspace", "rlm\u200f",
           "alm\u061c", "ls\u2028ps\u2029", "bom\ufeff", "rlo\u202egnp.exe", "del\x7f",
           "c1\x9b31m", "\uff1d1+1", "<script>&amp;]]>"]


def test_every_hostile_name_draws_an_svg_an_xml_parser_reads(tmp_path):
    for k, name in enumerate(HOSTILE):
        rec = comparisons_standin()
        rec.comparisons[0].candidate_row = row("gemm", name)
        rec.comparisons[0].candidate = name
        path = draw(rec, tmp_path / str(k), ["comparisons"], ("svg",))[0][0]
        with open(path, encoding="utf-8") as f:
            svg = f.read()
        ET.fromstring(svg)  # raises on a character XML 1.0 does not allow
        for mark in ("\x1b", "\x00", "\x07", "\x7f", "\x9b", "\u200b", "\u200f", "\u061c",
                     "\u2028", "\u2029", "\ufeff", "\u202e"):
            assert mark not in svg, (name, mark)
    # What the name held is shown, escaped as the terminal shows it.
    assert "esc\\x1b[31mred" in open(
        draw(_named("esc\x1b[31mred"), tmp_path / "shown", ["comparisons"], ("svg",))[0][0],
        encoding="utf-8").read()


def _named(name):
    rec = comparisons_standin()
    rec.comparisons[0].candidate_row = row("gemm", name)
    rec.comparisons[0].candidate = name
    return rec


def test_empty_or_repeated_formats_are_refused_before_anything_is_drawn(tmp_path, capsys):
    # "--format ''" wrote nothing and exited 0; "svg,svg" exited 2 naming a hidden temporary file
    # and left one SVG behind.
    for given, words in (("", "format: no format given"), ("svg,svg", "'svg' is given twice"),
                         ("svg,,png", "format: '' is not one of"),
                         ("svg,\x1b[9m", "'\\x1b[9m' is not one of")):
        out = tmp_path / f"out{len(given)}"
        rc = gpumeter.main(["plot", os.path.join(DATA, "sweep_crossing.json"), "--out",
                            str(out), "--format", given])
        err = capsys.readouterr().err
        assert rc == 2, (given, err)
        assert err.count("\n") == 1 and words in err, (given, err)
        assert not out.exists(), given  # nothing drawn, no folder made
    with pytest.raises(gpumeter.ConfigError, match="no kind given"):
        gplot.plot([sweep_standin()], tmp_path, ["svg"], kinds=[])


# --- files and messages --------------------------------------------------------------------


def test_nothing_to_draw_for_a_kind_is_one_line_and_for_all_an_error(tmp_path):
    paths, notes = draw(sweep_standin(), tmp_path, list(gplot.KINDS), ("svg", "png"))
    assert len(paths) == 2 and paths[1].endswith(".png")
    with open(paths[1], "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    assert notes == [
        "gpumeter plot: record 20261201T000000Z-1-sweep: no total(N) to draw (the record has no "
        "phases)",
        "gpumeter plot: record 20261201T000000Z-1-sweep: no comparison to draw (the record "
        "holds none, or none was compared)"]
    with pytest.raises(gplot.NothingToDraw, match="nothing to draw in record"):
        draw(totals_standin(), tmp_path, ["sweep", "comparisons"])


def test_never_written_over_an_existing_file(tmp_path):
    paths, _ = draw(sweep_standin(), tmp_path, ["sweep"], ("svg", "png"))
    before = [open(p, "rb").read() for p in paths]
    os.remove(paths[1])  # one of the two still there: nothing is written
    with pytest.raises(FileExistsError, match="never written over a file"):
        draw(sweep_standin(), tmp_path, ["sweep"], ("svg", "png"))
    assert open(paths[0], "rb").read() == before[0]
    assert not os.path.exists(paths[1])
    assert [f for f in os.listdir(tmp_path) if f.startswith(".")] == []  # no temporary left


def test_the_same_record_draws_the_same_svg(tmp_path):
    a = draw(sweep_standin(), tmp_path / "a", ["sweep"])[0][0]
    b = draw(sweep_standin(), tmp_path / "b", ["sweep"])[0][0]
    assert open(a, "rb").read() == open(b, "rb").read()


def test_bad_formats_and_kinds_are_config_errors(tmp_path):
    with pytest.raises(gpumeter.ConfigError, match="'gif' is not one of svg, png, pdf"):
        gplot.plot([sweep_standin()], tmp_path, ["gif"])
    with pytest.raises(gpumeter.ConfigError, match="'bars' is not one of"):
        gplot.plot([sweep_standin()], tmp_path, kinds=["bars"])


def test_missing_matplotlib_names_what_to_install(tmp_path):
    code = ("import sys; sys.modules['matplotlib'] = None\n"
            "from gpumeter.plot import main\n"
            f"sys.exit(main([{os.path.join(DATA, 'record_v6.json')!r}, '--out', "
            f"{str(tmp_path)!r}]))\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert p.returncode == 2
    assert p.stdout == ""
    assert p.stderr == ("gpumeter plot: gpumeter plot draws with matplotlib: pip install "
                        "matplotlib (or, in the gpumeter checkout, pip install '.[plot]')\n")
    assert os.listdir(tmp_path) == []


def test_main_writes_and_lists_the_files(tmp_path, capsys):
    rc = gpumeter.main(["plot", os.path.join(DATA, "sweep_crossing.json"), "--out",
                        str(tmp_path), "--format", "svg"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    written = out.splitlines()
    assert sorted(os.path.basename(p) for p in written) == [
        "gpumeter-20261201T090000Z-4248-5eed5eed-comparisons.svg",
        "gpumeter-20261201T090000Z-4248-5eed5eed-sweep-copy-bytes.svg"]
    assert "no total(N) to draw" in err
    rc = gpumeter.main(["plot", os.path.join(DATA, "sweep_crossing.json"), "--out",
                        str(tmp_path), "--format", "gif"])
    assert rc == 2
    assert capsys.readouterr().err == ("gpumeter plot: format: 'gif' is not one of svg, png, "
                                       "pdf\n")
    rc = gpumeter.main(["plot", str(tmp_path / "missing.json")])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and "missing.json" in err
    # Written as readable as a record (0644 less the umask), never mkstemp's private 0600.
    mask = os.umask(0)
    os.umask(mask)
    for path in written:
        assert oct(os.stat(path).st_mode & 0o777) == oct(0o644 & ~mask), path
    # A folder that cannot be made: one line with its path and the system's words, no
    # "[Errno 20] ..." text of Python's.
    (tmp_path / "a-file").write_text("")
    rc = gpumeter.main(["plot", os.path.join(DATA, "sweep_crossing.json"), "--out",
                        str(tmp_path / "a-file" / "figures"), "--format", "svg",
                        "--kind", "sweep"])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1, err
    assert "a-file" in err and "[Errno" not in err and "Traceback" not in err, err


# --- the committed records, through the core ---------------------------------------------


def test_a_crossing_sweep_from_its_record(tmp_path):
    record = gpumeter.read_record(os.path.join(DATA, "sweep_crossing.json"))
    analysis = record.sweeps()
    paths, _ = draw(record, tmp_path, ["sweep", "comparisons"])
    sweep = ids(next(p for p in paths if "-sweep-" in p))
    a, b = path_points(sweep["series-a"]), path_points(sweep["series-b"])
    assert len(a) == len(b) == 12
    # "a" leads up to 1.9 MB, "b" from 5.3 MB: the record's one crossover, drawn as that pair.
    (c,) = analysis.crossovers
    assert (c.low, c.high, c.resolved) == (1873817.0, 5336699.0, True)
    span = [x for x, _ in path_points(sweep["bracket-1873817-5336699"])]
    assert (min(span), max(span)) == (pytest.approx(a[5][0], abs=0.01),
                                      pytest.approx(a[6][0], abs=0.01))
    # Every regime's exponent, labelled with the fitted value.
    for g in analysis.growth:
        for i, r in enumerate(g.regimes):
            label = text(sweep[f"exponent-{g.row.implementation}-{i}"])
            # Labelled by the axis's name (as the report words the same fit).
            assert re.match(rf"\w+\^{r.exponent:.2f} \(", label), label
    first = next(g for g in analysis.growth if g.row.implementation == "a")
    assert first.regimes[0].exponent < 0.3 and first.regimes[-1].exponent > 0.8
    assert "l2-line" in sweep
    # One interval per comparison (b against a at each size).
    comparisons = ids(next(p for p in paths if p.endswith("-comparisons.svg")))
    drawn = [k for k in starting(comparisons, "interval-") if not k.endswith(("-bar", "-text"))]
    assert len(drawn) == len(record.comparisons) == 12


def test_totals_from_the_phases_record(tmp_path):
    record = gpumeter.read_record(os.path.join(DATA, "record_v6.json"))
    paths, notes = draw(record, tmp_path, list(gplot.KINDS))
    totals = ids(next(p for p in paths if "-totals-" in p))
    for t in record.total_n():
        cand = t.row.implementation + ("" if t.setting == "fresh_cached" else f"-{t.setting}")
        for at in t.at:
            for term in t.fixed:
                gid = f"stack-{cand}-{at.calls}-{term.phase}"
                assert (gid in totals) == (term.median_ns is not None), gid
            if at.measured_ns is not None:
                assert f"measured-{cand}-{at.calls}" in totals
    assert "measured-warp-1" in totals and "measured-cupy-100" in totals
    assert "not measured" in text(totals["not-measured"]).lower()
    assert any("no sweep to draw" in n for n in notes)


# --- many comparisons: pages, then a summary (issue 36) ------------------------------------


def many_comparisons(n, refused=0):
    """A record of n compared device-time comparisons (every tenth slower, every tenth faster)
    and `refused` refused ones."""
    def diff(e):
        return NS(estimate=e, low=e - 0.002, high=e + 0.002, smallest_detectable=0.004,
                  slower=e - 0.002 > 0, faster=e + 0.002 < 0)

    comps = []
    for i in range(n):
        e = 0.05 * ((i % 10 == 1) - (i % 10 == 2)) + 1e-4 * (i % 7)
        finding = {1: "slower", 2: "faster"}.get(i % 10, "no difference")  # the core's
        comps.append(NS(baseline="base", candidate=f"c{i}", baseline_row=row("op", "base"),
                        candidate_row=row("op", f"c{i}"), statistic="device_busy",
                        rule="relative_difference", difference=diff(e), ratio=None,
                        refusal="", finding=finding, found=i % 10 in (1, 2)))
    for i in range(refused):
        comps.append(NS(baseline="base", candidate=f"z{i}", baseline_row=row("op", "base"),
                        candidate_row=row("op", f"z{i}"), statistic="device_busy",
                        rule="relative_difference", difference=None, ratio=None,
                        refusal="every sample is 0 ns", finding="", found=False))
    return NS(run_id="20261201T000000Z-4-many", results=[], comparisons=comps, totals=[],
              device=NS(l2_bytes=None, name=""),
              sweeps=lambda: NS(axes=[], growth=[], crossovers=[]),
              total_n=lambda: [], call_crossovers=lambda: [])


def test_more_than_a_page_of_comparisons_is_drawn_as_pages(tmp_path):
    paths, _ = draw(many_comparisons(100), tmp_path, ["comparisons"])
    assert [os.path.basename(p) for p in paths] == [
        f"gpumeter-20261201T000000Z-4-many-comparisons-p{i}of3.svg" for i in (1, 2, 3)]
    drawn = []
    for p in paths:
        found = ids(p)
        mine = [k for k in starting(found, "interval-") if not k.endswith(("-bar", "-text"))]
        assert len(mine) <= gplot.COMPARISONS_PER_PAGE
        drawn += mine
    assert len(drawn) == 100  # every comparison named once, on one page
    assert "Page 1 of 3 of the record's 100 comparisons" in text(ids(paths[0])["caption"])


def test_ten_thousand_comparisons_are_a_summary_in_bounded_time_and_memory(tmp_path):
    # Before: one figure of every comparison, 515 s, 11.5 GB and a PNG 825,453 px tall for
    # 10,001. Drawn in a process of its own, so its peak memory is its own.
    script = (
        "import os, resource, sys, time\n"
        f"sys.path.insert(0, {os.path.dirname(os.path.abspath(__file__))!r})\n"
        "import test_plot as t\n"
        "from gpumeter import plot as gplot\n"
        "record = t.many_comparisons(10000, refused=500)\n"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024\n"
        "start = time.monotonic()\n"
        "paths = gplot.plot([record], sys.argv[1], ('svg', 'png'), kinds=['comparisons'])\n"
        "seconds = time.monotonic() - start\n"
        "peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024\n"
        "print(seconds, peak, before, *paths)\n")
    out = subprocess.run([sys.executable, "-c", script, str(tmp_path)], capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    seconds, peak, before, *paths = out.stdout.split()
    print(f"10,000 comparisons: {float(seconds):.1f} s, peak {int(peak) / 2**20:.0f} MiB "
          f"({int(before) / 2**20:.0f} MiB before drawing)")
    assert sorted(os.path.basename(p) for p in paths) == [
        f"gpumeter-20261201T000000Z-4-many-comparisons-{k}.{f}"
        for k in ("largest", "summary") for f in ("png", "svg")]
    # What drawing adds: the imports before it (on a GPU machine the CUDA libraries a framework
    # loads, 1.6 GB there) are not the drawing's.
    assert int(peak) - int(before) < 1 << 30
    # The time is not a ratio of CPU work: a bound far above the 30 s target, which a loaded
    # machine still meets and a drawing of every comparison (515 s) does not.
    assert float(seconds) < 300
    from matplotlib import image
    for p in paths:
        if p.endswith(".png"):
            assert image.imread(p).shape[0] < 4000  # px tall
    summary = ids(next(p for p in paths if p.endswith("-summary.svg")))
    caption = re.sub(r"\s", "", text(summary["caption"]))  # its lines wrapped at 120
    assert "oftherecord's10000comparedcomparisons" in caption
    assert "and490more" in caption
    largest = ids(next(p for p in paths if p.endswith("-largest.svg")))
    named = [k for k in starting(largest, "interval-") if not k.endswith(("-bar", "-text"))]
    assert len(named) == gplot.COMPARISONS_PER_PAGE


@pytest.mark.parametrize("reach", [1.3, 3.0, 40.0, 1000.0, 1e5])
def test_ratio_tick_labels_never_run_together(reach):
    """Issue 51: at a wide reach the comparison plot's 0.5x, 0.67x, 1x, 1.5x, 2x labels ran
    together. Drawn on the comparison page's axis width, no two labels overlap."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = gplot._new_figure(10.5, 2.5)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    ax.set_xscale("log")
    ax.set_xlim(1 / reach, reach)
    gplot._ratio_ticks(ax, reach)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    boxes = sorted((t.get_window_extent(renderer) for t in ax.get_xticklabels()
                    if t.get_text() and 1 / reach <= t._x <= reach), key=lambda b: b.x0)
    assert len(boxes) >= (3 if reach >= 1.5 else 1), reach
    for left, right in zip(boxes, boxes[1:]):
        assert left.x1 + 2 <= right.x0, (reach, [t.get_text() for t in ax.get_xticklabels()])
    assert "1x" in [t.get_text() for t in ax.get_xticklabels()]


def test_a_totals_plot_is_as_wide_as_its_content(tmp_path):
    """Issue 51: the totals plot was 3234 px wide and 40% blank: its caption, one line naming
    every term not measured, set the width. The caption wraps to the figure; the image is as
    wide as the plot and its legend."""
    rec = totals_standin()
    for t in rec.total_n():
        t.fixed += [term(f"phase_{i}", f"a long-named phase {i} that was not measured",
                         "fresh_cached", None) for i in range(12)]
    paths, _ = draw(rec, tmp_path, ["totals"], formats=("png",))
    image = matplotlib.image.imread(paths[0])
    inked = (image[:, :, :3].min(axis=2) < 0.99)
    plot_rows = inked[: int(image.shape[0] * 0.6)]  # the bars and the legend, above the caption
    used = plot_rows.any(axis=0).nonzero()[0]
    assert used.max() - used.min() > 0.85 * image.shape[1], (image.shape, used.min(), used.max())
    caption = gplot._new_figure(8, 4)  # the wrapping alone: no line wider than the figure allows
    gplot._caption(caption, ["word " * 200], "caption")
    assert max(len(x) for x in caption.texts[0].get_text().splitlines()) <= 8 * 15


def test_plot_titles_a_statistic_as_the_reports_do():
    # The core's one title (wording.cpp statistic_title): plot once said "synchronized wall
    # clock" and "CUDA event time" where every table says "wall clock" and "device_event".
    from gpumeter import plot
    assert plot._statistic_words("synchronized_wall_clock") == "wall clock"
    assert plot._statistic_words("device_event") == "device_event"
    assert plot._statistic_words("device_busy") == "device_busy"
