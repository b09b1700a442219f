"""The tables on the synthetic score files of test_report_build (M0, M2 x seeds 1, 2; dev Acc per half epoch in
DEV_ACC; test Acc = dev Acc + 0.01, Sim = 1 - 0.5 a, PP = 30 + 20 a, GM = 10 a, ref-BLEU = 30 - 20 a with a the
dev Acc): every expected number is worked out by hand in the comments."""

from __future__ import annotations

import base64
import json
import re
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest
from test_build import score_files  # noqa: F401 (fixture)

from tst.report import build, table_writer, tables

SQRT2 = np.sqrt(2)


@pytest.fixture()
def built(score_files, tmp_path):  # noqa: F811
    corr = tmp_path / "correlation.csv"
    corr.write_text(
        "metric,aspect,level,n,spearman,spearman_p,pearson,kendall\n"
        "sim,topic,sentence,150,0.79,1.2e-30,0.75,0.61\npp_joint,grammaticality,system,8,-0.81,0.015,-0.7,-0.64\n"
    )
    agg = tmp_path / "aggregate.json"
    agg.write_text(
        json.dumps(
            {
                "columns": {"acc": "acc"},
                "pairs": {"train": 200, "held_out": 50},
                "default_t": {"t": [63, 71, 97, -37], "agreement": {"train": 0.8, "held_out": 0.86}},
                "learned_t": {"t": [60.5, 70, 90, -30], "agreement": 0.875},
                "mlp": {
                    "hidden": 8,
                    "state_dict": {"w": [[1.0]]},
                    "agreement": {
                        "train": {"n": 200, "agreement": 0.9, "ties": 0},
                        "held_out": {"n": 50, "agreement": 0.84, "ties": 0},
                    },
                },
            }
        )
    )
    out = tmp_path / "tables"
    paths = build.build_tables(
        score_files, out, {"target_acc": 0.80, "tolerance": 0.02}, ["M0", "M2"], corr, agg
    )
    assert sorted(p.name for p in paths) == sorted(
        f"{n}.{e}" for n in build.TABLES for e in build.TABLE_FORMATS
    )
    return out


def kinds(frame: pd.DataFrame) -> dict[str, str]:
    """Column -> str / float / int / bool, as pandas.read_csv typed it (text is object or str by version)."""
    t = pd.api.types
    return {
        c: "bool"
        if t.is_bool_dtype(d)
        else "int"
        if t.is_integer_dtype(d)
        else "float"
        if t.is_float_dtype(d)
        else "str"
        if t.is_string_dtype(d) or d == object
        else str(d)
        for c, d in frame.dtypes.items()
    }


def md_header(path) -> list[str]:
    line = next(ln for ln in path.read_text().splitlines() if ln.startswith("| "))
    return [c.strip() for c in line.strip("|").split(" | ")]


def test_pang_gimpel_shape_and_values(built):
    assert md_header(built / "pang_gimpel.md") == [
        "Model",
        "Acc ↑",
        "Sim ↑",
        "PP ↓",
        "GM ↑",
        "seeds",
        "checkpoint",
    ]
    pg = pd.read_csv(built / "pang_gimpel.csv")
    assert list(pg.columns) == [
        "model",
        "acc",
        "acc_sd",
        "sim",
        "sim_sd",
        "pp_joint",
        "pp_joint_sd",
        "gm",
        "gm_sd",
        "seeds",
        "checkpoint",
        "dev_acc",
        "off_target",
        "before_cycle",
    ]
    assert kinds(pg) == {
        "model": "str",
        "acc": "float",
        "acc_sd": "float",
        "sim": "float",
        "sim_sd": "float",
        "pp_joint": "float",
        "pp_joint_sd": "float",
        "gm": "float",
        "gm_sd": "float",
        "seeds": "int",
        "checkpoint": "str",
        "dev_acc": "float",
        "off_target": "bool",
        "before_cycle": "bool",
    }
    m0, m2 = pg.to_dict("records")
    # M0: seed1 ep1.5 (dev 0.79), seed2 ep1.0 (dev 0.78) -> test Acc 0.80, 0.79: mean 0.795, sd 0.01 / sqrt 2
    assert (m0["model"], m0["seeds"], m0["checkpoint"], m0["off_target"]) == ("M0", 2, "ep1.5;ep1.0", False)
    assert m0["acc"] == pytest.approx(0.795) and m0["acc_sd"] == pytest.approx(0.01 / SQRT2)
    assert m0["dev_acc"] == pytest.approx(0.785)
    # Sim 0.605, 0.610; PP 45.8, 45.6; GM 7.9, 7.8
    assert m0["sim"] == pytest.approx(0.6075) and m0["sim_sd"] == pytest.approx(0.005 / SQRT2)
    assert m0["pp_joint"] == pytest.approx(45.7) and m0["pp_joint_sd"] == pytest.approx(0.2 / SQRT2)
    assert m0["gm"] == pytest.approx(7.85) and m0["gm_sd"] == pytest.approx(0.1 / SQRT2)
    # M2: both seeds at ep2.0 (dev 0.74 is 0.06 off the target: flagged) -> test Acc 0.75, 0.82
    assert (m2["model"], m2["checkpoint"], m2["off_target"]) == ("M2", "ep2.0;ep2.0", True)
    assert m2["acc"] == pytest.approx(0.785) and m2["acc_sd"] == pytest.approx(0.07 / SQRT2)
    md = (built / "pang_gimpel.md").read_text()
    # display: 3 decimals for Acc (0.795 ± 0.007), PP 1 decimal (45.7 ± 0.1), dagger on the display only;
    # Sim 0.6075 is 0.60749... in binary floating point and prints as 0.607
    assert (
        "| M0 | 0.795 ± 0.007 | 0.607 ± 0.004 | 45.7 ± 0.1 | 7.85 ± 0.07 | 2 | ep1.5 (0.790), ep1.0 (0.780) |"
        in md
    )
    assert "| M2 † |" in md and "- Acc ↑: style CNN, share of outputs classified as the target style" in md
    assert "STI" not in md  # every other metric is in metrics_all


