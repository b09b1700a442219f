"""`tst transfer`: raw text prepared as the dataset's was (normalize, NER masking, BPE), a tiny checkpoint
trained here, names put back in the output; `tst --version`."""

import copy
import io
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import yaml

from tst.apply import prepare_lines, style_index
from tst.cli import main
from tst.config_files import merge_configs
from tst.data.bpe import BPE, train_bpe
from tst.data.normalize import detokenize
from tst.io import read_lines, write_lines
from tst.nlp.backend import Doc, NLPBackend, Token
from tst.train import checkpoint
from tst.train.trainer import train_files
from tst.vocab import Vocab

torch.set_num_threads(1)

ROOT = Path(__file__).resolve().parents[2]
TINY = {
    "emb_dim": 8,
    "style_dim": 4,
    "content_dim": 16,
    "disc_filters": 4,
    "disc_widths": [1, 2],
    "disc2_widths": [1],
    "cls_hidden": 4,
    "batch_size": 4,
    "epochs": 6,
    "dev_batch_size": 4,
    "lr": 1e-2,
}
# every training sentence starts with the placeholder, so even a tiny model learns to write it first
S0 = [
    "-PERSON- was rude",
    "-PERSON- was cold",
    "-PERSON- never again",
    "-PERSON- was slow",
    "-PERSON- was rude to us",
    "-PERSON- was bland",
    "-PERSON- was cold and rude",
    "-PERSON- was slow again",
]
S1 = [
    "-PERSON- was kind",
    "-PERSON- was warm",
    "-PERSON- always again",
    "-PERSON- was fast",
    "-PERSON- was kind to us",
    "-PERSON- was tasty",
    "-PERSON- was warm and kind",
    "-PERSON- was fast again",
]
DATASET = {
    "styles": ["negative", "positive"],
    "source": {"kind": "demo"},
    "normalize": {"lowercase": True, "numbers": False, "tokenize": False},
    "ner": {"enabled": True, "labels": {"PERSON": "-PERSON-"}},
    "bpe": {"enabled": False},
}


class FakeNER(NLPBackend):
    """Runs of known first and last names are one PERSON entity (spaCy's job in the workflow)."""

    NAMES = frozenset({"john", "smith", "mary", "johnson", "zoë"})

    def annotate(self, sentences, parse=True, ner=True):
        docs = []
        for s in sentences:
            spans, i = [], 0
            while i < len(s):
                j = i
                while j < len(s) and s[j] in self.NAMES:
                    j += 1
                if j > i:
                    spans.append((i, j, "PERSON"))
                i = max(j, i + 1)
            docs.append(Doc([Token(w) for w in s], spans))
        return docs


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("transfer")
    data = root / "results" / "tiny" / "data"
    train, dev = [], []
    for t, sents in enumerate((S0, S1)):
        train.append(data / f"train.{t}.txt")
        dev.append(data / f"dev.{t}.txt")
        write_lines(train[-1], sents)
        write_lines(dev[-1], sents[:2])
    Vocab.save_counts(data / "vocab.txt", [s.split() for s in S0 + S1])
    train_files(
        TINY, {"model": "cross_aligned"}, 1, root / "run", train, dev, data / "vocab.txt", 1, device="cpu"
    )
    config = root / "config.yaml"
    config.write_text(
        yaml.safe_dump({"nlp": {"backend": "spacy", "batch_size": 8}, "datasets": {"tiny": DATASET}})
    )
    return {
        "root": root,
        "data": data,
        "config": config,
        "ckpt": checkpoint.checkpoints(root / "run" / "checkpoints")[-1][1],
    }


