"""Rules score_ours / score_external: every run of one system (split x checkpoint) scored with every metric
of the registry whose evaluator exists, each evaluator loaded once. Inputs hold two files (style 0, 1) per
run, in the order of params.runs; one JSON + TSV per run; the runs scored of the total, the rate and the time
left are logged every 30 s (tst.progress). On BPE datasets input.bpe is the dataset's
bpe.model: the classifiers and LMs trained on pieces read the word-level text encoded with it."""

import logging
from pathlib import Path

from tst.data.normalize import normalization_record
from tst.logs import log_to
from tst.metrics.registry import ScoreOptions
from tst.names import sbert_sources_file, system_name
from tst.progress import Progress
from tst.scoring.evaluator_files import Evaluators
from tst.scoring.request import ScoreRequest
from tst.scoring.run import score
from tst.scoring.write import coverage_warnings, score_meta

sm = snakemake  # noqa: F821 (set by Snakemake)
with log_to(sm.log[0]):
    w = sm.wildcards
    options = ScoreOptions.of(sm.params.options)  # resolved once for every run of the job
    system = w.get("system") or system_name(w.variant, w.seed)
    evaluators = Evaluators(Path(sm.input.evaluators[0]).parent, bpe=sm.input.get("bpe") or None)
    # the sources' sentence embeddings, encoded once per split (rule embed_sources): file name -> path
    sbert = {Path(f).name: str(f) for f in sm.input.get("sbert_sources") or []}
    # the dataset's text and its systems' outputs were normalized when prepared and imported (tst.data.prepare,
    # tst.data.systems), with the dataset's `normalize:` block: the score files say so, and their signature
    normalization = normalization_record(
        {
            "normalize": sm.params.get("normalize") or {},
            "from": f"datasets.{w.dataset}.normalize, when prepared",
        }
    )
    json_out, tsv_out = ([o] if isinstance(o, str) else list(o) for o in (sm.output.json, sm.output.tsv))
    progress = Progress(len(sm.params.runs), f"score {w.dataset} {system}", unit="run")
    for i, (split, checkpoint) in enumerate(sm.params.runs):
        pair = slice(2 * i, 2 * i + 2)
        request = ScoreRequest(
            sm.input.sources[pair],
            sm.input.outputs[pair],
            [0, 1],
            meta={**score_meta(w.dataset, system, split, checkpoint), "normalization": normalization},
            references=sm.input.get("references", []) if split == "test" else [],
            lists=sm.input.get("lists", [])[pair],
            lists_text=sm.input.get("lists_text", [])[pair],
            options=options,
            max_words=sm.params.max_words,
            resample_stats=True,  # the key:stat columns the leaderboard's bootstrap resamples
            # the split's sources preloaded, this run's outputs encoded afresh
            sources_embedded=[sbert[sbert_sources_file(split, ext)] for ext in ("npy", "txt")]
            if sbert
            else [],
        )
        obj = score(request, evaluators, json_out=json_out[i], tsv_out=tsv_out[i])
        for warning in coverage_warnings(obj):
            logging.getLogger("score").warning("%s %s: %s", split, checkpoint, warning)
        progress.update(1)
