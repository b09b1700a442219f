"""Rule validity_checks: content separation of every content metric on the human references, and the scores
of word-order-damaged copies of every honest system (tst.validity) -> validity/checks.json."""

from tst.io import read_lines, write_json
from tst.logs import log_to
from tst.metrics.registry import ScoreOptions
from tst.metrics.sbert import preload_files, scoring_bf16
from tst.scoring.evaluator_files import Evaluators
from tst.validity import content_separation, word_order_damage

sm = snakemake  # noqa: F821 (set by Snakemake)
with log_to(sm.log[0]):
    ev = Evaluators(sm.params.evaluators_dir, sm.input.get("bpe") or None)
    seed, options = sm.params.seed, ScoreOptions.of(sm.params.options)  # resolved once for every check
    if sm.input.get("sbert_sources"):  # the test sources' sentence embeddings (rule embed_sources)
        preload_files(sm.input.sbert_sources, bf16=scoring_bf16(options))
    refs = {style: read_lines(path) for style, path in enumerate(sm.input.get("references") or [])}
    systems = {}
    for i, name in enumerate(sm.params.systems):  # two files (style 0, 1) per system, in order
        sources, outputs, styles = [], [], []
        for style in (0, 1):
            src = read_lines(sm.input.sources[2 * i + style])
            sources += src
            outputs += read_lines(sm.input.outputs[2 * i + style])
            styles += [style] * len(src)
        systems[name] = (sources, outputs, styles)
    write_json(
        sm.output.checks,
        {
            "separation": content_separation(refs, ev, options, seed) if refs else None,
            "word_order": word_order_damage(systems, ev, options, seed),
        },
    )
