"""Paraphrase pairs for the paraphrase loss (Pang & Gimpel eq. 5): a dataset names its released
pairs (datasets.<name>.paraphrase), prepare_data filters and samples them, a model records where they came from,
and a paraphrase variant on a dataset without pairs stops the dry run before any job runs."""

import hashlib
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml
from conftest import planned_jobs, refusal

from tst import rule_inputs
from tst.config import ConfigError, check_paraphrases
from tst.config_files import merge_configs
from tst.data.normalize import normalizer
from tst.data.paraphrase import filter_and_sample, pair_lines, select_pairs
from tst.data.prepare import prepare_dataset
from tst.io import InputError, NotUTF8Error, read_json, read_lines, write_jsonl, write_lines
from tst.train import checkpoint
from tst.train.trainer import train_files
from tst.vocab import Vocab

torch.set_num_threads(1)
SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))

# Yelp-like same-style paraphrases; line 3 is a substring pair (footnote 1), line 5 has no tab, line 6 repeats
# its sentence, line 8 differs from line 7 only in case (both kept: lowercasing makes them equal to each
# other, not substrings of each other within a pair)
PAIRS = [
    "The food was great .\tthe meal was excellent .\t0.81",
    "service was slow\tthe service took forever",
    "the staff was rude\tthe staff was rude to us",
    "we will be back\twe are coming back",
    "no tab on this line",
    "great place\tgreat place",
    "Loved the pizza\tthe pizza was lovely",
    "LOVED THE PIZZA\tthe pizza was LOVELY",
]
# after lowercasing: lines 0, 1, 3, 6, 7 kept (2: substring, 4: malformed, 5: identical sides)
KEPT = [
    ("the food was great .", "the meal was excellent ."),
    ("service was slow", "the service took forever"),
    ("we will be back", "we are coming back"),
    ("loved the pizza", "the pizza was lovely"),
    ("loved the pizza", "the pizza was lovely"),
]


def lower_split(line: str) -> list[str]:
    return line.lower().split()


def test_select_pairs_normalizes_filters_and_counts_by_hand():
    pairs, counts = select_pairs(lambda: iter(PAIRS), lower_split, None, 0)
    assert pairs == KEPT
    assert counts == {"read": 8, "malformed": 1, "filtered": 2, "kept": 5}


def test_select_pairs_samples_as_numpy_draws_and_as_the_trainer_does():
    pairs, counts = select_pairs(lambda: iter(PAIRS), lower_split, 2, 7)
    idx = sorted(np.random.default_rng(7).choice(5, 2, replace=False))  # 2 of the 5 kept, in file order
    assert pairs == [KEPT[i] for i in idx] and counts["kept"] == 2
    # the same draw as the training-time sample of already-filtered pairs
    assert [(u.split(), v.split()) for u, v in pairs] == filter_and_sample(KEPT, 2, 7)


def test_pairs_are_read_from_a_zip_member_as_from_a_plain_file(tmp_path):
    write_lines(tmp_path / "pairs.tsv", PAIRS)
    with zipfile.ZipFile(tmp_path / "pairs.zip", "w") as z:
        z.write(tmp_path / "pairs.tsv", "inner/pairs.txt")
    assert list(pair_lines(tmp_path / "pairs.zip", "inner/pairs.txt")) == list(
        pair_lines(tmp_path / "pairs.tsv")
    )
    assert list(pair_lines(tmp_path / "pairs.tsv")) == PAIRS
    # streamed, yet a CRLF file, a byte-order mark and a byte that is not UTF-8 are handled as tst.io does
    (tmp_path / "crlf.tsv").write_bytes(b"\xef\xbb\xbfa b\tc d\r\ne f\tg\r\n")
    assert list(pair_lines(tmp_path / "crlf.tsv")) == ["a b\tc d", "e f\tg"]
    (tmp_path / "bad.tsv").write_bytes(b"a\tb\nc \xff\td\n")
    with pytest.raises(NotUTF8Error, match=r"bad.tsv, line 2: byte 0xff"):
        list(pair_lines(tmp_path / "bad.tsv"))


