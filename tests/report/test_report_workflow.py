"""rules/report.smk end to end on score files written by the test: every table and plot, then the
HTML report (snakemake --report) with each of them as a captioned item, opened in Chromium as a reader would
(test_report_in_browser; skipped without Chromium or Playwright)."""

from __future__ import annotations

import csv
import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch
import yaml
from conftest import once_per_session
from test_build import DEV_ACC, EPOCHS, EXTERNAL, ours_metrics, write_score

from tst import names
from tst.report import build

REPO = Path(__file__).resolve().parents[2]


def toy_config() -> dict:
    """The repository config with one dataset `toy` whose scores the test writes: M0, M2 x seeds 1, 2,
    2 epochs, external systems mit / multi_decoder / human, human ratings."""
    cfg = yaml.safe_load((REPO / "config.yaml").read_text())
    toy = cfg["datasets"].pop("demo")
    systems = {s: {"file": f"{s}.{{style}}"} for s in EXTERNAL if s != "source"}  # source: every dataset's
    toy.update(systems=systems, human_ratings="toy/ratings.csv")
    cfg["datasets"] = {"toy": toy}
    cfg["run"] = ["toy"]
    cfg["transfer"].update(run_variants=["M0", "M2"], seeds=[1, 2], epochs=2)
    cfg["report"].update(target_acc=0.8, tolerance=0.02, pp_bins=[40, 43, 46, 49])
    cfg["baselines"] = {"run": []}  # no baseline scores here: no calibrated GM (the copy, source, is scored)
    return cfg


def write_tsv(json_path: Path) -> None:
    """The per-sentence TSV beside a test score file of test_report_build (100 sentences, 50 per source
    style; the leaderboard resamples it): Acc right on the first 100 x Acc sentences, every other mean
    metric its score on every sentence, PP one word per sentence at NLL ln PP (the `key:stat` columns)."""
    rec = json.loads(json_path.read_text())
    m = {k: v["score"] for k, v in rec["metrics"].items() if k not in ("gm", "bleu_ref_corpus")}
    pp = m.pop("pp_joint")
    right = round(100 * m["acc"])
    head = [
        "i",
        "source_style",
        *m,
        "pp_joint:nll_sum",
        "pp_joint:n_tokens",
        "pp_joint:empty",
        "pp_joint:max_nll",
    ]
    rows = ["\t".join(head)]
    for i in range(100):
        cells = [float(i < right) if k == "acc" else v for k, v in m.items()]
        rows.append("\t".join(map(repr, [i, int(i >= 50), *cells, math.log(pp), 1, 0, math.log(pp)])))
    json_path.with_suffix(".tsv").write_text("\n".join(rows) + "\n")


@pytest.fixture(scope="session")
def toy_report(tmp_path_factory):
    """The toy dataset's score files, the report rules run on them, then `snakemake --report report.html`:
    (the folder, the targets' run, the report run: each its returncode, stdout and stderr; None when not run).
    Made once for the session, by whichever pytest-xdist worker asks first (once_per_session)."""
    folder, (rules, page) = once_per_session(tmp_path_factory, "toy_report", make_toy_report)
    return folder, *(None if r is None else SimpleNamespace(**r) for r in (rules, page))