@pytest.mark.parametrize("until, marked", [(2.0, True), (1.5, False)])
def test_rows_inside_the_cycle_warm_up_are_marked(score_files, tmp_path, until, marked):  # noqa: F811
    # M2 selects ep2.0 for both seeds (as above): inside a warm-up that keeps lambda_cyc 0 up to epoch 2.0, past
    # one that ends at 1.5. M0 has no cyclic term (not in warmups) and is never marked.
    frame, info = build.load_scores(score_files)
    warmups = {"M2": until}
    pg = tables.pang_gimpel_table(frame, info, 0.80, 0.02, ["M0", "M2"], warmups=warmups)
    assert pg.data["before_cycle"].tolist() == [False, marked]
    assert [r[0] for r in pg.rows] == ["M0", "M2 †" + (" ‡" if marked else "")]
    note = [n for n in pg.notes if n.startswith("‡")]
    expected = (
        f"‡ at least one seed's selected checkpoint lies in the λ_cyc warm-up (M2 ≤ ep{until:g}; ours, "
        "transfer.cyc_start), where λ_cyc is still 0: that model has not yet been trained with the cyclic "
        "loss (eq. 4), so the row is its variant without eq. 4 (for M2: M0, same seed)."
    )
    assert note == ([expected] if marked else [])
    sbs = tables.side_by_side_table(frame, info, 0.80, 0.02, ["M0", "M2"], warmups=warmups)
    assert sbs.columns[-1] == "M2 †" + (" ‡" if marked else "") and sbs.columns[-2] == "M0"
    # Table 6 at target 0.80: the same selection (M2 at ep2.0 for both seeds)
    bleu = tables.bleu_ref_table(frame, info, [0.80], 0.02, ["M0", "M2"], warmups=warmups)
    ours = bleu.data[bleu.data["kind"] == "ours"]
    assert ours["before_cycle"].tolist() == [False, marked]


def test_bleu_ref_rows(built):
    t6 = pd.read_csv(built / "bleu_ref.csv")
    # human (BLEU 100 against itself) is not a row; each model x target Acc 0.80 / 0.85 / 0.90 is
    assert list(zip(t6["model"], t6["target_acc"].fillna(0))) == [
        ("mit", 0),
        ("multi_decoder", 0),
        ("source", 0),
        ("M0", 0.80),
        ("M0", 0.85),
        ("M0", 0.90),
        ("M2", 0.80),
        ("M2", 0.85),
        ("M2", 0.90),
    ]
    assert t6["kind"].tolist() == ["published"] * 2 + ["untransferred"] + ["ours"] * 6
    k = kinds(t6)
    assert (k["target_acc"], k["seeds"], k["off_target"], k["bleu_ref_corpus"], k["model"]) == (
        "float",
        "int",
        "bool",
        "float",
        "str",
    )
    assert 100.0 not in t6["bleu_ref_corpus"].tolist()
    m0 = t6[t6["model"] == "M0"].to_dict("records")
    # 0.85: seed1 ep2.0 (dev 0.86), seed2 ep1.5 (dev 0.83) -> BLEU 30 - 20 a = 12.8, 13.4
    assert m0[1]["checkpoint"] == "ep2.0;ep1.5" and m0[1]["bleu_ref_corpus"] == pytest.approx(13.1)
    assert m0[1]["bleu_ref_corpus_sd"] == pytest.approx(0.6 / SQRT2) and not m0[1]["off_target"]
    # 0.80: BLEU 14.2, 14.4; 0.90: seed1 ep2.0 (0.86, 0.04 off: flagged), seed2 ep2.0 (0.90) -> 12.8, 12.0
    assert m0[0]["bleu_ref_corpus"] == pytest.approx(14.3) and m0[2]["bleu_ref_corpus"] == pytest.approx(12.4)
    assert [r["off_target"] for r in m0] == [False, False, True]
    md = (built / "bleu_ref.md").read_text()
    assert md_header(built / "bleu_ref.md") == [
        "Model",
        "target Acc",
        "checkpoint (dev Acc)",
        "seeds",
        "ref-BLEU ↑",
        "Acc ↑",
    ]
    assert "| M0 | 0.85 | ep2.0 (0.860), ep1.5 (0.830) | 2 | 13.1 ± 0.4 | 0.855 ± 0.021 |" in md
    assert "Not a row: human" in md