def files_dataset(tmp_path, paraphrase: dict) -> dict:
    """A two-style files dataset of 30 sentences per style with released pairs."""
    words = [["cold", "bland", "slow", "rude"], ["warm", "tasty", "fast", "kind"]]
    for t in (0, 1):
        write_lines(
            tmp_path / f"s.{t}",
            [f"the {words[t][i % 4]} food number {i} was {words[t][(i + 1) % 4]}" for i in range(30)],
        )
    return {
        "styles": ["neg", "pos"],
        "source": {"kind": "files", "files": {"pool": "s.{style}"}},
        "normalize": {"lowercase": True, "numbers": False, "tokenize": False},
        "splits": {"dev_fraction": 0.1, "test_fraction": 0.1, "seed": 3},
        "paraphrase": paraphrase,
    }


def test_prepare_writes_the_released_pairs_for_both_styles_and_records_their_source(tmp_path):
    write_lines(tmp_path / "pairs.tsv", PAIRS)
    spec = {"file": "pairs.tsv", "source": "a hand-made fixture", "pairs": 3}
    report = prepare_dataset(files_dataset(tmp_path, spec), tmp_path, tmp_path / "out", name="toy")
    idx = sorted(np.random.default_rng(3).choice(5, 3, replace=False))  # splits.seed samples the 3
    expected = ["\t".join(KEPT[i]) for i in idx]
    for t in (0, 1):
        assert read_lines(tmp_path / "out" / f"paraphrase.{t}.tsv") == expected
    digest = hashlib.sha256((tmp_path / "pairs.tsv").read_bytes()).hexdigest()
    assert report["paraphrase"] == {"0": 3, "1": 3}
    assert report["paraphrase_source"] == {
        "file": "pairs.tsv",
        "source": "a hand-made fixture",
        "sha256": digest,
        "read": 8,
        "malformed": 1,
        "filtered": 2,
        "kept": 3,
    }
    # a pinned sha256 of another release stops preparation, naming the key
    with pytest.raises(InputError, match=r"datasets\.toy\.paraphrase\.sha256"):
        prepare_dataset(
            files_dataset(tmp_path, {**spec, "sha256": "0" * 64}), tmp_path, tmp_path / "x", name="toy"
        )
    # a file with no usable pair says so
    write_lines(tmp_path / "bad.tsv", ["a\ta", "only one side"])
    with pytest.raises(InputError, match=r"no usable paraphrase pair \(datasets\.toy\.paraphrase\.file\)"):
        prepare_dataset(files_dataset(tmp_path, {"file": "bad.tsv"}), tmp_path, tmp_path / "y", name="toy")


def yelp_config(*overlays) -> dict:
    return merge_configs([yaml.safe_load(Path(f).read_text()) for f in overlays])


def test_check_paraphrases_names_the_variants_the_dataset_and_the_fix(repo_root, tmp_path):
    c = [
        repo_root / "config.yaml",
        repo_root / "configs" / "yelp.yaml",
        repo_root / "configs" / "paper_dimensions.yaml",
    ]
    cfg = yelp_config(*c)
    with pytest.raises(ConfigError) as e:
        check_paraphrases(cfg, tmp_path)
    msg = str(e.value)
    assert "transfer variants M1, M4, M5, M7" in msg and "on dataset yelp" in msg
    assert "datasets.yelp.paraphrase is not set" in msg and "configs/paranmt.yaml" in msg
    # an empty file, a missing file without url: named; a missing file with a url: the download rule's job
    (tmp_path / "empty.tsv").write_text("")
    cfg["datasets"]["yelp"]["paraphrase"] = {"file": "empty.tsv"}
    with pytest.raises(ConfigError, match="empty.tsv is empty"):
        check_paraphrases(cfg, tmp_path)
    cfg["datasets"]["yelp"]["paraphrase"] = {"file": "nowhere.tsv"}
    with pytest.raises(ConfigError, match="does not exist and has no url"):
        check_paraphrases(cfg, tmp_path)
    check_paraphrases(yelp_config(*c, repo_root / "configs" / "paranmt.yaml"), tmp_path)
    assert "paranmt/para-nmt-5m-processed.zip" in rule_inputs.downloads(
        yelp_config(*c, repo_root / "configs" / "paranmt.yaml"), tmp_path
    )
    # without a paraphrase variant nothing is asked for
    cfg["transfer"]["run_variants"] = ["M0", "M2", "M3", "M6"]
    check_paraphrases(cfg, tmp_path)


