"""Rules untransferred_system and reference_system: the systems every dataset has without training, for the
tables' reference rows: `source` (the untransferred input, Pang & Gimpel Table 6) and `reference` (the first
human rewrite of each line of references.{style}.tsv)."""

from tst.data.systems import references_as_system
from tst.io import read_lines, write_lines
from tst.logs import log_to

sm = snakemake  # noqa: F821 (set by Snakemake)
with log_to(sm.log[0]):
    if sm.rule == "reference_system":
        sources, outputs = references_as_system(read_lines(sm.input.references))
    else:
        sources = outputs = read_lines(sm.input.text)
    write_lines(sm.output.outputs, outputs)
    write_lines(sm.output.sources, sources)
