"""Reports from a small set of synthetic score files written here (values chosen so every expected
number below is worked out by hand in the comments)."""

from __future__ import annotations

import csv
import json
import struct
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from tst.report import build, figure, leaderboard, plots, tables
from tst.report.scores import load_scores
from tst.report.select import select_checkpoints

EPOCHS = [0.5, 1.0, 1.5, 2.0]
# Dev Acc per half epoch. Target 0.80 +- 0.02:
#   M0 seed1 -> ep1.5 (0.79, off 0.01); M0 seed2 -> ep1.0 (0.78, off 0.02: tie-free, 0.83 is 0.03 off)
#   M2 seed1 -> ep2.0 (0.74, off 0.06: outside the tolerance -> dagger); M2 seed2 -> ep2.0 (0.81)
DEV_ACC = {
    ("M0", 1): [0.60, 0.75, 0.79, 0.86],
    ("M0", 2): [0.65, 0.78, 0.83, 0.90],
    ("M2", 1): [0.50, 0.60, 0.70, 0.74],
    ("M2", 2): [0.55, 0.65, 0.72, 0.81],
}
INFO = {
    "acc": ("style CNN, share of outputs classified as the target style", True),
    "transfer_strength": ("Fu et al. LSTM-sigmoid", True),
    "sim": ("idf-weighted GloVe cosine", True),
    "cp": ("Fu et al. pooled embeddings", True),
    "pp_joint": ("joint GRU LM corpus perplexity", False),
    "gm": ("eq. 1 default t", True),
    "sti": ("Mir EMD", True),
    "wmd_masked": ("WMD style-masked", False),
    "naturalness_nn": ("Mir neural", True),
    "bleu_ref_corpus": ("corpus BLEU multi-bleu.perl", True),
}


def ours_metrics(a: float, split: str) -> dict:
    """Metrics of a checkpoint as functions of its dev Acc `a` (test Acc = dev Acc + 0.01)."""
    acc = a + (0.01 if split == "test" else 0.0)
    return {
        "acc": acc,
        "transfer_strength": acc - 0.05,
        "sim": 1 - 0.5 * a,
        "cp": 0.95 - 0.1 * a,
        "pp_joint": 30 + 20 * a,
        "gm": 10 * a,
        "sti": 0.5 * a,
        "wmd_masked": 0.2 + 0.3 * a,
        "naturalness_nn": 0.9 - 0.4 * a,
        "bleu_ref_corpus": 30 - 20 * a,
    }


EXTERNAL = {  # test-set scores of external systems
    "mit": {
        "acc": 0.75,
        "transfer_strength": 0.70,
        "sim": 0.70,
        "cp": 0.88,
        "pp_joint": 45.0,
        "gm": 8.0,
        "sti": 0.40,
        "wmd_masked": 0.45,
        "naturalness_nn": 0.5,
        "bleu_ref_corpus": 7.5,
    },
    "multi_decoder": {
        "acc": 0.50,
        "transfer_strength": 0.45,
        "sim": 0.72,
        "cp": 0.90,
        "pp_joint": 60.0,
        "gm": 6.0,
        "sti": 0.30,
        "wmd_masked": 0.40,
        "naturalness_nn": 0.6,
        "bleu_ref_corpus": 7.6,
    },
    "human": {
        "acc": 0.80,
        "transfer_strength": 0.78,
        "sim": 0.80,
        "cp": 0.91,
        "pp_joint": 35.0,
        "gm": 15.0,
        "sti": 0.45,
        "wmd_masked": 0.30,
        "naturalness_nn": 0.8,
        "bleu_ref_corpus": 100.0,
    },
    "source": {
        "acc": 0.02,
        "transfer_strength": 0.03,
        "sim": 1.00,
        "cp": 1.00,
        "pp_joint": 33.0,
        "gm": 1.0,
        "sti": 0.00,
        "wmd_masked": 0.00,
        "naturalness_nn": 0.9,
        "bleu_ref_corpus": 31.4,
    },
}


