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

from tst.report import build, plots, tables
from tst.report.scores import load_scores
from tst.report.select import select_checkpoints

EPOCHS = [0.5, 1.0, 1.5, 2.0]
# Dev Acc per half epoch. Target 0.80 +- 0.02:
#   M0 seed1 -> ep1.5 (0.79, off 0.01); M0 seed2 -> ep1.0 (0.78, off 0.02: tie-free, 0.83 is 0.03 off)
#   M2 seed1 -> ep2.0 (0.74, off 0.06: outside the tolerance -> dagger); M2 seed2 -> ep2.0 (0.81)
DEV_ACC = {("M0", 1): [0.60, 0.75, 0.79, 0.86], ("M0", 2): [0.65, 0.78, 0.83, 0.90],
           ("M2", 1): [0.50, 0.60, 0.70, 0.74], ("M2", 2): [0.55, 0.65, 0.72, 0.81]}
INFO = {"acc": ("style CNN, share of outputs classified as the target style", True),
        "transfer_strength": ("Fu et al. LSTM-sigmoid", True), "sim": ("idf-weighted GloVe cosine", True),
        "cp": ("Fu et al. pooled embeddings", True), "pp_joint": ("joint GRU LM corpus perplexity", False),
        "gm": ("eq. 1 default t", True), "sti": ("Mir EMD", True), "wmd_masked": ("WMD style-masked", False),
        "naturalness_nn": ("Mir neural", True), "bleu_ref_corpus": ("corpus BLEU multi-bleu.perl", True)}


def ours_metrics(a: float, split: str) -> dict:
    """Metrics of a checkpoint as functions of its dev Acc `a` (test Acc = dev Acc + 0.01)."""
    acc = a + (0.01 if split == "test" else 0.0)
    return {"acc": acc, "transfer_strength": acc - 0.05, "sim": 1 - 0.5 * a, "cp": 0.95 - 0.1 * a,
            "pp_joint": 30 + 20 * a, "gm": 10 * a, "sti": 0.5 * a, "wmd_masked": 0.2 + 0.3 * a,
            "naturalness_nn": 0.9 - 0.4 * a, "bleu_ref_corpus": 30 - 20 * a}


EXTERNAL = {  # test-set scores of external systems
    "mit": {"acc": 0.75, "transfer_strength": 0.70, "sim": 0.70, "cp": 0.88, "pp_joint": 45.0, "gm": 8.0,
            "sti": 0.40, "wmd_masked": 0.45, "naturalness_nn": 0.5, "bleu_ref_corpus": 7.5},
    "multi_decoder": {"acc": 0.50, "transfer_strength": 0.45, "sim": 0.72, "cp": 0.90, "pp_joint": 60.0,
                      "gm": 6.0, "sti": 0.30, "wmd_masked": 0.40, "naturalness_nn": 0.6, "bleu_ref_corpus": 7.6},
    "human": {"acc": 0.80, "transfer_strength": 0.78, "sim": 0.80, "cp": 0.91, "pp_joint": 35.0, "gm": 15.0,
              "sti": 0.45, "wmd_masked": 0.30, "naturalness_nn": 0.8, "bleu_ref_corpus": 100.0},
    "source": {"acc": 0.02, "transfer_strength": 0.03, "sim": 1.00, "cp": 1.00, "pp_joint": 33.0, "gm": 1.0,
               "sti": 0.00, "wmd_masked": 0.00, "naturalness_nn": 0.9, "bleu_ref_corpus": 31.4},
}


def write_score(root: Path, system: str, split: str, checkpoint: str, metrics: dict, variant=None, seed=None,
                epoch=None) -> Path:
    rec = {"dataset": "toy", "system": system, "variant": variant, "seed": seed, "checkpoint": checkpoint,
           "epoch": epoch, "split": split, "n_sentences": 100,
           "metrics": {k: {"score": v, "variant": INFO[k][0], "higher_is_better": INFO[k][1]}
                       for k, v in metrics.items()},
           "evaluators": {"style_cnn.pt": "0" * 64}}
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
                paths.append(write_score(tmp_path / "scores", f"{v}.seed{seed}", split, f"ep{ep}",
                                         ours_metrics(a, split), v, seed, ep))
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
    assert got == {("M0", 1): ("ep1.5", True), ("M0", 2): ("ep1.0", True),
                   ("M2", 1): ("ep2.0", False), ("M2", 2): ("ep2.0", True)}


