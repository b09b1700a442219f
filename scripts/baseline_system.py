"""Rule baseline_system: one sanity baseline's outputs for the test sources of one style (tst.baselines)."""

from tst.baselines import make
from tst.evaluators.embeddings import load_embeddings
from tst.io import read_json, read_lines, write_lines
from tst.logs import log_to

sm = snakemake  # noqa: F821 (set by Snakemake)
with log_to(sm.log[0]):
    sources = read_lines(sm.input.sources)
    outputs = make(
        sm.wildcards.system,
        sources,
        int(sm.wildcards.style),
        sm.params.seed,
        target_train=read_lines(path) if (path := sm.input.get("target_train")) else None,
        embeddings=load_embeddings(path) if (path := sm.input.get("embeddings")) else None,
        idf=read_json(path) if (path := sm.input.get("idf")) else None,
    )
    write_lines(sm.output.outputs, outputs)
    write_lines(sm.output.sources, sources)