def test_transfer_puts_the_person_back(tiny_run, tmp_path, capsys):
    r = tiny_run
    inp = tmp_path / "in.txt"
    write_lines(inp, ["John Smith was rude", "", "Mary Johnson was cold"])
    out = tmp_path / "out.txt"
    main([*argv_base(r, inp), "--output", str(out)])  # --dataset-dir results/<dataset>, as for tst score
    lines = read_lines(out)
    assert len(lines) == 3 and lines[1] == ""  # one line out per line in, an empty line stays empty
    # spaCy finds the (lowercased) names; the model writes -PERSON- first, unmask puts the name back
    assert lines[0].startswith("john smith ") and lines[2].startswith("mary johnson ")
    assert "-PERSON-" not in lines[0] + lines[2]
    # stdin -> stdout; the data folder results/<dataset>/data is read as its results folder, with a warning
    capsys.readouterr()
    sys_stdin = sys.stdin
    try:
        sys.stdin = io.StringIO("John Smith was rude\n")
        main(
            [
                "transfer",
                str(r["ckpt"]),
                "--dataset-dir",
                str(r["data"]),
                "--to-style",
                "1",
                "--config",
                str(r["config"]),
            ]
        )
    finally:
        sys.stdin = sys_stdin
    out, err = capsys.readouterr()
    assert out == lines[0] + "\n"
    assert err == (
        f"tst transfer: warning: --dataset-dir {r['data']} is the dataset's data folder; read as its results "
        f"folder {r['data'].parent} (pass that: --dataset-dir results/<dataset> for both tst score and tst "
        "transfer)\n"
    )
    # --detokenize: the same transfer, cased as its input and detokenized
    main([*argv_base(r, inp), "--detokenize", "--output", str(tmp_path / "cased.txt")])
    cased = read_lines(tmp_path / "cased.txt")
    assert cased[1] == "" and cased[0].startswith("John Smith ") and cased[2].startswith("Mary Johnson ")
    assert cased[0] == detokenize(lines[0].split(), "John Smith was rude", ["john", "smith"])


def argv_base(r, inp) -> list[str]:
    return [
        "transfer",
        str(r["ckpt"]),
        "--dataset-dir",
        str(r["data"].parent),
        "--to-style",
        "positive",
        "--config",
        str(r["config"]),
        "--input",
        str(inp),
    ]


def test_detokenize_cases_words_as_the_input_line_writes_them():
    # by hand: names and "I" cased, the first letter capitalized, PTB tokens joined back
    words = [
        "john",
        "smith",
        "was",
        "n't",
        "rude",
        "to",
        "us",
        "at",
        "``",
        "the",
        "place",
        "''",
        ",",
        "i",
        "think",
        ".",
    ]
    assert (
        detokenize(words, "John Smith wasn't rude to us", ["john", "smith"])
        == 'John Smith wasn\'t rude to us at "the place", I think.'
    )
    # the input's first word is cased only when it is a name: "The" does not make every "the" The
    assert (
        detokenize(["the", "food", "and", "the", "staff", "."], "The food was bad.")
        == "The food and the staff."
    )
    assert detokenize(["we", "met", "zoë", "."], "Zoë was there", ["zoë"]) == "We met Zoë."
    assert detokenize([], "") == ""


def test_transfer_command_line_errors(tiny_run, tmp_path, capsys):
    r = tiny_run
    base = ["transfer", str(r["ckpt"]), "--dataset-dir", str(r["data"]), "--config", str(r["config"])]
    for argv, code, words in (
        (
            base + ["--to-style", "happy"],
            2,
            "unknown style 'happy': use 0, 1 or one of ['negative', 'positive']",
        ),
        (
            base + ["--to-style", "1", "--dataset", "yelp"],
            2,
            "config key datasets.yelp not found; defined: tiny",
        ),
        (base + ["--to-style", "1", "--input", str(tmp_path / "none.txt")], 2, "none.txt: no such file"),
    ):
        with pytest.raises(SystemExit) as e:
            main(argv)
        assert e.value.code == code and words in capsys.readouterr().err
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not a checkpoint")
    write_lines(tmp_path / "in.txt", ["john was rude"])
    with pytest.raises(SystemExit) as e:
        main(["transfer", str(bad), *base[2:], "--to-style", "1", "--input", str(tmp_path / "in.txt")])
    assert (
        e.value.code == 1
        and f"cannot use checkpoint {bad}: not a transfer checkpoint" in capsys.readouterr().err
    )

    class Stdin:  # bytes on standard input, the second line not UTF-8
        buffer = io.BytesIO(b"john was rude\nthe caf\xe9 was cold\n")

    sys_stdin = sys.stdin
    try:
        sys.stdin = Stdin()
        with pytest.raises(SystemExit) as e:
            main(base + ["--to-style", "1"])
    finally:
        sys.stdin = sys_stdin
    assert e.value.code == 1
    assert "standard input, line 2: byte 0xe9 (byte 8 of the line)" in capsys.readouterr().err


