"""Importing external system outputs (Li et al. 2018) and the human references as a system."""

import pytest
import yaml
from conftest import run_script

from tst.data.downloads import download
from tst.data.systems import import_system
from tst.io import read_lines

CFG = {
    "styles": ["negative", "positive"],
    "normalize": {"lowercase": True},
    "source": {"kind": "files", "files": {"test": "t.{style}"}},
}


@pytest.fixture(scope="module")
def yelp_cfg(repo_root):
    return yaml.safe_load((repo_root / "configs" / "yelp.yaml").read_text())["datasets"]["yelp"]


@pytest.mark.shared_data
@pytest.mark.parametrize(
    "system", ["mit", "multi_decoder", "fader", "retrieval", "rule_base", "label", "orgin"]
)
def test_li_outputs_align_with_li_test(shared_data, yelp_cfg, system):
    for style in (0, 1):
        src, out, counts = import_system(
            yelp_cfg["systems"][system], yelp_cfg, shared_data, style, "yelp", system
        )
        test = [" ".join(x.split()) for x in read_lines(shared_data / f"yelp/li/sentiment.test.{style}")]
        assert src == test and len(out) == 500 and counts["lines"] == 500


@pytest.mark.shared_data
def test_mit_first_output_and_human_reference(shared_data, yelp_cfg):
    _, out, _ = import_system(yelp_cfg["systems"]["mit"], yelp_cfg, shared_data, 0, "yelp", "mit")
    # first line of yelp/li/outputs/sentiment.test.0.mit, column 2
    assert out[0] == "i recommend that has out to it 's always great and fun ."
    src, ref, _ = import_system(yelp_cfg["systems"]["human"], yelp_cfg, shared_data, 0, "yelp", "human")
    assert src[0] == "ever since joes has changed hands it 's just gotten worse and worse ."
    # raw "Ever since joes has changed hands it's gotten better and better." -> PTB tokens, lowercased
    assert ref[0] == "ever since joes has changed hands it 's gotten better and better ."


@pytest.mark.shared_data
def test_amazon_label_system_has_499_lines(shared_data, repo_root):
    cfg = yaml.safe_load((repo_root / "configs" / "amazon.yaml").read_text())["datasets"]["amazon"]
    src, out, _ = import_system(cfg["systems"]["label"], cfg, shared_data, 0, "amazon", "label")
    assert (
        len(src) == len(out) == 499
        and src[0] == "if your bike had a kickstand on the plate it won t lock down ."
    )


def test_lines_format_keeps_empty_outputs(tmp_path):
    (tmp_path / "t.0").write_text("The food was BAD .\nslow service .\n")
    (tmp_path / "out.0").write_text("the food was good .\n\n")
    src, out, counts = import_system({"file": "out.{style}", "format": "lines"}, CFG, tmp_path, 0)
    assert src == ["the food was bad .", "slow service ."] and out == ["the food was good .", ""]
    assert counts == {"lines": 2, "empty_outputs": 1, "copied": 0}
    (tmp_path / "out.1").write_text("one\n")
    (tmp_path / "t.1").write_text("a\nb\n")
    with pytest.raises(ValueError, match="1 outputs but 2 source lines"):
        import_system({"file": "out.{style}", "format": "lines"}, CFG, tmp_path, 1)


def test_import_system_script_writes_aligned_files(tmp_path):
    (tmp_path / "t.0").write_text("The food was BAD .\n")
    (tmp_path / "sys.0").write_text("The food was BAD .\tthe food was good .\t0\n")
    run_script(
        "import_system",
        output={
            "outputs": str(tmp_path / "o/test.final.0.txt"),
            "sources": str(tmp_path / "o/test.final.sources.0.txt"),
        },
        params={"spec": {"file": "sys.{style}"}, "dataset": CFG},
        wildcards={"dataset": "demo", "system": "x", "style": "0"},
        log=[str(tmp_path / "i.log")],
        config={"data_dir": str(tmp_path)},
    )
    assert read_lines(tmp_path / "o/test.final.0.txt") == ["the food was good ."]
    assert read_lines(tmp_path / "o/test.final.sources.0.txt") == ["the food was bad ."]
    assert '"lines": 1' in (tmp_path / "i.log").read_text()


def test_download_without_url_names_the_config_key(tmp_path):
    with pytest.raises(ValueError, match="source.urls"):
        download(None, tmp_path / "x.txt")
    assert not (tmp_path / "x.txt").exists()