def test_select_tie_takes_earliest(tmp_path):
    # dev Acc 0.25 and 0.75 (exact in binary) are both 0.25 from the target 0.5 -> the earlier, ep0.5
    paths = [write_score(tmp_path, "MT.seed3", "dev", f"ep{ep}", {"acc": a}, "MT", 3, ep)
             for ep, a in ((1.0, 0.75), (0.5, 0.25), (1.5, 0.95))]
    frame, _ = load_scores(paths)
    sel = select_checkpoints(frame, 0.5, 0.25)
    assert sel.to_dict("records") == [{"variant": "MT", "seed": 3, "system": "MT.seed3", "checkpoint": "ep0.5",
                                       "epoch": 0.5, "dev_acc": 0.25, "distance": 0.25, "within": True}]


def test_tables(score_files, tmp_path):
    corr = tmp_path / "correlation.csv"
    corr.write_text("metric,aspect,level,n,spearman,spearman_p,pearson,kendall\n"
                    "sim,topic,sentence,150,0.79,1.2e-30,0.75,0.61\npp_joint,grammaticality,system,8,-0.81,0.015,-0.7,-0.64\n")
    agg = tmp_path / "aggregate.json"
    agg.write_text(json.dumps({"columns": {"acc": "acc"}, "pairs": {"train": 200, "held_out": 50},
                               "default_t": {"t": [63, 71, 97, -37], "agreement": {"train": 0.8, "held_out": 0.86}},
                               "learned_t": {"t": [60.5, 70, 90, -30], "agreement": 0.875},
                               "mlp": {"hidden": 8, "state_dict": {"w": [[1.0]]},
                                       # as tst.metrics.aggregate writes it: counts beside each share
                                       "agreement": {"train": {"n": 200, "agreement": 0.9, "ties": 0},
                                                     "held_out": {"n": 50, "agreement": 0.84, "ties": 0}}}}))
    out = tmp_path / "tables"
    paths = build.build_tables(score_files, out, {"target_acc": 0.80, "tolerance": 0.02}, ["M0", "M2"],
                               corr, agg)
    assert sorted(p.name for p in paths) == sorted(f"{n}.{e}" for n in build.TABLES for e in ("csv", "md", "tex"))

    # Tables 2/3: test scores of the selected checkpoints, mean ± sd over the two seeds.
    pg = read_csv(out / "pang_gimpel.csv")
    assert [r["Model"] for r in pg] == ["M0", "M2 †"]
    m0, m2 = pg
    assert list(m0)[1] == "Acc ↑ [style CNN, share of outputs classified as the target style]"
    assert [k.split(" ")[0] for k in list(m0)[1:5]] == ["Acc", "Sim", "PP", "GM"]
    assert list(m0)[3].startswith("PP ↓")
    # M0: dev Acc 0.79 (seed1) and 0.78 (seed2) -> test Acc 0.80, 0.79: mean 0.795, sd 0.00707
    mean, sd = num(col(m0, "Acc ↑"))
    assert mean == pytest.approx(0.795, abs=6e-4) and sd == pytest.approx(0.007, abs=6e-4)
    # Sim = 1 - 0.5 a: 0.605, 0.610 -> 0.6075 ± 0.0035; PP = 30 + 20 a: 45.8, 45.6 -> 45.7 ± 0.14
    mean, sd = num(col(m0, "Sim ↑"))
    assert mean == pytest.approx(0.6075, abs=6e-4) and sd == pytest.approx(0.0035, abs=6e-4)
    mean, sd = num(col(m0, "PP ↓"))
    assert mean == pytest.approx(45.7, abs=0.06) and sd == pytest.approx(0.1, abs=0.06)
    # GM = 10 a: 7.9, 7.8 -> 7.85 ± 0.0707
    mean, sd = num(col(m0, "GM ↑"))
    assert mean == pytest.approx(7.85, abs=0.006) and sd == pytest.approx(0.07, abs=0.006)
    # M2: both seeds at ep2.0 (dev 0.74, 0.81) -> test Acc 0.75, 0.82: 0.785 ± 0.0495
    mean, sd = num(col(m2, "Acc ↑"))
    assert mean == pytest.approx(0.785, abs=6e-4) and sd == pytest.approx(0.049, abs=1.1e-3)
    assert m0["checkpoint (dev Acc)"] == "ep1.5 (0.790), ep1.0 (0.780)"
    assert "STI ↑ [Mir EMD]" in m0 and "WMD-masked ↓ [WMD style-masked]" in m0
    assert "†" in (out / "pang_gimpel.md").read_text()
    tex = (out / "pang_gimpel.tex").read_text()
    assert r"\begin{tabular}{l" + "r" * (len(m0) - 1) + "}" in tex and r"$\uparrow$" in tex
    assert r"0.795 $\pm$ 0.007" in tex

    # Table 6: externals (published, human, untransferred) then each model at the dev checkpoints closest
    # to Acc 0.80 / 0.85 / 0.90: M0 s1 {ep1.5, ep2.0}, M0 s2 {ep1.0, ep1.5, ep2.0}, M2 s1 {ep2.0}, M2 s2 {ep2.0}
    t6 = read_csv(out / "bleu_ref.csv")
    assert [(r["Model"], r["checkpoint"]) for r in t6] == [
        ("mit", "final"), ("multi_decoder", "final"), ("human", "final"), ("untransferred", "final"),
        ("M0 (seed 1)", "ep1.5"), ("M0 (seed 1)", "ep2.0"), ("M0 (seed 2)", "ep1.0"), ("M0 (seed 2)", "ep1.5"),
        ("M0 (seed 2)", "ep2.0"), ("M2 (seed 1)", "ep2.0"), ("M2 (seed 2)", "ep2.0")]
    bleu_h = "ref-BLEU ↑ [corpus BLEU multi-bleu.perl]"
    assert bleu_h in t6[0]
    # untransferred 31.4; M0 seed1 ep1.5: BLEU 30 - 20 * 0.79 = 14.2, test Acc 0.80
    assert t6[3][bleu_h] == "31.4"
    assert t6[4][bleu_h] == "14.2" and col(t6[4], "Acc ↑") == "0.800" and t6[4]["dev Acc"] == "0.790"

    # Yu Table 2 shape: 4 external systems + 2 variants, every metric a column.
    sbs = read_csv(out / "metrics_all.csv")
    assert [r["System"] for r in sbs] == ["mit", "multi_decoder", "human", "untransferred", "M0", "M2 †"]
    assert len(sbs[0]) == 1 + len(INFO)
    assert col(sbs[1], "PP ↓") == "60.0" and col(sbs[3], "Sim ↑") == "1.000"
    assert num(col(sbs[4], "Acc ↑"))[0] == pytest.approx(0.795, abs=6e-4)

    hv = read_csv(out / "metric_vs_human.csv")
    assert [r["metric"].split(" ")[0] for r in hv] == ["Sim", "PP"]
    assert hv[1]["Spearman ρ (metric vs rating)"] == "-0.810" and hv[0]["n"] == "150"
    assert [r["Spearman ρ p-value"] for r in hv] == ["1.2e-30", "0.015"]
    ag = read_csv(out / "aggregation.csv")
    assert [r["agreement held-out ↑"] for r in ag] == ["0.860", "0.875", "0.840"]
    assert [r["agreement train ↑"] for r in ag] == ["0.800", "", "0.900"]
    assert ag[0]["parameters"] == "t=(63, 71, 97, -37)" and ag[2]["parameters"] == "hidden=8"
    assert "200 training and 50 held-out" in (out / "aggregation.md").read_text()


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