def make_toy_report(tmp_path: Path) -> list:
    scores = tmp_path / "results" / "toy" / "scores"
    for (v, seed), accs in DEV_ACC.items():
        for ep, a in zip(EPOCHS, accs):
            for split in ("dev", "test"):
                path = write_score(
                    scores, f"{v}.seed{seed}", split, f"ep{ep}", ours_metrics(a, split), v, seed, ep
                )
                if split == "test":
                    write_tsv(path)
    for system, m in EXTERNAL.items():
        write_tsv(write_score(scores, system, "test", "final", m))
    human = tmp_path / "results" / "toy" / "human"
    human.mkdir()
    (human / "correlation.csv").write_text("metric,aspect,level,n,spearman\nsim,topic,sentence,150,0.79\n")
    rated = [
        "system\tgrammaticality\tsentiment\ttopic",
        "mit\t3\t3\t3",
        "multi_decoder\t2\t2\t2",
        "human\t5\t5\t5",
    ]
    (human / "ratings_with_metrics.tsv").write_text("\n".join(rated) + "\n")
    (human / "aggregate.json").write_text(
        json.dumps({"default_t": {"t": [63, 71, 97, -37], "agreement": 0.86}})
    )
    # the style classifiers, whose dev accuracy the warnings page reads (tst.run_warnings)
    evaluators = tmp_path / "results" / "toy" / "evaluators"
    evaluators.mkdir()
    for name in ("style_cnn.pt", "style_lstm.pt", "style_minilm.pt"):
        torch.save({"metrics": {"dev_accuracy": 0.9}}, evaluators / name)
    (tmp_path / "results" / "toy" / "validity").mkdir()
    (tmp_path / "results" / "toy" / "validity" / "checks.json").write_text(
        json.dumps({"separation": None, "word_order": None})
    )
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(toy_config()))
    targets = [
        f"results/toy/{kind}/{name}.{ext}"
        for kind, names, exts in (
            ("tables", build.TABLES, build.TABLE_FORMATS),
            ("plots", build.PLOTS, ("png", "svg")),
        )
        for name in names
        for ext in exts
    ]
    # only the report rules may run: the score and human files are the ones written above
    smk = [
        str(Path(sys.executable).with_name("snakemake")),
        "-s",
        str(REPO / "Snakefile"),
        "--cores",
        "1",
        *targets,
        "--allowed-rules",
        "report_tables",
        "report_plots",
    ]
    rules = subprocess.run(smk, cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False)
    page = None
    if rules.returncode == 0:
        page = subprocess.run(
            smk + ["--report", "report.html"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    return [
        None if r is None else {k: getattr(r, k) for k in ("returncode", "stdout", "stderr")}
        for r in (rules, page)
    ]


@pytest.mark.slow
def test_report_rules(toy_report):
    tmp_path, run, report = toy_report
    assert run.returncode == 0, run.stderr[-3000:]
    toy = tmp_path / "results" / "toy"
    for name in build.TABLES:
        for ext in build.TABLE_FORMATS:
            assert (toy / "tables" / f"{name}.{ext}").stat().st_size > 0
    for name in build.PLOTS:
        assert (toy / "plots" / f"{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # the settings travelled through the rule: target 0.8 +- 0.02 selects M0 seed1 ep1.5, seed2 ep1.0
    assert "ep1.5 (0.790), ep1.0 (0.780)" in (toy / "tables" / "pang_gimpel.md").read_text()
    assert "M0,0.795," in (toy / "tables" / "pang_gimpel.csv").read_text()
    assert "default_t,0.86," in (toy / "tables" / "aggregation.csv").read_text()
    # the leaderboard read the TSVs the rule declares: mit's Acc 0.75 on 100 sentences has an interval
    # around it (binomial: 0.75 +- 1.96 sqrt(0.75 x 0.25 / 100) = 0.75 +- 0.085)
    text = (toy / "tables" / "leaderboard.csv").read_text(encoding="utf-8").splitlines()
    board = {r["system"]: r for r in csv.DictReader(text)}
    lo, hi = float(board["mit"]["acc_lo"]), float(board["mit"]["acc_hi"])
    assert lo == pytest.approx(0.75 - 0.085, abs=0.02) and hi == pytest.approx(0.75 + 0.085, abs=0.02)
    assert board["reference"]["acc_cluster"] == "1" and len(board) == 8
    # the classifiers written above reach 0.9 dev accuracy: no warning of theirs
    assert (toy / "warnings.md").read_text().startswith("# Warnings: toy")
    assert "style classifier" not in (toy / "warnings.md").read_text()

    assert report.returncode == 0, report.stderr[-3000:]
    log = report.stdout + report.stderr
    # each table once (its html, which links the other formats), each plot as png and svg (a toggle), and the
    # page of what the numbers warn of (tst.run_warnings)
    added = sorted(line.split()[1] for line in log.splitlines() if line.startswith("Adding "))
    expected = [f"{n}.html" for n in build.TABLES] + [f"{n}.{x}" for n in build.PLOTS for x in ("png", "svg")]
    expected.append("warnings.md")
    assert added == sorted(expected)
    page = (tmp_path / "report.html").read_text()
    assert len(page) > 100_000


# ---- the report as a reader sees it: Chromium (Debian's) driven by Playwright --------------------------------

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str | None:
    """$TST_CHROMIUM, else the Debian package's binary, else `chromium` on PATH."""
    for path in (os.environ.get("TST_CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium")):
        if path and Path(path).is_file():
            return path
    return None


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed (pip install -e '.[test]')"
    )
    path = chromium_path()
    if path is None:
        pytest.skip("no Chromium: apt-get install chromium (Debian), or set TST_CHROMIUM to its binary")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        yield b
        b.close()


def column(frame, header: str) -> list[str]:
    """The text of every body cell under the header that starts with `header`."""
    heads = frame.locator("thead th").all_text_contents()
    i = next(i for i, h in enumerate(heads) if h.startswith(header))
    return frame.locator(f"tbody tr td:nth-child({i + 1})").all_text_contents()


@pytest.mark.slow
def test_report_in_browser(toy_report, browser, tmp_path):
    """Open the report as a reader would, at a laptop's 1366 x 768: the landing page's title and first paragraph
    are in view and the page scrolls to its end; it says what ran on this toy dataset (2 variants x 2
    seeds on a demo-kind corpus, human ratings), has no broken link, and its links open the leaderboard (one
    row per system; a click on a header sorts by it, a second click reverses) and the labelled trade-off plot;
    the menu lists each table once, by name and description; the table's CSV link downloads the CSV."""
    root, _, report = toy_report
    assert report is not None and report.returncode == 0
    page = browser.new_page(viewport={"width": 1366, "height": 768})  # a laptop's screen
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto((root / "report.html").as_uri())
    landing = page.locator("#app")
    landing.get_by_text("What ran.").wait_for()
    # at 1366 x 768 the title and the first paragraph are in view, and the rest is reached by scrolling
    for part in (page.get_by_text("Text style transfer: systems scored"), page.get_by_text("What ran.")):
        box = part.first.bounding_box()
        assert box is not None and 0 <= box["y"] and box["y"] + box["height"] <= 768, box
    scroller = page.locator("div.h-screen.overflow-auto").first
    assert scroller.evaluate("e => e.scrollHeight > e.clientHeight")  # taller than the window
    scroller.evaluate("e => e.scrollTo(0, e.scrollHeight)")
    assert scroller.evaluate("e => e.scrollTop") > 0
    # the last paragraph, whole once scrolled to the end
    last = page.locator("p", has_text="Reading it.").first
    box = last.bounding_box()
    assert box is not None and 0 <= box["y"] and box["y"] + box["height"] <= 768, box
    text = landing.inner_text()
    assert "toy — the demo corpus, generated by the pipeline itself" in text
    assert "Transfer models trained: 2 variants (M0, M2) × 2 seeds (1, 2), 2 epochs each" in text
    assert "2 published systems (mit, multi_decoder)" in text and "Human ratings: yes" in text
    assert "No transfer models" not in text
    assert "System Message" not in text and "Unknown target" not in text  # every link resolved
    page.screenshot(path=tmp_path / "landing.png", full_page=True)

    # the leaderboard, from its link on the landing page: a row per system of the score files
    page.get_by_role("link", name="the leaderboard").click()
    board = page.frame_locator("iframe")
    board.locator("tbody tr").first.wait_for()  # all_text_contents does not wait for the frame
    systems = [s.split(" ")[0] for s in board.locator("tbody tr td:first-child").all_text_contents()]
    ours = [f"{v}.seed{s}" for v, s in DEV_ACC]
    assert sorted(systems) == sorted([*ours, *(names.display_name(s) for s in EXTERNAL)])
    page.screenshot(path=tmp_path / "leaderboard.png")
    # sorting: a click on a header orders the rows by it, best first (Acc ↑: highest; PP ↓: lowest), a second
    # click reverses
    for header, best_first in (("Acc", True), ("PP", False)):
        cells = board.locator("thead th", has_text=header)
        cells.click()
        first = [float(c.split()[0]) for c in column(board, header)]
        cells.click()
        second = [float(c.split()[0]) for c in column(board, header)]
        assert first == sorted(first, reverse=best_first) and second == first[::-1] and first != second
    # the CSV link downloads the table's tidy data as written beside the html
    with page.expect_download() as dl:
        board.get_by_role("link", name="CSV (tidy data)").click()
    assert Path(dl.value.path()).read_bytes() == (root / "results/toy/tables/leaderboard.csv").read_bytes()

    # the trade-off plot: shown as an image, its description beside it, every system a label in the svg
    page.goto((root / "report.html").as_uri())
    page.get_by_role("link", name="its trade-off plot").click()
    img = page.locator("img[src^='data:image/png']")
    img.wait_for()
    assert img.evaluate("i => i.naturalWidth") > 300
    assert "Every system of the leaderboard" in page.locator("nav").first.inner_text()
    svg = (root / "results/toy/plots/tradeoff_leaderboard.svg").read_text()
    for name in [*ours, "mit", "multi_decoder", "reference", "source"]:
        assert f'id="label-{name}"' in svg
    page.screenshot(path=tmp_path / "plot.png")

    # the menu: each table once, by name and what it shows
    page.goto((root / "report.html").as_uri())
    menu = page.locator("nav").first
    for step in ("Results", "toy", "Tables"):
        menu.get_by_text(step, exact=True).click()
    menu.locator("tbody tr").first.wait_for()
    rows = menu.locator("tbody tr").all_text_contents()
    assert len(rows) == len(build.TABLES)
    assert any(r.startswith("leaderboard") and "95% intervals" in r for r in rows)
    assert errors == []


def test_a_wide_table_fits_a_laptop_screen(browser, tmp_path):
    """A leaderboard as wide as Yelp's (16 columns of `score [interval] (cluster)`) at 1366 x 768: the page is no
    wider than the window (the table scrolls in its own box, the notes wrap: the signature is one 1,700-character
    word), and the first column (the system) stays where it is while the table scrolls."""
    import pandas as pd

    from tst.report.table_writer import Table, write_table

    columns = ["System", *(f"Metric number {i} ↑" for i in range(15))]
    rows = [[f"system_{r}", *(f"{r}.123 [{r}.001, {r}.245] ({r})" for _ in range(15))] for r in range(20)]
    signature = "tst:0.2.0|" + ",".join(f"naturalness/system_{i}.lr.json=0123456789ab" for i in range(40))
    table = Table(
        "leaderboard", "every system", pd.DataFrame({"a": [1]}), columns, rows, [signature], sortable=True
    )
    html = next(p for p in write_table(table, tmp_path) if p.suffix == ".html")
    page = browser.new_page(viewport={"width": 1366, "height": 768})
    page.goto(html.as_uri())
    width = page.evaluate("document.documentElement.clientWidth")
    # nothing off the right edge
    assert page.evaluate("document.documentElement.scrollWidth") == width <= 1366
    box = page.locator(".wide")
    assert box.evaluate("e => e.scrollWidth") > 2 * width  # the table itself is wider: it scrolls in its box
    note = page.locator("ol li").last.bounding_box()
    # the signature wraps onto several lines
    assert note["x"] + note["width"] <= width and note["height"] > 40
    first, last = page.locator("tbody tr td").first, page.locator("tbody tr td").nth(15)
    before = first.bounding_box()["x"]
    box.evaluate("e => e.scrollTo(e.scrollWidth, 0)")
    assert first.bounding_box()["x"] == before  # the system column stays in view (sticky)
    assert last.bounding_box()["x"] + last.bounding_box()["width"] <= width + 1  # the last column scrolled in
    page.close()
