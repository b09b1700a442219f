"""Prepare one dataset in one step: its corpus (tst.data.corpus.prepare_corpus: read -> normalize -> length filter
-> splits without leakage -> NER masking -> BPE), then its references (tst.data.references.prepare_references).

Writes the files of docs/interfaces.md "Prepared data" into out_dir, report.json with every count among them. The
workflow runs the two steps as two rules (prepare_data, prepare_references), so that a changed reference file
reruns the references and what reads them, never the corpus and the evaluators trained on it. The names of both
modules that callers use are importable from here.
"""

from __future__ import annotations

from pathlib import Path

from tst.data.corpus import (  # noqa: F401 (this module's names for them)
    DEFAULT_NER_LABELS,
    DROP_REASONS,
    MAX_SHARED_BETWEEN_STYLES,
    MIN_SENTENCES,
    SameSentences,
    TooFewSentences,
    check_min_sentences,
    check_styles_differ,
    corpus_outputs,
    expected_outputs,
    prepare_corpus,
    reference_outputs,
    released_pairs,
    shared_between_styles,
)
from tst.data.references import prepare_references, reference_release  # noqa: F401


def prepare_dataset(
    cfg: dict,
    data_dir: Path | None,
    out_dir: Path,
    nlp_cfg: dict | None = None,
    name: str = "dataset",
    backend=None,
) -> dict:
    """Build results/{dataset}/data/ for one dataset config (the `datasets.{name}` block); returns the report
    (report.json)."""
    corpus = prepare_corpus(cfg, data_dir, out_dir, nlp_cfg, name, backend)
    return prepare_references(cfg, data_dir, out_dir, nlp_cfg, name, backend, corpus)