def test_metrics_all_and_human_tables(built):
    sbs = pd.read_csv(built / "metrics_all.csv")
    assert sbs["system"].tolist() == ["reference", "mit", "multi_decoder", "source", "M0", "M2"]
    assert sbs["seeds"].tolist() == [0, 0, 0, 0, 2, 2] and sbs["off_target"].tolist() == [False] * 5 + [True]
    assert kinds(sbs)["pp_joint"] == "float" and sbs.loc[2, "pp_joint"] == 60.0
    assert sbs.loc[4, "acc"] == pytest.approx(0.795) and sbs.loc[4, "acc_sd"] == pytest.approx(0.01 / SQRT2)
    # displayed transposed: a row per metric (10) and the checkpoint row
    header = md_header(built / "metrics_all.md")
    assert header == ["Metric", "reference", "mit", "multi_decoder", "source", "M0", "M2 †"]
    assert (
        len([ln for ln in (built / "metrics_all.md").read_text().splitlines() if ln.startswith("| ")])
        == 1 + 11
    )
    hv = pd.read_csv(built / "metric_vs_human.csv")
    assert hv["metric"].tolist() == ["sim", "pp_joint"] and kinds(hv)["n"] == "int"
    assert hv["spearman"].tolist() == [0.79, -0.81]
    ag = pd.read_csv(built / "aggregation.csv")
    assert ag["form"].tolist() == ["default_t", "learned_t", "mlp"]
    assert ag["agreement_held_out"].tolist() == [0.86, 0.875, 0.84]
    assert ag["agreement_train"].tolist()[::2] == [0.8, 0.9] and np.isnan(ag["agreement_train"][1])


def test_empty_table_says_why_in_one_line(tmp_path):
    t = tables.human_correlation_table(None, {})
    csv_p, md_p, tex_p, html_p = table_writer.write_table(t, tmp_path)
    assert md_p.read_text().count("\n") == 1 and "No human ratings" in md_p.read_text()
    assert pd.read_csv(csv_p).empty and tex_p.read_text().startswith("% ")
    assert "No human ratings" in html_p.read_text()


def test_write_table_escapes(tmp_path):
    t = table_writer.Table(
        "x_y",
        "a & b_c",
        pd.DataFrame({"model": ["M|1"], "pp": [1.0]}),
        ["Model", "PP ↓ [50% LM]"],
        [["M|1", "1.0 ± 0.1"]],
        ["note"],
    )
    csv_p, md_p, tex_p, html_p = table_writer.write_table(t, tmp_path)
    assert csv_p.read_text() == "model,pp\nM|1,1.0\n"
    assert "| M\\|1 | 1.0 ± 0.1 |" in md_p.read_text()
    tex = tex_p.read_text()
    assert r"PP $\downarrow$ [50\% LM]" in tex and r"1.0 $\pm$ 0.1 \\" in tex
    assert r"\caption{a \& b\_c}" in tex and r"\label{tab:x-y}" in tex and "note\\par" in tex
    assert "<td>M|1</td>" in html_p.read_text() and "a &amp; b_c" in html_p.read_text()