def test_plots(score_files, tmp_path):
    out = tmp_path / "plots"
    paths = build.build_plots(score_files, out, {"pp_bins": [40, 43, 46, 49]}, ["M0", "M2"])
    assert sorted(p.name for p in paths) == sorted(f"{n}.{e}" for n in build.PLOTS for e in ("png", "svg"))
    for p in paths:
        if p.suffix == ".png":
            w, h = png_size(p)
            assert w > 300 and h > 200
    series = {n: [i for i in svg_ids(out / f"{n}.svg") if "series-" in i or i == "external"] for n in build.PLOTS}
    assert sorted(series["trajectories"]) == ["a-series-M0", "a-series-M2", "b-series-M0", "b-series-M2"]
    assert sorted(series["robust"]) == ["a-series-M0", "a-series-M2", "b-series-M0", "b-series-M2"]
    for n in ("tradeoff_ts_cp", "tradeoff_sti_wmd", "tradeoff_nat_sti"):
        assert sorted(series[n]) == ["external", "series-M0", "series-M2"]


def test_plot_values(score_files):
    frame, info = load_scores(score_files)
    colors = plots.variant_colors(["M0", "M2"])
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
    mean, sd, n = plots.robust_curves(frame, info, edges, "M0", "pp_joint", "acc")
    assert mean == pytest.approx([0.60, 0.785, 0.88]) and sd == pytest.approx([0.0, 0.005, 0.02])
    assert list(n) == [1, 2, 2]
    # best Sim (1 - 0.5 a) is at the lowest Acc of each bin: seed1 0.70, 0.625, 0.57; seed2 -, 0.675, 0.585
    mean, _, _ = plots.robust_curves(frame, info, edges, "M0", "pp_joint", "sim")
    assert mean == pytest.approx([0.70, 0.65, 0.5775])
    # PP is lower-is-better: its "best" per bin is the minimum (M2 seed1 PP 40, 42 in bin 0 -> 40)
    m2, _, _ = plots.robust_curves(frame, info, edges, "M2", "pp_joint", "pp_joint")
    assert m2[0] == pytest.approx((40.0 + 41.0) / 2)