def dry_run(repo_root, workdir, *configfiles):
    return subprocess.run(
        [SNAKEMAKE, "-s", str(repo_root / "Snakefile"), "-n", "--cores", "1", "--configfile", *configfiles],
        cwd=workdir,
        check=False,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_yelp_paper_dimensions_dry_run_stops_or_plans_every_model(repo_root, tmp_path, shared_data):
    configs = [str(repo_root / "configs" / f) for f in ("yelp.yaml", "paper_dimensions.yaml")]
    (tmp_path / "config.yaml").write_text((repo_root / "config.yaml").read_text())
    message = refusal(repo_root, tmp_path, *map(Path, configs))  # before any job is planned
    assert message is not None and "transfer variants M1, M4, M5, M7" in message, message
    # with a pairs file under data_dir the same configs plan all of M0-M7, 3 seeds each
    data = tmp_path / "data"
    data.mkdir()
    (data / "yelp").symlink_to(shared_data / "yelp")
    write_lines(data / "pairs.tsv", PAIRS)
    overlay = tmp_path / "pairs.yaml"
    overlay.write_text(
        yaml.safe_dump({"data_dir": str(data), "datasets": {"yelp": {"paraphrase": {"file": "pairs.tsv"}}}})
    )
    planned = dry_run(repo_root, tmp_path, *configs, str(overlay))
    assert planned.returncode == 0, planned.stderr[-2000:]
    for v in ("M0", "M1", "M2", "M3", "M4", "M5", "M6", "M7"):
        assert f"variant={v}" in planned.stdout, v
    assert planned_jobs(planned.stdout)["train_transfer"] == 8 * 3


def test_m1_trains_on_yelp_text_with_released_pairs_resumes_and_records_them(
    tmp_path, shared_data, repo_root
):
    """M1 (config.yaml's variant) on real Yelp sentences with a pairs fixture prepared like a dataset's: two
    epochs in two calls equal one uninterrupted run, and train.done.json says where the pairs came from."""
    li = shared_data / "yelp" / "li"
    f = {"train": [], "dev": []}
    for t in (0, 1):
        lines = read_lines(li / f"sentiment.dev.{t}")
        for split, part in (("train", lines[:24]), ("dev", lines[24:30])):
            f[split].append(tmp_path / f"{split}.{t}.txt")
            write_lines(f[split][-1], part)
    words = [w for t in (0, 1) for s in read_lines(f["train"][t]) for w in s.split()]
    vocab = tmp_path / "vocab.txt"
    Vocab.save_counts(vocab, [s.split() for t in (0, 1) for s in read_lines(f["train"][t])])
    pairs, _ = select_pairs(lambda: iter(PAIRS), normalizer({"lowercase": True, "tokenize": False}), None, 0)
    para = [tmp_path / f"paraphrase.{t}.tsv" for t in (0, 1)]
    for p in para:
        write_lines(p, ["\t".join(pair) for pair in pairs])
    ents = [tmp_path / f"dev.{t}.entities.jsonl" for t in (0, 1)]
    for t in (0, 1):
        write_jsonl(ents[t], [[] for _ in read_lines(f["dev"][t])])
    m1 = yaml.safe_load((repo_root / "config.yaml").read_text())["transfer"]["variants"]["M1"]
    assert m1["lambda_para"] > 0 and words
    tiny = {"emb_dim": 8, "style_dim": 4, "content_dim": 8, "disc_filters": 4, "disc_widths": [2, 3]}
    tiny |= {"batch_size": 8, "dev_batch_size": 8, "para_batch_size": 4, "paraphrase_pairs": 90000}
    source = {"file": "pairs.tsv", "source": "a hand-made fixture"}

    def run(out, epochs):
        return train_files(
            {**tiny, "epochs": epochs}, m1, 1, out, f["train"], f["dev"], vocab, 1, paraphrase=para,
            dev_entities=ents, device="cpu", paraphrase_source=source,
        )  # fmt: skip

    run(tmp_path / "a", 1)
    assert [p.name for _, p in checkpoint.checkpoints(tmp_path / "a" / "checkpoints")] == [
        "ep0.5.pt",
        "ep1.0.pt",
    ]
    resumed = run(tmp_path / "a", 2)  # resumes after ep1.0
    whole = run(tmp_path / "b", 2)
    for k, v in whole.state_dict().items():
        assert torch.equal(v, resumed.state_dict()[k]), k
    losses = read_lines(tmp_path / "a" / "losses.csv")
    assert "para" in losses[0] and read_lines(tmp_path / "b" / "losses.csv") == losses
    done = read_json(tmp_path / "a" / "train.done.json")
    assert done["paraphrase"] == {
        **source,
        "pairs": [5, 5],
        "sha256": [hashlib.sha256(p.read_bytes()).hexdigest() for p in para],
    }
