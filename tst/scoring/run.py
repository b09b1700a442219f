"""score(request): one score request carried out — its files read (tst.scoring.read), every metric computed
(tst.scoring.compute), the score file written (tst.scoring.write) — the one function `tst score` and the
workflow's score jobs run. Derived metrics (GM) are added from the stored corpus scores by
tst.metrics.registry.add_derived (here when the request has gm_t, and by the report with the config's t, so that
changing t reloads no evaluator)."""

from __future__ import annotations

import logging
from pathlib import Path

from tst import signature
from tst.data.normalize import normalization_record
from tst.io import sha256_of, write_json
from tst.metrics.gm import for_test_set
from tst.metrics.registry import add_derived
from tst.scoring.compute import Scores, score_system
from tst.scoring.evaluator_files import Evaluators
from tst.scoring.read import read_inputs
from tst.scoring.request import ScoreRequest
from tst.scoring.write import score_json, write_score_tsv

log = logging.getLogger(__name__)


def score(request: ScoreRequest, evaluators: Evaluators | None = None, json_out=None, tsv_out=None) -> dict:
    """The score JSON object (docs/interfaces.md) of `request`; evaluators: the request's evaluator files
    loaded once across several requests (a workflow job scores every checkpoint of a system with one), None:
    loaded from request.evaluators; json_out / tsv_out: also write the JSON / the per-sentence TSV there. The
    JSON's metrics carry their own signatures and it ends with the default GM's `signature` (tst.signature:
    version, the GM's form and t_J, normalization, precision, evaluators, code)."""
    inputs = read_inputs(request)
    if request.sources_embedded:  # the sources' embeddings preloaded, the outputs encoded afresh
        from tst.metrics.sbert import scoring_bf16, start_run

        n = start_run(list(request.sources_embedded), bf16=scoring_bf16(request.options))
        log.info("preloaded %d sources' embeddings", n)
    evaluators = evaluators or Evaluators(request.evaluators, bpe=request.bpe)
    evaluators.start_run()  # no value computed in bf16 for an earlier run is reused (Evaluators.start_run)
    scores = score_system(
        inputs.sources,
        inputs.outputs,
        inputs.styles,
        evaluators,
        references=inputs.references,
        lists=inputs.lists,
        system=request.meta.get("system"),
        options=request.options,
        only=request.wanted(),
        progress=request.progress,
    )
    calibration = dict(request.calibration) if request.calibration is not None else None
    if "joint" in scores:  # a fixed sentence per style scores GM 0 on this test set too (tst.metrics.gm)
        calibration = for_test_set(calibration, scores["joint"].details)
    reader = inputs.reader
    obj = score_json(scores, dict(request.meta), len(inputs.outputs), reader.truncation())
    refs = inputs.references
    obj["n_with_reference"] = sum(1 for r in refs if r) if refs is not None else None
    obj["control_lines"] = dict(reader.control)
    if request.normalize is not None:
        obj["normalization"] = normalization_record(request.normalize)
        if request.ner is not None:  # the sources and references masked as the corpus (tst.scoring.read)
            obj["normalization"]["ner_masked"] = {
                "labels": dict(request.ner["labels"]),
                "of": "sources, references",
            }
    if (
        request.references
    ):  # which references ref-BLEU used (data/report.json maps them to the release's files)
        obj["references_sha256"] = {Path(p).name: sha256_of(p) for p in request.references}
    if request.encoding_errors != "strict":
        obj["input_encoding"] = {"errors": request.encoding_errors, "replaced_lines": dict(reader.replaced)}
    gm_t = request.gm_t
    if gm_t is not None:
        derived = add_derived(obj["metrics"], gm_t, calibration)  # computed plus derived, registry order
        wanted = request.only
        obj["metrics"] = {
            k: v for k, v in derived.items() if k in obj["metrics"] or wanted is None or k in wanted
        }
        for key, why in derived.skipped.items():
            if wanted is None or key in wanted:
                obj["skipped"][key] = why
                log.warning("skipped %s: %s", key, why)
    if request.ci is not None:
        add_intervals(obj, scores, dict(request.ci), gm_t, calibration)
    obj["precision"] = _precision(request)
    signature.add_metric_signatures(obj, request.options)  # each metric's own: what it was computed with
    obj["signature"] = signature.of_score_files(
        [obj], gm_t, (calibration or {}).get("t") if gm_t is not None else None
    )
    if json_out:
        write_json(json_out, obj)
    if tsv_out:
        write_score_tsv(tsv_out, scores, inputs.styles, request.resample_stats)
    return obj


def _precision(request: ScoreRequest) -> str:
    """The MiniLM's precision at inference in this request (evaluators.precision resolved on this machine:
    tst.metrics.sbert.scoring_bf16), which the signatures of the metrics that run it name."""
    from tst.metrics.sbert import scoring_bf16

    return "bf16" if scoring_bf16(request.options) else "fp32"


def add_intervals(obj: dict, scores: Scores, options: dict, gm_t=None, calibration=None) -> dict:
    """Add "ci95": [lo, hi] (tst.bootstrap: paired bootstrap over the sentences, percentile interval) to
    every metric of the score object `obj` that can be resampled, and "bootstrap": the settings, the method
    and the metrics left without an interval (key -> reason)."""
    from tst.bootstrap import METHOD, bootstrap_samples, confidence_intervals, resolve

    opt = resolve(options)
    samples, skipped = bootstrap_samples(scores, obj["n_sentences"], opt, gm_t, calibration)
    for key, interval in confidence_intervals(samples).items():
        if key in obj["metrics"] and interval is not None:
            obj["metrics"][key]["ci95"] = interval
    obj["bootstrap"] = {
        **opt,
        "method": METHOD.format(**opt),
        "no_interval": {k: v for k, v in skipped.items() if k in obj["metrics"]},
    }
    return obj