def test_external_only_dataset_degrades(tmp_path):
    """No trained models and no STI: the external tables and trade-off plots are still built. The files
    name the system as `variant` (as tst.score writes them); a null seed marks them external."""
    paths = []
    for system, m in EXTERNAL.items():
        m = {k: v for k, v in m.items() if k not in ("sti",)}
        paths.append(write_score(tmp_path / "scores", system, "test", "final", m, variant=system))
    tabs = build.build_tables(paths, tmp_path / "tables")
    figs = build.build_plots(paths, tmp_path / "plots")
    assert len(tabs) == 3 * len(build.TABLES) and len(figs) == 2 * len(build.PLOTS)
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


def test_write_table_escapes(tmp_path):
    t = tables.Table("x_y", "a & b_c", ["Model", "PP ↓ [50% LM]"], [["M|1", "1.0 ± 0.1"]], ["note"])
    csv_p, md_p, tex_p = tables.write_table(t, tmp_path)
    assert read_csv(csv_p) == [{"Model": "M|1", "PP ↓ [50% LM]": "1.0 ± 0.1"}]
    assert "| M\\|1 | 1.0 ± 0.1 |" in md_p.read_text()
    tex = tex_p.read_text()
    assert r"PP $\downarrow$ [50\% LM]" in tex and r"1.0 $\pm$ 0.1 \\" in tex
    assert r"\caption{a \& b\_c note}" in tex and r"\label{tab:x-y}" in tex


def test_gm_recomputed_from_stored_scores(tmp_path):
    """load_scores(gm_t): GM from each file's corpus Acc, Sim, PP (Pang & Gimpel Table 2 M0: 0.818, 0.719,
    37.3 -> 10.0), not the stored value; a file without PP gets none. Without gm_t the stored GM stays."""
    from tst.metrics.gm import DEFAULT_T

    paths = [write_score(tmp_path, "M0.seed1", "test", "ep1.0", {"acc": 0.818, "sim": 0.719, "pp_joint": 37.3,
                                                                 "gm": 99.0}, "M0", 1, 1.0),
             write_score(tmp_path, "mit", "test", "final", {"acc": 0.8, "sim": 0.8, "gm": 5.0})]
    frame, _ = load_scores(paths)
    assert frame["gm"].tolist() == [99.0, 5.0]
    frame, info = load_scores(paths, DEFAULT_T)
    assert round(frame["gm"][0], 1) == 10.0 and np.isnan(frame["gm"][1])
    assert info["gm"].variant.endswith("t=[63.0, 71.0, 97.0, -37.0]")


def test_build_tables_and_plots_pass_gm_t(score_files, tmp_path):
    out = tmp_path / "tables"
    build.build_tables(score_files, out, {"target_acc": 0.80, "tolerance": 0.02}, ["M0", "M2"], gm_t=(63, 50, 97, -37))
    m0 = read_csv(out / "pang_gimpel.csv")[0]
    # M0 test rows: seed1 Acc 0.80, Sim 0.605, PP 45.8; seed2 Acc 0.79, Sim 0.61, PP 45.6 (see test_tables);
    # eq. 1 with t = (63, 50, 97, -37): (17 * 10.5 * 51.2)^(1/3) and (16 * 11 * 51.4)^(1/3), not the stored 10 a
    gms = [(17 * 10.5 * 51.2) ** (1 / 3), (16 * 11 * 51.4) ** (1 / 3)]
    mean, sd = num(col(m0, "GM ↑"))
    assert mean == pytest.approx(np.mean(gms), abs=0.006) and sd == pytest.approx(np.std(gms, ddof=1), abs=0.006)
    assert "t=[63.0, 50.0, 97.0, -37.0]" in list(m0)[4]
    paths = build.build_plots(score_files, tmp_path / "plots", {"pp_bins": [40, 43, 46, 49]}, ["M0", "M2"],
                              gm_t=(63, 50, 97, -37))
    assert len(paths) == 2 * len(build.PLOTS)
