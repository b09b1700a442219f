"""tst.imports.unimportable: a module cannot be imported inside the block, and imports as usual after it."""

import sys

import pytest

from tst.imports import unimportable


def test_unimportable_blocks_inside_the_block_only(tmp_path, monkeypatch):
    (tmp_path / "tst_probe_module.py").write_text("VALUE = 7\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with unimportable("tst_probe_module"), pytest.raises(ImportError):
        import tst_probe_module
    import tst_probe_module

    assert tst_probe_module.VALUE == 7
    with unimportable("tst_probe_module"):  # already imported: left as it is
        assert sys.modules["tst_probe_module"] is tst_probe_module


HEAVY = ("sklearn", "scipy", "scipy.stats", "scipy.sparse", "pandas")
NLTK_USES = """
import json, sys
{pre}
before = sorted(m for m in {heavy} if m in sys.modules)
{load}
from nltk.stem import PorterStemmer
from nltk.tokenize import TreebankWordTokenizer, word_tokenize
from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

hyp, ref = "the food was not good at all .".split(), "the food was good at all .".split()
print(json.dumps({
    "stems": [PorterStemmer().stem(w) for w in ("running", "happily", "generously", "caresses")],
    "words": word_tokenize("don't stop, it's $3.50!", preserve_line=True),
    "treebank": TreebankWordTokenizer().tokenize("they're (here)."),
    "bleu": [sentence_bleu([ref], hyp), sentence_bleu([ref], hyp, smoothing_function=SmoothingFunction().method1)],
    "before": before,
    "loaded": sorted(m for m in {heavy} if m in sys.modules),
}))
"""


@pytest.mark.parametrize("pre", ["", "import scipy.optimize"])
def test_load_nltk_skips_scikit_learn_and_scipy_and_changes_no_result(pre):
    """What the project uses of nltk (Porter stems, word_tokenize, the Treebank tokenizer, sentence BLEU with and
    without smoothing) gives the same values whether nltk was imported by load_nltk or as usual, in new
    processes; load_nltk's leaves scikit-learn, SciPy and pandas unimported, a plain import of nltk loads them.
    With SciPy already imported (pre, as a score job's scikit-learn does), load_nltk still adds none of them."""
    import json
    import subprocess

    def run(load):
        out = subprocess.run(
            [
                sys.executable,
                "-c",
                NLTK_USES.replace("{pre}", pre).replace("{heavy}", repr(HEAVY)).replace("{load}", load),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)

    light, plain = run("from tst.imports import load_nltk; load_nltk()"), run("import nltk")
    assert light.pop("loaded") == light.pop("before") == plain.pop("before")
    assert plain.pop("loaded") == sorted(HEAVY)
    assert light == plain
    assert plain["stems"] == ["run", "happili", "gener", "caress"]  # Porter's steps by hand
    # n-gram precisions by hand: 7/8 words ("not" is not in the reference), 5/7 bigrams, 3/6 trigrams, 1/5 4-grams
    # ("good at all ."); the output is longer than the reference, so no brevity penalty
    assert plain["bleu"][0] == pytest.approx((7 / 8 * 5 / 7 * 3 / 6 * 1 / 5) ** 0.25)