def test_prepare_lines_bpe_round_trip(tmp_path):
    """Normalized, masked (fake NER: known names), BPE-encoded with a tiny sentencepiece model whose
    training text is the masked corpus: decoding the pieces gives the masked normalized words back and the
    placeholder stays one piece."""
    corpus = [
        "-PERSON- was rude to us",
        "the food was cold",
        "-PERSON- was kind",
        "the service was slow",
        "great food and kind staff",
    ] * 4
    bpe_path = tmp_path / "bpe.model"
    train_bpe(corpus, bpe_path, vocab_size=300, user_symbols=["-PERSON-", "<num>"])
    cfg = {**DATASET, "bpe": {"enabled": True}}
    raw = ["John  Smith was RUDE to us", "Zoë was naïve"]  # ï is in no training word: byte fallback
    tokens, words, ents = prepare_lines(raw, cfg, bpe_path, FakeNER())
    assert words == [["-PERSON-", "was", "rude", "to", "us"], ["-PERSON-", "was", "naïve"]]
    assert ents == [[["-PERSON-", "john smith"]], [["-PERSON-", "zoë"]]]
    bpe = BPE(bpe_path)
    assert [bpe.decode(t) for t in tokens] == ["-PERSON- was rude to us", "-PERSON- was naïve"]
    assert tokens[1][:3] == ["\u2581", "-PERSON-", "\u2581was"]  # the placeholder is one piece
    assert "<0xC3>" in tokens[1]  # ï = C3 AF in UTF-8, as byte pieces
    assert tokens == bpe.encode_many([" ".join(w) for w in words])  # what prepare_dataset writes
    with pytest.raises(FileNotFoundError, match="uses BPE but its model"):
        prepare_lines(raw, cfg, tmp_path / "missing.model", FakeNER())


def test_prepare_lines_is_what_prepare_dataset_writes(tmp_path):
    """The dataset's own pipeline (tst.data.prepare.prepare_dataset: files, NER, BPE) on train/dev/test files;
    prepare_lines on the raw test lines gives the pieces, words and entities it wrote."""
    from tst.data.prepare import prepare_dataset
    from tst.io import read_jsonl

    raw = {
        0: [
            "John Smith was RUDE to us",
            "the food was COLD",
            "Mary   Johnson never came back",
            "slow service",
        ],
        1: [
            "John Smith was kind to us",
            "the food was warm",
            "Mary Johnson always comes back",
            "fast service",
        ],
    }
    test = {
        0: ["Zoë said the soup was cold", "John was rude again"],
        1: ["Mary said the soup was warm", "fast and kind"],
    }
    for t in (0, 1):
        write_lines(tmp_path / "in" / f"train.{t}.txt", raw[t] * 3)
        write_lines(tmp_path / "in" / f"dev.{t}.txt", raw[t][:1])
        write_lines(tmp_path / "in" / f"test.{t}.txt", test[t])
    cfg = {
        **DATASET,
        "source": {"kind": "files", "files": {s: f"{s}.{{style}}.txt" for s in ("train", "dev", "test")}},
        "length": {"min_words": 1, "max_words": 20},
        "bpe": {"enabled": True, "vocab_size": 300},
        "min_sentences": {"train": 1, "dev": 1, "test": 1},
    }  # a tiny corpus, below the default minimums
    out = tmp_path / "data"
    prepare_dataset(cfg, tmp_path / "in", out, None, "tiny", backend=FakeNER())
    for t in (0, 1):
        tokens, words, ents = prepare_lines(test[t], cfg, out / "bpe.model", FakeNER())
        assert [" ".join(x) for x in tokens] == read_lines(out / f"test.{t}.txt")
        assert [" ".join(w) for w in words] == read_lines(out / f"test.{t}.raw.txt")
        assert ents == read_jsonl(out / f"test.{t}.entities.jsonl")
    assert ents[1] == [] and read_jsonl(out / "test.0.entities.jsonl")[0] == [["-PERSON-", "zoë"]]


