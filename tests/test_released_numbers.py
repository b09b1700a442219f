"""Numbers from the authors' released code and outputs, reproduced by this package's metrics.

Each test names its source (repository@commit, file, function). The expected values are computed here
from the authors' formula (re-implemented in the test) or copied from their released score files."""

import warnings

import numpy as np
import pytest

from tst.io import read_lines


def _st_evaluator_bleu(hyp: str, ref: str) -> float:
    """fastnlp/style-transformer@5105cb58 evaluator/evaluator.py, Evaluator.nltk_bleu: word_tokenize of the
    lowercased, stripped texts, nltk sentence_bleu with its defaults (BLEU-4, uniform weights, no
    smoothing), times 100; self_bleu_b / yelp_ref_bleu average it over the lines."""
    from nltk.tokenize import word_tokenize
    from nltk.translate.bleu_score import sentence_bleu

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return (
            sentence_bleu(
                [word_tokenize(ref.lower().strip(), preserve_line=True)],
                word_tokenize(hyp.lower().strip(), preserve_line=True),
            )
            * 100
        )


@pytest.mark.shared_data
@pytest.mark.parametrize("style", [0, 1])
def test_style_transformer_bleu_on_its_released_yelp_outputs(shared_data, style):
    """Style Transformer's released Yelp outputs (fastnlp/style-transformer@5105cb58
    outputs/yelp/output.{0,1}.ours_multi = ../shared/data/yelp/released/style_transformer_multi.{0,1}), first
    150 lines per style, scored with our bleu_self_st (against Li et al.'s test sources) and bleu_ref_st
    (against Li et al.'s human references, lijuncen/Sentiment-and-Style-Transfer@14a48fa3 reference.{0,1});
    expected: the Style Transformer evaluator's self_bleu_b / yelp_ref_bleu_{0,1} formula applied here."""
    from tst.metrics.bleu import ref_bleu, self_bleu

    n = 150
    outputs = read_lines(shared_data / f"yelp/released/style_transformer_multi.{style}")[:n]
    sources = read_lines(shared_data / f"yelp/li/sentiment.test.{style}")[:n]
    refs = [line.split("\t")[-1] for line in read_lines(shared_data / f"yelp/li/reference.{style}")[:n]]
    want_self = np.mean([_st_evaluator_bleu(o, s) for o, s in zip(outputs, sources)])
    want_ref = np.mean([_st_evaluator_bleu(o, r) for o, r in zip(outputs, refs)])
    got_self = self_bleu(sources, outputs, "st")
    got_ref = ref_bleu(outputs, [[r] for r in refs], "st")
    assert got_self.name == "bleu_self_st" and got_ref.name == "bleu_ref_st"
    assert got_self.score == pytest.approx(want_self, abs=1e-9)
    assert got_ref.score == pytest.approx(want_ref, abs=1e-9)
    assert (
        0 < got_ref.score < got_self.score < 100
    )  # a real system: keeps more of the source than the refs do


# passeul/style-transfer-model-evaluation@4ca376d, released with Mir et al. 2019:
# evaluations/automated/style_transfer_intensity/sentence_level/style_distributions/input_distributions.npz
# and .../ARAE_lambda_1.npz (key "textcnn": P(negative), P(positive) of the input and the ARAE output), and
# .../scores_based_on_emd/ARAE_lambda_1.npz ("textcnn": the STI they computed with
# code/style_transfer_intensity.py calculate_direction_corrected_emd, pyemd with a ones ground-distance
# matrix). Rows 0, 1, 2 (negative inputs, target 1) and 131, 132 (positive inputs, target 0) of 244; all 244
# agree to 5.3e-7.
MIR_STI_ROWS = [
    # (row, target, input distribution, output distribution, released STI)
    (
        0,
        1,
        [0.8831909894943237, 0.11680907011032104],
        [0.013278241269290447, 0.9867217540740967],
        0.869913116112113,
    ),
    (
        1,
        1,
        [0.22125837206840515, 0.7787416577339172],
        [0.00026023181271739304, 0.9997397065162659],
        0.22099809805959278,
    ),
    (
        2,
        1,
        [0.9998623132705688, 0.00013770662189926952],
        [0.029162097722291946, 0.9708378314971924],
        0.9707001099826027,
    ),
    (
        131,
        0,
        [0.0005984640447422862, 0.9994015693664551],
        [0.061983998864889145, 0.9380160570144653],
        0.06138602589836717,
    ),
    (
        132,
        0,
        [0.00035456224577501416, 0.999645471572876],
        [0.9999476671218872, 5.230291935731657e-05],
        0.9995930975822932,
    ),
]


@pytest.mark.parametrize("row,target,p_in,p_out,released", MIR_STI_ROWS)
def test_sti_reproduces_mirs_released_sentence_scores(row, target, p_in, p_out, released):
    from tst.metrics.sti import direction_corrected_emd

    assert direction_corrected_emd(p_in, p_out, target) == pytest.approx(released, abs=1e-6)
