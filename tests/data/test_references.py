"""Reference files in both forms (tst.data.references): one rewrite per line aligned with the test file, or
source<TAB>rewrite; a mix, a misaligned file or a source that is no test sentence stops with the file, the line
and the fix; Li et al.'s released references read as before."""

import pytest

from tst.data.prepare import prepare_dataset
from tst.data.references import check_references, reference_form, reference_rows
from tst.io import InputError, read_json

TEST = {0: ["The tea is cold .", "We walk home ."], 1: ["Thou art late .", "Whither goest thou ?"]}


def dataset(tmp_path, refs: dict[int, str], test=TEST) -> dict:
    """A files dataset under tmp_path/d: train/dev/test per style and reference files with the bodies `refs`."""
    d = tmp_path / "d"
    d.mkdir(exist_ok=True)
    for st in (0, 1):
        train = [f"sentence number {i} of style {st} ." for i in range(25)]
        (d / f"train.{st}").write_text("\n".join(train) + "\n")
        (d / f"dev.{st}").write_text(f"a dev line {st} .\nanother dev line {st} .\n")
        (d / f"test.{st}").write_text("\n".join(test[st]) + "\n")
        (d / f"ref.{st}").write_text(refs[st])
    return {
        "styles": ["modern", "archaic"],
        "source": {"kind": "files", "files": {s: f"d/{s}.{{style}}" for s in ("train", "dev", "test")}},
        "normalize": {"lowercase": True, "tokenize": True},
        "references": {"files": ["d/ref.{style}"]},
    }


def test_forms_are_detected_per_file():
    assert reference_form(["a\tb", "c\td"], "f") == "tsv"
    assert reference_form(["a b", "c d"], "f") == "lines"
    with pytest.raises(InputError, match=r"f line 3 has no TAB, while 2 of its 3 lines"):
        reference_form(["a\tb", "c\td", "e f"], "f")
    with pytest.raises(InputError, match=r"f line 2 has a TAB, while 1 of its 3 lines"):
        reference_form(["a", "b\tc", "d"], "f")


def test_aligned_rewrites_and_tsv_rows_both_pair_each_test_sentence_with_its_rewrite(tmp_path):
    """Style 0 aligned (no TAB), style 1 source<TAB>rewrite in another order; the rows are the test sentences
    (lowercased, PTB-tokenized: "the tea is cold .") with their rewrites, never a sentence with itself."""
    cfg = dataset(
        tmp_path,
        {
            0: "The tea is cold as stone .\nWe wander homeward .\n",
            1: "Whither goest thou ?\tWhere are you going?\nThou art late .\tYou're late.\n",
        },
    )
    rows, forms = reference_rows(cfg, "x", tmp_path)
    assert forms == {"d/ref.0": "lines", "d/ref.1": "tsv"}
    assert rows[0] == [
        ("the tea is cold .", "the tea is cold as stone ."),
        ("we walk home .", "we wander homeward ."),
    ]
    assert rows[1] == [
        ("whither goest thou ?", "where are you going ?"),
        ("thou art late .", "you 're late ."),
    ]
    report = prepare_dataset(cfg, tmp_path, tmp_path / "out", name="x")
    assert report["references"] == {"0": 2, "1": 2}
    assert report["references_forms"] == forms
    written = (tmp_path / "out" / "references.0.tsv").read_text().splitlines()
    assert written == [
        "the tea is cold .\tthe tea is cold as stone .",
        "we walk home .\twe wander homeward .",
    ]
    assert read_json(tmp_path / "out" / "report.json") == report


@pytest.mark.parametrize(
    "body, message",
    [
        (
            "The tea is cold as stone .\n",
            r"d/ref.0: 1 lines of one rewrite each \(no TAB\), but the test file",
        ),
        ("one\n\n", r"d/ref.0 line 2 is empty"),
        (
            "The tea is cold .\tcold tea\nWe run home .\twe ran\n",
            r"d/ref.0 line 2: the source 'We run home \.'",
        ),
        ("The tea is cold .\tcold tea\nWe walk home .\n", r"d/ref.0 line 2 has no TAB"),
    ],
)
def test_a_file_that_would_be_read_wrong_stops_before_any_job(tmp_path, body, message):
    cfg = dataset(tmp_path, {0: body, 1: "Thou art late .\tYou're late.\nWhither goest thou ?\tWhere to?\n"})
    config = {"run": ["x"], "datasets": {"x": cfg}}
    with pytest.raises(InputError, match=message) as e:
        check_references(config, tmp_path)
    assert "Fix: " in str(e.value)
    with pytest.raises(InputError, match=message):
        prepare_dataset(cfg, tmp_path, tmp_path / "out", name="x")


def test_a_pool_dataset_takes_tsv_references_of_its_test_split_only(tmp_path):
    cfg = dataset(tmp_path, {0: "x\n", 1: "y\n"})
    cfg["source"]["files"] = {"pool": "d/train.{style}"}
    cfg["splits"] = {"dev_fraction": 0.1, "test_fraction": 0.1, "seed": 0}
    cfg["min_sentences"] = {"train": 5}
    with pytest.raises(InputError, match=r"the test set is split from a pool"):
        prepare_dataset(cfg, tmp_path, tmp_path / "out", name="x")


@pytest.mark.shared_data
@pytest.mark.parametrize("name", ["yelp", "amazon"])
def test_li_references_are_tsv_and_read_as_released(shared_data, name):
    """Li et al.'s references: every line source<TAB>rewrite; Amazon's sources are the test sentences in another
    order (its test lines end in a space). Rows: the file's own order, the source normalized, the rewrite
    PTB-tokenized; the first row written out by hand from the files."""
    from test_prepare import dataset_cfg

    cfg = dataset_cfg(name)
    rows, forms = reference_rows(cfg, name, shared_data)
    assert set(forms.values()) == {"tsv"} and len(rows[0]) == len(rows[1]) == 500
    first = {
        "yelp": (
            "ever since joes has changed hands it 's just gotten worse and worse .",
            "ever since joes has changed hands it 's gotten better and better .",
        ),
        "amazon": (
            "this is honestly the only case i ve thrown away in the garbage .",
            "this is honestly the only case i 've kept for so long .",
        ),
    }
    assert rows[0][0] == first[name]


def test_the_workflow_stops_at_start_on_a_mixed_references_file(tmp_path, repo_root):
    """The check runs when the workflow starts (rules/common.smk): a dry run already stops, naming the line."""
    import yaml
    from conftest import refusal

    cfg = dataset(
        tmp_path, {0: "The tea is cold .\tcold tea\nWe walk home .\n", 1: "Thou art late .\nWhither ?\n"}
    )
    config = yaml.safe_load((repo_root / "config.yaml").read_text())
    config.update(run=["x"], data_dir=str(tmp_path), transfer={**config["transfer"], "run_variants": []})
    config["datasets"]["x"] = cfg
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    message = refusal(repo_root, tmp_path)
    assert (
        message is not None
        and "d/ref.0 line 2 has no TAB, while 1 of its 2 lines are source<TAB>rewrite" in message
    )