def test_html_links_the_other_formats(tmp_path):
    """The html (the report shows only it) downloads the csv, md and tex as written beside it: each link's data
    URI decodes to that file's bytes, under the file's name."""
    t = table_writer.Table(
        "x_y", "cap", pd.DataFrame({"model": ["M0"], "pp": [1.5]}), ["Model", "PP ↓"], [["M0", "1.5"]]
    )
    paths = {p.suffix: p for p in table_writer.write_table(t, tmp_path)}
    page = paths[".html"].read_text()
    links = dict(re.findall(r'<a download="([^"]+)" href="data:[^;]+;charset=utf-8;base64,([^"]+)"', page))
    assert sorted(links) == ["x_y.csv", "x_y.md", "x_y.tex"]
    for name, data in links.items():
        assert base64.b64decode(data) == (tmp_path / name).read_bytes()
    assert "class=sortable" not in page and "Click a column header" not in page  # only sortable tables say so


def tex_rows(tex: str) -> list[str]:
    body = tex[tex.index(r"\midrule") + len(r"\midrule") : tex.index(r"\bottomrule")]
    return [r for r in body.strip().split("\n") if r]


def test_latex_parses(built):
    """booktabs rules in order, every row with as many cells as the column spec, balanced braces, ASCII only."""
    for name in build.TABLES:
        tex = (built / f"{name}.tex").read_text()
        assert tex.isascii(), name
        if tex.startswith("% "):  # a table with no rows is one comment line (the validity tables here)
            continue
        spec = (
            re.search(r"\\begin\{tabular\}\{(l r*)\}", tex.replace("{l", "{l ", 1)).group(1).replace(" ", "")
        )
        assert tex.index(r"\toprule") < tex.index(r"\midrule") < tex.index(r"\bottomrule")
        header = tex[tex.index(r"\toprule") + 8 : tex.index(r"\midrule")].strip()
        for row in [header, *tex_rows(tex)]:
            assert row.endswith(r"\\") and len(re.split(r"(?<!\\)&", row)) == len(spec), (name, row)
        assert tex.count("{") - tex.count(r"\{") == tex.count("}") - tex.count(r"\}"), name


@pytest.mark.skipif(
    shutil.which("pdflatex") is None, reason="no pdflatex (apt-get install texlive-latex-recommended)"
)
def test_latex_compiles(built, tmp_path):
    doc = tmp_path / "doc.tex"
    inputs = "\n".join(f"\\input{{{built / name}.tex}}\\clearpage" for name in build.TABLES)
    doc.write_text(
        "\\documentclass{article}\n\\usepackage{booktabs}\n\\usepackage[margin=1cm,landscape]{geometry}\n"
        f"\\begin{{document}}\n{inputs}\n\\end{{document}}\n"
    )
    run = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", doc.name],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stdout[-2000:]
    assert (tmp_path / "doc.pdf").read_bytes()[:4] == b"%PDF"


def test_coverage_counts_reach_metrics_all(tmp_path):
    """The counts that change a mean, written by hand into score files, are rows of metrics_all (display) and
    columns of its CSV; ours: the mean over the selected seeds."""
    from test_build import write_score

    def with_counts(path, **counts):
        rec = json.loads(path.read_text())
        path.write_text(json.dumps({**rec, **counts}))
        return path

    paths = [
        with_counts(
            write_score(tmp_path, "mit", "test", "final", {"acc": 0.8}),
            n_empty=3,
            n_no_usable_words={"sim": 1, "cp": 4},
            units={"style_cnn.pt": {"n_unk": 7}, "lm_joint.pt": {"n_unk": 2}},
            n_with_reference=50,
            control_lines={"a.0.txt": 1, "a.1.txt": 2},
        ),
        with_counts(write_score(tmp_path, "source", "test", "final", {"acc": 0.1}), n_empty=0),
    ]
    for seed, empty in ((1, 1), (2, 4)):
        for split in ("dev", "test"):
            paths.append(
                with_counts(
                    write_score(tmp_path, f"M0.seed{seed}", split, "ep1.0", {"acc": 0.8}, "M0", seed, 1.0),
                    n_empty=empty,
                )
            )
    frame, info = build.load_scores(paths)
    t = tables.side_by_side_table(frame, info, 0.80, 0.02, ["M0"])
    rows = {r[0]: r[1:] for r in t.rows}
    assert t.columns == ["Metric", "mit", "source", "M0"]
    assert rows["empty outputs"] == ["3", "0", "2.5"]  # M0: (1 + 4) / 2
    assert rows["no usable word (most of any metric)"] == ["4", "", ""]
    assert rows["<unk> tokens (most of any classifier/LM)"] == ["7", "", ""]
    assert rows["control-character lines (read as empty)"] == ["3", "", ""]
    assert rows["outputs with a reference"] == ["50", "", ""]
    assert "truncated lines" not in rows  # no file counts them
    assert t.data["n_empty"].tolist() == [3, 0, 2.5] and t.data["n_with_reference"].tolist()[0] == 50
    assert any(n.startswith("Coverage rows") for n in t.notes)