def test_config_overlay_and_style_names():
    base = {"nlp": {"backend": "spacy", "batch_size": 256}, "datasets": {"demo": {"bpe": {"enabled": False}}}}
    overlay = {"nlp": {"batch_size": 8}, "datasets": {"yelp": {"bpe": {"enabled": True}}}}
    merged = merge_configs([base, overlay])
    assert merged["nlp"] == {"backend": "spacy", "batch_size": 8}
    assert set(merged["datasets"]) == {"demo", "yelp"}
    assert style_index("positive", ["negative", "positive"]) == 1 and style_index("0", ["a", "b"]) == 0


def _merged_key_by_key(configs):
    """The overlay merge written out: a dict value merges into a dict key by key, any other value replaces."""
    out = {}

    def merge(into, new):
        for k, v in new.items():
            if isinstance(v, dict) and isinstance(into.get(k), dict):
                merge(into[k], v)
            else:
                into[k] = copy.deepcopy(v)

    for c in configs:
        merge(out, c or {})
    return out


def test_config_overlays_merge_as_written_out_and_leave_their_inputs_alone():
    """Every shipped overlay over config.yaml (and the real-data stage's pairs) merges to the same config as the
    merge written out above; a nested key, a list and a null are replaced, and no input dict changes."""
    load = lambda name: yaml.safe_load((ROOT / name).read_text())
    overlays = sorted(p.name for p in (ROOT / "configs").glob("*.yaml"))
    stacks = [["config.yaml", f"configs/{o}"] for o in overlays]
    stacks += [
        ["config.yaml", "configs/yelp.yaml", f"configs/{o}"] for o in ("scores_only.yaml", "yelp_cpu.yaml")
    ]
    assert len(stacks) >= 14
    for names in stacks:
        configs = [load(n) for n in names]
        assert merge_configs(configs) == _merged_key_by_key(configs), names
        assert configs == [load(n) for n in names], names
    base = {"a": {"b": 1, "c": [1, 2]}, "d": None, "e": 3}
    merged = merge_configs([base, {"a": {"c": [3]}, "d": {"x": 1}}, {"e": None}])
    assert merged == {"a": {"b": 1, "c": [3]}, "d": {"x": 1}, "e": None}
    assert base == {"a": {"b": 1, "c": [1, 2]}, "d": None, "e": 3}


def test_version_is_the_packages_own():
    # tst/__init__.py holds it, written out (pyproject.toml reads it from there: tests/test_signature.py)
    expected = re.search(r'^__version__ = "(.+)"$', (ROOT / "tst" / "__init__.py").read_text(), re.MULTILINE)[
        1
    ]
    out = subprocess.run(
        [sys.executable, "-m", "tst", "--version"], capture_output=True, text=True, check=True
    )
    from tst import signature

    # the version, then the scoring code's hash and the checkout's commit (tst.signature)
    assert (
        out.stdout.strip()
        == f"tst {expected} (scoring code {signature.scoring_code()}, commit {signature.commit()})"
    )


def test_help_lists_both_commands():
    out = subprocess.run(
        [sys.executable, "-m", "tst", "--help"], capture_output=True, text=True, check=True
    ).stdout
    assert "score" in out and "transfer" in out and "--version" in out
