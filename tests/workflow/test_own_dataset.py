"""A corpus of one's own from plain files, through configs/own_dataset.yaml (docs/own_dataset.md): Li et al.
2018's image captions, humorous vs romantic (a style that is not sentiment), with human references in both
forms, run at a small scale (the evaluation stage: every evaluator, the references and the sanity baselines
scored, no transfer model). Then the cache: a changed reference file reruns what reads the references, no
evaluator.

The corpus: Li et al.'s 300 factual test captions each have a romantic (reference.0) and a humorous
(reference.1) rewrite by people, and those rewrites are among the 500 romantic / humorous captions of
sentiment.dev.{1,0}. The first N_TEST captions' humorous and romantic rewrites are the test sentences, each the
human reference of the other (two rewrites of one picture's caption); the other captions train (DEV per style
held out)."""

import json

import pytest
import yaml
from conftest import once_per_session, planned_jobs, snakemake

from tst.config_files import merge_configs
from tst.data.normalize import normalizer

pytestmark = [pytest.mark.shared_data, pytest.mark.slow]

N_TEST, DEV = 50, 40
STYLES = ["humorous", "romantic"]
# the small scale: as configs/tiny.yaml and configs/scores_only.yaml (the evaluation stage), no naturalness
# classifiers and no attribute parses (their jobs are the run's slowest and test no part of the recipe)
SMALL = {
    "transfer": {"run_variants": []},
    "evaluators": {
        "precision": "fp32",
        "cnn": {"max_epochs": 2},
        "lstm": {"max_epochs": 2},
        "lm": {"max_epochs": 2},
    },
    "score": {"naturalness": None, "attribute_hit": False},
}


def lines(path):
    return path.read_text(encoding="utf-8").splitlines()


def build_corpus(li, data) -> dict:
    """The plain files of configs/own_dataset.yaml's paths under data/mine/; returns the test sentences and
    references per style name."""
    romantic = [row.split("\t")[1] for row in lines(li / "reference.0")]  # factual<TAB>romantic<TAB>1
    humorous = [row.split("\t")[1] for row in lines(li / "reference.1")]  # factual<TAB>humorous<TAB>0
    test = {"humorous": humorous[:N_TEST], "romantic": romantic[:N_TEST]}
    held = set(test["humorous"]) | set(test["romantic"])
    pools = {"humorous": lines(li / "sentiment.dev.0"), "romantic": lines(li / "sentiment.dev.1")}
    mine = data / "mine"
    mine.mkdir(parents=True)
    for name, pool in pools.items():
        rest = [s for s in pool if s not in held]
        (mine / f"dev.{name}.txt").write_text("\n".join(rest[:DEV]) + "\n", encoding="utf-8")
        (mine / f"train.{name}.txt").write_text("\n".join(rest[DEV:]) + "\n", encoding="utf-8")
        (mine / f"test.{name}.txt").write_text("\n".join(test[name]) + "\n", encoding="utf-8")
    # humorous -> romantic: one rewrite per line, aligned with test.humorous.txt
    (mine / "reference.humorous.txt").write_text("\n".join(test["romantic"]) + "\n", encoding="utf-8")
    # romantic -> humorous: source<TAB>rewrite, in another order than the test file
    pairs = list(zip(test["romantic"], test["humorous"]))[::-1]
    (mine / "reference.romantic.txt").write_text("".join(f"{s}\t{r}\n" for s, r in pairs), encoding="utf-8")
    return test


@pytest.fixture(scope="module")
def own_run(repo_root, shared_data, tmp_path_factory):
    """The recipe run once per session (conftest.once_per_session: both tests read it, on either pytest-xdist
    worker): (its folder, the test sentences per style, the run's output)."""
    li = shared_data / "imagecaption" / "li"
    if not (li / "reference.0").is_file():
        pytest.skip(f"Li et al.'s image captions not found under {li} (TST_DATA_DIR)")

    def build(work):
        data = work / "data"
        test = build_corpus(li, data)
        own = yaml.safe_load((repo_root / "configs" / "own_dataset.yaml").read_text())
        own["data_dir"] = str(data)
        own["datasets"]["mine"]["styles"] = STYLES
        base = yaml.safe_load((repo_root / "config.yaml").read_text())
        (work / "config.yaml").write_text(yaml.safe_dump(merge_configs([base, own, SMALL])))
        result = snakemake(work, repo_root, timeout=1500)
        return {"test": test, "log": result.stdout + result.stderr}

    work, record = once_per_session(tmp_path_factory, "own_dataset", build)
    return work, record["test"], record["log"]


