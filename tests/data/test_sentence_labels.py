"""SST-2's sentence-level labels (tst.data.sentence_labels): the release read and sampled, and its download from
GLUE's zip or a mirror served on 127.0.0.1, checked by size and sha256, directly and through the workflow's rule."""

import hashlib
import io
import shutil
import zipfile
from pathlib import Path

import pytest
import yaml
from conftest import snakemake
from test_downloads import Server

from tst.data.sentence_labels import download_sst2, is_sentiment_pair, read_sst2, sample_by_label
from tst.data.splits import sample_train

REPO = Path(__file__).resolve().parents[2]
SST2 = yaml.safe_load((REPO / "config.yaml").read_text())["evaluators"]["sst2"]


def test_the_release_is_read_as_glue_ships_it(shared_data):
    path = shared_data / "sst2" / "train.tsv"
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "sentence\tlabel" and len(lines) == 1 + 67_349  # GLUE's count
    rows = [line.rsplit("\t", 1) for line in lines[1:]]
    keep = [(s.split(), int(y)) for s, y in rows if len(s.split()) >= 3]
    sentences, labels = read_sst2(path)
    assert sentences == [s for s, _ in keep] and labels == [y for _, y in keep]
    assert sum(y == "1" for _, y in rows) == 37_569  # positive rows of the release (the data README)
    assert (
        hashlib.sha256(path.read_bytes()).hexdigest() == SST2["sha256"]
        and path.stat().st_size == SST2["size"]
    )


def test_sampling_draws_per_label_like_the_training_split(tmp_path):
    sentences = [f"w{i} a b".split() for i in range(10)]
    labels = [i % 2 for i in range(10)]
    s, y = sample_by_label(sentences, labels, 2, seed=5)
    neg = sample_train([f"w{i} a b" for i in range(0, 10, 2)], 2, 5)
    pos = sample_train([f"w{i} a b" for i in range(1, 10, 2)], 2, 6)
    assert [" ".join(t) for t in s] == neg + pos and y == [0, 0, 1, 1]


def test_a_malformed_row_is_named_with_its_line(tmp_path):
    bad = tmp_path / "train.tsv"
    bad.write_text("sentence\tlabel\na fine row here\t1\nno label here\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"train.tsv: line 3 is not sentence<TAB>0\|1"):
        read_sst2(bad)
    bad.write_text("text\tlabel\n", encoding="utf-8")
    with pytest.raises(ValueError, match="line 1 is .* not the header"):
        read_sst2(bad)


def test_only_a_negative_positive_pair_reads_sst2():
    assert is_sentiment_pair(["negative", "positive"]) and is_sentiment_pair(["neg", "pos"])
    assert not is_sentiment_pair(["positive", "negative"]) and not is_sentiment_pair(["dickens", "austen"])


def glue_zip(folder: Path, train: bytes) -> Path:
    """A zip laid out as GLUE's SST-2.zip (SST-2/train.tsv, SST-2/dev.tsv)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("SST-2/train.tsv", train)
        z.writestr("SST-2/dev.tsv", b"sentence\tlabel\n")
    (folder / "SST-2.zip").write_bytes(buf.getvalue())
    return folder / "SST-2.zip"


def test_download_from_the_zip_or_a_mirror_is_checked(shared_data, tmp_path):
    train = (shared_data / "sst2" / "train.tsv").read_bytes()
    served = tmp_path / "served"
    (served / "sst2").mkdir(parents=True)
    glue_zip(served, train)
    (served / "sst2" / "train.tsv").write_bytes(train)
    out = tmp_path / "data" / "sst2" / "train.tsv"
    with Server(served) as server:
        n = download_sst2(f"{server.url}/SST-2.zip", out, SST2["member"], SST2["sha256"], SST2["size"])
        assert n == len(train) and out.read_bytes() == train
        out.unlink()
        # a mirror of the data folder serves the file itself
        download_sst2(f"{server.url}/sst2/train.tsv", out, SST2["member"], SST2["sha256"], SST2["size"], True)
        assert out.read_bytes() == train
        out.unlink()
        server.corrupt.add("sst2/train.tsv")
        with pytest.raises(ValueError, match=r"has 3806081 bytes and sha256 [0-9a-f]{64}, expected 3806081"):
            download_sst2(
                f"{server.url}/sst2/train.tsv", out, SST2["member"], SST2["sha256"], SST2["size"], True
            )
        with pytest.raises(ValueError, match="not a zip holding SST-2/nope.tsv"):
            download_sst2(f"{server.url}/SST-2.zip", out, "SST-2/nope.tsv", SST2["sha256"], SST2["size"])
    assert not out.exists() and not list(out.parent.iterdir())  # nothing left behind


@pytest.mark.slow
def test_the_workflow_downloads_sst2_when_the_style_classifier_reads_it(shared_data, tmp_path):
    """The default config with evaluators.minilm.sentence_labels set: the file the style classifier reads comes
    from GLUE's zip (served on 127.0.0.1) through rule download_sentence_labels, byte-identical to the release."""
    train = (shared_data / "sst2" / "train.tsv").read_bytes()
    served, data, work = tmp_path / "served", tmp_path / "data", tmp_path / "work"
    served.mkdir()
    work.mkdir()
    shutil.copy(REPO / "config.yaml", work / "config.yaml")
    with Server(served) as server:
        glue_zip(served, train)
        overlay = work / "sst2.yaml"
        overlay.write_text(
            yaml.safe_dump(
                {
                    "evaluators": {
                        "minilm": {"sentence_labels": "mixed"},
                        "sst2": {"url": f"{server.url}/SST-2.zip"},
                    }
                }
            )
        )
        target = data / "sst2" / "train.tsv"
        snakemake(work, REPO, str(target), "--configfile", str(overlay), env={"TST_DATA_DIR": str(data)})
        assert server.requests == ["SST-2.zip"]
    assert target.read_bytes() == train


def test_the_amazon_stage_reads_sst2_first_and_yelp_and_the_demo_do_not(tmp_path):
    """configs/amazon.yaml's own style classifier reads SST-2 for one epoch before Amazon's sentences
    (datasets.amazon.minilm), so its minilm job takes the SST-2 file and the workflow downloads it into an empty
    data folder; the demo's and Yelp's style classifiers, in the same run or alone, read their corpus only."""
    from snakemake.iocontainers import Wildcards
    from test_downloads import load_config

    from tst.rule_inputs import sentence_labels_download, sst2_input
    from tst.stages import evaluator_settings

    def minilm(cfg, dataset):
        return sst2_input(cfg, Wildcards(fromdict={"kind": "minilm", "dataset": dataset}), tmp_path)

    amazon = load_config("amazon.yaml")
    assert evaluator_settings(amazon, "minilm", "amazon")["sentence_labels"] == "first"
    assert minilm(amazon, "amazon") == {"sentence_labels": str(tmp_path / SST2["file"])}
    assert sst2_input(amazon, Wildcards(fromdict={"kind": "cnn", "dataset": "amazon"}), tmp_path) == {}
    assert sentence_labels_download(amazon, tmp_path) == SST2
    both = load_config("yelp.yaml", "amazon.yaml")
    assert minilm(both, "yelp") == {} and minilm(both, "amazon") != {}
    assert minilm(load_config(), "demo") == {} and sentence_labels_download(load_config(), tmp_path) is None
