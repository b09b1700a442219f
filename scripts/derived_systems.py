"""Systems every dataset has without anyone training them, for the tables' reference rows:
`source` (the untransferred input, Pang & Gimpel Table 6) and `reference` (the human rewrites of the prepared
references file, for datasets whose config declares no `human` system, e.g. the demo corpus).

Snakemake (`script:`): snakemake.input.text (test sentences of one style) or .references (references.{style}.tsv),
snakemake.output.outputs / .sources.
"""

from tst.io import read_lines, write_lines


def untransferred(text_path, outputs_path, sources_path) -> None:
    lines = read_lines(text_path)
    write_lines(outputs_path, lines)
    write_lines(sources_path, lines)


def references_as_system(references_path, outputs_path, sources_path) -> None:
    """references.{style}.tsv: source<TAB>rewrite[<TAB>rewrite...]; the first rewrite is the system's output."""
    rows = [line.split("\t") for line in read_lines(references_path) if line]
    write_lines(sources_path, (row[0] for row in rows))
    write_lines(outputs_path, (row[1] if len(row) > 1 else "" for row in rows))


if __name__ == "__main__":
    out = snakemake.output  # noqa: F821 (provided by Snakemake)
    if snakemake.rule == "reference_system":  # noqa: F821
        references_as_system(snakemake.input.references, out.outputs, out.sources)  # noqa: F821
    else:  # untransferred_system
        untransferred(snakemake.input.text, out.outputs, out.sources)  # noqa: F821