def write_score(
    root: Path, system: str, split: str, checkpoint: str, metrics: dict, variant=None, seed=None, epoch=None
) -> Path:
    rec = {
        "dataset": "toy",
        "system": system,
        "variant": variant,
        "seed": seed,
        "checkpoint": checkpoint,
        "epoch": epoch,
        "split": split,
        "n_sentences": 100,
        "metrics": {
            k: {"score": v, "variant": INFO[k][0], "higher_is_better": INFO[k][1]} for k, v in metrics.items()
        },
        "evaluators": {"style_cnn.pt": "0" * 64},
    }
    path = root / system / f"{split}.{checkpoint}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(rec))
    return path


@pytest.fixture()
def score_files(tmp_path) -> list[Path]:
    paths = []
    for (v, seed), accs in DEV_ACC.items():
        for ep, a in zip(EPOCHS, accs):
            for split in ("dev", "test"):
                paths.append(
                    write_score(
                        tmp_path / "scores",
                        f"{v}.seed{seed}",
                        split,
                        f"ep{ep}",
                        ours_metrics(a, split),
                        v,
                        seed,
                        ep,
                    )
                )
    for system, m in EXTERNAL.items():
        paths.append(write_score(tmp_path / "scores", system, "test", "final", m))
    return paths


def read_csv(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return list(csv.DictReader(f))


def num(cell: str) -> tuple[float, float | None]:
    parts = cell.split(" ± ")
    return float(parts[0]), (float(parts[1]) if len(parts) > 1 else None)


def col(row: dict, label: str) -> str:
    """The cell whose header starts with the metric's short name and arrow."""
    hits = [v for k, v in row.items() if k.startswith(label + " ")]
    assert len(hits) == 1, (label, list(row))
    return hits[0]


def test_select_checkpoints(score_files):
    frame, _ = load_scores(score_files)
    sel = select_checkpoints(frame, 0.80, 0.02)
    got = {(r.variant, r.seed): (r.checkpoint, r.within) for r in sel.itertuples()}
    assert got == {
        ("M0", 1): ("ep1.5", True),
        ("M0", 2): ("ep1.0", True),
        ("M2", 1): ("ep2.0", False),
        ("M2", 2): ("ep2.0", True),
    }


def test_select_tie_takes_earliest(tmp_path):
    # dev Acc 0.25 and 0.75 (exact in binary) are both 0.25 from the target 0.5 -> the earlier, ep0.5
    paths = [
        write_score(tmp_path, "MT.seed3", "dev", f"ep{ep}", {"acc": a}, "MT", 3, ep)
        for ep, a in ((1.0, 0.75), (0.5, 0.25), (1.5, 0.95))
    ]
    frame, _ = load_scores(paths)
    sel = select_checkpoints(frame, 0.5, 0.25)
    assert sel.to_dict("records") == [
        {
            "variant": "MT",
            "seed": 3,
            "system": "MT.seed3",
            "checkpoint": "ep0.5",
            "epoch": 0.5,
            "dev_acc": 0.25,
            "distance": 0.25,
            "within": True,
        }
    ]


def test_selected_checkpoint_without_test_scores(score_files, tmp_path):
    """M2 seed1 is selected at ep2.0 on dev; without its test file the M2 row is seed 2 alone (no sd)."""
    kept = [p for p in score_files if not (p.parent.name == "M2.seed1" and p.name == "test.ep2.0.json")]
    assert len(kept) == len(score_files) - 1
    table = tables.pang_gimpel_table(*load_scores(kept), target_acc=0.80, tolerance=0.02)
    m2 = next(r for r in table.rows if r[0].startswith("M2"))
    # seed 2 only: dev 0.81 -> test Acc 0.82, no ± part; seeds column 1
    assert m2[1] == "0.820" and m2[-2] == "1"
    assert any("M2.seed1 ep2.0" in n for n in table.notes)


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def svg_ids(path: Path) -> list[str]:
    root = ET.parse(path).getroot()
    assert root.tag.endswith("svg")
    return [el.get("id") for el in root.iter() if el.get("id")]


def test_figure_text_is_wrapped_to_the_width_it_is_given():
    """wrap_lines: 1 in at 6 pt holds 72 / (6 x 0.6) = 20 characters a line; lines break at words, given line
    breaks and empty lines stay. Then a real footnote-sized text drawn by matplotlib stays inside its width."""
    assert figure.wrap_lines("alpha beta gamma delta epsilon zeta\n\nomega", 1.0, 6) == (
        "alpha beta gamma\ndelta epsilon zeta\n\nomega"  # 16 and 18 characters: "+ delta" would make 22
    )
    import matplotlib.pyplot as plt

    text = (
        "Sim ↑: mean over pairs of cos(v(source), v(output)), v(s) = sum_q idf(q) e(q) / sum_q idf(q) over tokens "
        "with an embedding; idf(q) = log(|C| / |{s in C: q in s}|); an output with no usable word (EMPTY, EVERY "
        "WORD WITHOUT AN EMBEDDING) scores 0 (ours), as Pang & Gimpel's code does; Acc: share of outputs whose "
        "argmax P(style) is the target style (CNN, Kim 2014); WMD mmmm wwww MMMM WWWW"
    )
    fig = plt.figure(figsize=(6, 3), dpi=100)
    drawn = fig.text(0.0, 0.5, figure.wrap_lines(text, 6.0, 6.5), ha="left", fontsize=6.5)
    width = drawn.get_window_extent(fig.canvas.get_renderer()).width
    plt.close(fig)
    assert drawn.get_text().count("\n") >= 2 and width <= 6.0 * 100


def test_plots(score_files, tmp_path):
    out = tmp_path / "plots"
    paths = build.build_plots(score_files, out, {"pp_bins": [40, 43, 46, 49]}, ["M0", "M2"])
    assert sorted(p.name for p in paths) == sorted(f"{n}.{e}" for n in build.PLOTS for e in ("png", "svg"))
    for p in paths:
        if p.suffix == ".png":
            w, h = png_size(p)
            assert w > 300 and h > 200
    series = {
        n: [i for i in svg_ids(out / f"{n}.svg") if "series-" in i or i == "external"] for n in build.PLOTS
    }
    assert sorted(series["trajectories"]) == ["a-series-M0", "a-series-M2", "b-series-M0", "b-series-M2"]
    assert sorted(series["robust"]) == ["a-series-M0", "a-series-M2", "b-series-M0", "b-series-M2"]
    for n in ("tradeoff_ts_cp", "tradeoff_sti_wmd", "tradeoff_nat_sti"):
        assert sorted(series[n]) == ["external", "series-M0", "series-M2"]


def test_plot_values(score_files):
    frame, info = load_scores(score_files)
    colors = figure.variant_colors(["M0", "M2"])
    fig = plots.trajectory_figure(frame, info, colors, ["M0", "M2"])
    ax1, ax2 = fig.axes
    m0 = next(line for line in ax1.get_lines() if line.get_label() == "M0")
    # one marker per half epoch; first point: mean dev Acc at ep0.5 = (0.60 + 0.65)/2 = 0.625,
    # x = 1 - 0.625 = 0.375, y = Sim = 1 - 0.5 * 0.625 = 0.6875
    assert len(m0.get_xdata()) == 4
    assert m0.get_xdata()[0] == pytest.approx(0.375) and m0.get_ydata()[0] == pytest.approx(0.6875)
    assert m0.get_color() == next(line for line in ax2.get_lines() if line.get_label() == "M0").get_color()
    plots.plt.close(fig)

    # Robust evaluation, bins [40,43) [43,46) [46,49]. Dev PP = 30 + 20 a.
    # M0 seed1 PP 42, 45, 45.8, 47.2 -> best Acc per bin 0.60, 0.79, 0.86
    # M0 seed2 PP 43, 45.6, 46.6, 48 -> best Acc per bin  -, 0.78, 0.90
    edges = np.array([40.0, 43.0, 46.0, 49.0])
    # sample sd of two values a, b is |a - b| / sqrt(2); one seed in bin 0: no sd (no band there)
    mean, sd, n = plots.robust_curves(frame, info, edges, "M0", "pp_joint", "acc")
    assert mean == pytest.approx([0.60, 0.785, 0.88]) and np.isnan(sd[0])
    assert sd[1:] == pytest.approx([0.01 / np.sqrt(2), 0.04 / np.sqrt(2)])
    assert list(n) == [1, 2, 2]
    # best Sim (1 - 0.5 a) is at the lowest Acc of each bin: seed1 0.70, 0.625, 0.57; seed2 -, 0.675, 0.585
    mean, _, _ = plots.robust_curves(frame, info, edges, "M0", "pp_joint", "sim")
    assert mean == pytest.approx([0.70, 0.65, 0.5775])
    # PP is lower-is-better: its "best" per bin is the minimum (M2 seed1 PP 40, 42 in bin 0 -> 40)
    m2, _, _ = plots.robust_curves(frame, info, edges, "M2", "pp_joint", "pp_joint")
    assert m2[0] == pytest.approx((40.0 + 41.0) / 2)


def test_external_only_dataset_degrades(tmp_path):
    """No trained models and no STI: the external tables and trade-off plots are still built. The files
    name the system as `variant` (as tst.scoring.write writes them); a null seed marks them external."""
    paths = []
    for system, m in EXTERNAL.items():
        m = {k: v for k, v in m.items() if k not in ("sti",)}
        paths.append(write_score(tmp_path / "scores", system, "test", "final", m, variant=system))
    tabs = build.build_tables(paths, tmp_path / "tables")
    figs = build.build_plots(paths, tmp_path / "plots")
    assert len(tabs) == len(build.TABLE_FORMATS) * len(build.TABLES) and len(figs) == 2 * len(build.PLOTS)
    assert read_csv(tmp_path / "tables" / "pang_gimpel.csv") == []
    assert "No trained models" in (tmp_path / "tables" / "pang_gimpel.md").read_text()
    assert len(read_csv(tmp_path / "tables" / "metrics_all.csv")) == 4
    ids = svg_ids(tmp_path / "plots" / "tradeoff_ts_cp.svg")
    assert "external" in ids and not any(i.startswith("series-") for i in ids)
    assert "external" not in svg_ids(tmp_path / "plots" / "tradeoff_sti_wmd.svg")
    frame, info = load_scores(paths)
    fig = plots.tradeoff_figure(frame, info, {}, "wmd_masked", "sti")
    assert fig.axes[0].get_lines() == [] and "not available" in fig.axes[0].texts[0].get_text()
    plots.plt.close(fig)


def test_gm_recomputed_from_stored_scores(tmp_path):
    """load_scores(gm_t): GM from each file's corpus Acc, Sim, PP (Pang & Gimpel Table 2 M0: 0.818, 0.719,
    37.3 -> 10.0), not the stored value; a file without PP gets none. Without gm_t the stored GM stays."""
    from tst.metrics.gm import DEFAULT_T

    paths = [
        write_score(
            tmp_path,
            "M0.seed1",
            "test",
            "ep1.0",
            {"acc": 0.818, "sim": 0.719, "pp_joint": 37.3, "gm": 99.0},
            "M0",
            1,
            1.0,
        ),
        write_score(tmp_path, "mit", "test", "final", {"acc": 0.8, "sim": 0.8, "gm": 5.0}),
    ]
    frame, _ = load_scores(paths)
    assert frame["gm"].tolist() == [99.0, 5.0]
    frame, info = load_scores(paths, DEFAULT_T)
    assert round(frame["gm_pg"][0], 1) == 10.0 and np.isnan(frame["gm_pg"][1])
    assert info["gm_pg"].variant.endswith("t=[63.0, 71.0, 97.0, -37.0]")


def test_build_tables_and_plots_pass_gm_t(score_files, tmp_path):
    out = tmp_path / "tables"
    build.build_tables(
        score_files, out, {"target_acc": 0.80, "tolerance": 0.02}, ["M0", "M2"], gm_t=(63, 50, 97, -37)
    )
    m0 = read_csv(out / "pang_gimpel.csv")[0]
    # M0 test rows: seed1 Acc 0.80, Sim 0.605, PP 45.8; seed2 Acc 0.79, Sim 0.61, PP 45.6 (see test_tables);
    # eq. 1 with t = (63, 50, 97, -37): (17 * 10.5 * 51.2)^(1/3) and (16 * 11 * 51.4)^(1/3), not the stored 10 a
    gms = [(17 * 10.5 * 51.2) ** (1 / 3), (16 * 11 * 51.4) ** (1 / 3)]
    assert float(m0["gm_pg"]) == pytest.approx(np.mean(gms)) and float(m0["gm_pg_sd"]) == pytest.approx(
        np.std(gms, ddof=1)
    )
    assert "t=[63.0, 50.0, 97.0, -37.0]" in (out / "pang_gimpel.md").read_text()
    paths = build.build_plots(
        score_files, tmp_path / "plots", {"pp_bins": [40, 43, 46, 49]}, ["M0", "M2"], gm_t=(63, 50, 97, -37)
    )
    assert len(paths) == 2 * len(build.PLOTS)


def test_plot_marks_band_and_caveat(score_files):
    frame, info = load_scores(score_files)
    colors = figure.variant_colors(["M0", "M2"])
    # trajectory labels: the first point, every whole epoch, the last checkpoint (epochs 0.5, 1.0, 1.5, 2.0)
    assert plots.epoch_marks([0.5, 1.0, 1.5, 2.0]) == {0: "ep0.5", 1: "ep1", 3: "ep2 (last)"}
    fig = plots.trajectory_figure(frame, info, colors, ["M0", "M2"])
    ax1 = fig.axes[0]
    assert sorted(t.get_text() for t in ax1.texts) == sorted(["ep0.5", "ep1", "ep2 (last)"] * 2)
    last = next(line for line in ax1.get_lines() if line.get_gid() == "a-last-M0")
    # M0 at ep2.0: mean dev Acc (0.86 + 0.90) / 2 = 0.88 -> x = 0.12; Sim = 1 - 0.5 * 0.88 = 0.56
    assert last.get_xdata()[0] == pytest.approx(0.12) and last.get_ydata()[0] == pytest.approx(0.56)
    assert ax1.get_xlabel() == "1 − Acc (error rate) ↓"
    assert not [line for line in ax1.get_lines() if line.get_gid() == "a-target"]
    plots.plt.close(fig)
    # the tables' target Acc 0.8 as a dashed line at error rate 1 - 0.8 = 0.2
    fig = plots.trajectory_figure(frame, info, colors, ["M0", "M2"], target_acc=0.8)
    target = next(line for line in fig.axes[0].get_lines() if line.get_gid() == "a-target")
    assert list(target.get_xdata()) == pytest.approx([0.2, 0.2]) and target.get_linestyle() == "--"
    plots.plt.close(fig)
    # robust: with two seeds, a band of ± sample sd; bin [46, 49]: M0 best Acc 0.86, 0.90 -> 0.88 ± 0.04/sqrt 2
    fig = plots.robust_figure(frame, info, colors, ["M0", "M2"], [40, 43, 46, 49])
    band = next(c for c in fig.axes[0].collections if c.get_gid() == "a-spread-M0")
    ys = np.concatenate([p.vertices[:, 1] for p in band.get_paths()])
    assert ys.max() == pytest.approx(0.88 + 0.04 / np.sqrt(2)) and ys.min() == pytest.approx(
        0.785 - 0.01 / np.sqrt(2)
    )
    plots.plt.close(fig)
    # one seed: no band
    one = frame[frame["seed"] != 2]
    fig = plots.robust_figure(one, info, colors, ["M0", "M2"], [40, 43, 46, 49])
    assert not [c for c in fig.axes[0].collections if str(c.get_gid()).startswith("a-spread")]
    plots.plt.close(fig)
    # naturalness comes from a classifier per system: the axis says the values are not comparable
    fig = plots.tradeoff_figure(frame, info, colors, "sti", "naturalness_nn", ["M0", "M2"])
    assert "not comparable" in fig.axes[0].get_ylabel() and "not comparable" not in fig.axes[0].get_xlabel()
    plots.plt.close(fig)


def test_leaderboard_plot_labels_every_system(score_files):
    """tradeoff_leaderboard: one labelled point per leaderboard row. Ours sit at their selected checkpoints
    (target 0.80 +- 0.02): M0 seed1 ep1.5 (dev Acc 0.79 -> test Acc 0.80, Sim 1 - 0.5 x 0.79 = 0.605), M0 seed2
    ep1.0 (dev 0.78 -> 0.79, Sim 0.61); the external systems at their EXTERNAL scores."""
    frame, info = load_scores(score_files)
    systems, _ = leaderboard.leaderboard_systems(frame, 0.80, 0.02)
    fig = plots.leaderboard_figure(systems, info, figure.variant_colors(["M0", "M2"]), "acc", "sim")
    ax = fig.axes[0]
    points = {c.get_gid(): [p for xy in c.get_offsets().tolist() for p in xy] for c in ax.collections}
    assert points["series-M0"] == pytest.approx([0.80, 0.605, 0.79, 0.61])  # (x, y) of seed 1, then seed 2
    assert points["kind-published"] == pytest.approx([0.75, 0.70, 0.50, 0.72])  # mit, multi_decoder
    assert points["kind-references"] == pytest.approx([0.80, 0.80])
    assert points["kind-untransferred"] == pytest.approx([0.02, 1.0])
    labels = sorted(t.get_text() for t in ax.texts)
    ours = [f"{v}.seed{s}" for v, s in DEV_ACC]
    assert labels == sorted([*ours, "mit", "multi_decoder", "reference", "source"])
    # no two labels overlap, and no label covers a point (the placement tries other offsets first)
    boxes = [t.get_window_extent(fig.canvas.get_renderer()) for t in ax.texts]
    assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1 :])
    xy = ax.transData.transform([p for c in ax.collections for p in c.get_offsets().tolist()])
    assert not any(b.contains(x, y) for b in boxes for x, y in xy)
    assert ax.get_xlabel().startswith("Acc ↑") and ax.get_ylabel().startswith("Sim ↑")
    plots.plt.close(fig)