def test_the_recipe_scores_the_human_references_first(own_run):
    work, test, log = own_run
    ds = work / "results" / "mine"
    report = json.loads((ds / "data" / "report.json").read_text())
    assert report["references_forms"] == {
        "mine/reference.humorous.txt": "lines",
        "mine/reference.romantic.txt": "tsv",
    }
    assert report["references"] == {"0": N_TEST, "1": N_TEST}
    # each test sentence has the other style's rewrite of its picture as its reference, never itself: the
    # references as the recipe's normalize block reads them (lowercased, PTB-tokenized)
    norm = normalizer({"lowercase": True, "tokenize": True})
    for st, name in enumerate(STYLES):
        rows = [tuple(r.split("\t")) for r in lines(ds / "data" / f"references.{st}.tsv")]
        other = STYLES[1 - st]
        expected = {" ".join(norm(s)): " ".join(norm(r)) for s, r in zip(test[name], test[other])}
        assert len(rows) == N_TEST and dict(rows) == expected
        assert all(src != ref for src, ref in rows)
    board = {}
    with open(ds / "tables" / "leaderboard.csv", encoding="utf-8") as f:
        header = f.readline().rstrip("\n").split(",")
        for line in f:
            row = dict(zip(header, line.rstrip("\n").split(",")))
            if row["rank_by"] == "gm":
                board[row["system"]] = row
    ranked = sorted(board, key=lambda s: -float(board[s]["gm"] or 0))
    assert ranked[0] == "reference", {s: board[s]["gm"] for s in ranked}
    assert float(board["reference"]["gm"]) > 0 and float(board["source"]["gm"]) == 0.0
    source = json.loads((ds / "scores" / "source" / "test.final.json").read_text())["metrics"]
    reference = json.loads((ds / "scores" / "reference" / "test.final.json").read_text())["metrics"]
    assert source["bleu_ref_corpus"]["score"] < 100.0  # the copy against human rewrites, not against itself
    assert reference["bleu_ref_corpus"]["score"] == pytest.approx(100.0)
    # no sentiment pair: the tail baselines are not run, and the run's summary says so
    assert not (ds / "scores" / "tail_clause").exists() and not (ds / "scores" / "tail_sentence").exists()
    assert "mine: the tail baselines (tail_clause, tail_sentence) are not run" in log
    assert (ds / "warnings.md").read_text().startswith("# Warnings: mine")


def test_a_changed_reference_file_reruns_no_evaluator(own_run, repo_root):
    work, _, _ = own_run
    assert planned_jobs(snakemake(work, repo_root, "-n").stdout) == {}
    ref = work / "data" / "mine" / "reference.humorous.txt"
    before = ref.read_text(encoding="utf-8")
    body = before.splitlines()
    body[3] = "a couple in love watches the sunset together ."  # one rewrite corrected
    ref.write_text("\n".join(body) + "\n", encoding="utf-8")
    try:
        jobs = planned_jobs(snakemake(work, repo_root, "-n").stdout)
    finally:
        ref.write_text(before, encoding="utf-8")
    assert jobs["prepare_references"] == 1 and jobs["reference_system"] == 2
    assert "score_external" in jobs and "report_tables" in jobs
    evaluators = {"prepare_data", "train_classifier", "train_lm", "train_acceptability", "build_embeddings"}
    evaluators |= {"build_idf", "build_style_lexicon", "embed_sources", "parse", "attributes"}
    assert not evaluators & set(jobs), jobs