def test_tradeoff_axes_fit_the_honest_systems_and_mark_off_scale_points(tmp_path):
    """The `empty` baseline far off (WMD 5) does not stretch the axes: they fit the honest systems (x: STI of
    source 0.00 to human 0.45; y: WMD of source 0.00 to mit 0.45) plus 15% of that range on each side, and
    `empty` is drawn on the top border, labelled with its true value."""
    metrics = {**EXTERNAL, "empty": {**EXTERNAL["source"], "sti": 0.0, "wmd_masked": 5.0}}
    paths = [write_score(tmp_path, s, "test", "final", m, variant=s) for s, m in metrics.items()]
    frame, info = load_scores(paths)
    fig = plots.tradeoff_figure(frame, info, {}, "sti", "wmd_masked")
    ax = fig.axes[0]
    pad = 0.15 * 0.45
    assert ax.get_xlim() == pytest.approx((-pad, 0.45 + pad)) and ax.get_ylim() == pytest.approx(
        (-pad, 0.45 + pad)
    )
    off = [t for t in ax.texts if t.get_gid() == "offscale-empty"]
    assert len(off) == 1 and off[0].get_text() == "empty (0.000, 5.000, off scale)"
    assert off[0].xy == pytest.approx((0.0, 0.45 + pad))
    labels = {t.get_text() for t in ax.texts}
    assert {"mit", "multi_decoder", "reference", "source"} <= labels and "empty" not in labels
    plots.plt.close(fig)
