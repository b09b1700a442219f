"""What a finished run tells its user (the Snakefile's onsuccess): where the leaderboard, the tables, the plots
and every other output are, and the command that builds the report of this run, with the same --configfiles
(`make report` repeats the last `make run`'s SNAKEMAKE_ARGS, which LAST_RUN_ARGS records)."""

from __future__ import annotations

import shlex

from tst import layout

REPORT = f"{layout.RESULTS}/report.html"  # where `make report` writes the report
LAST_RUN_ARGS = (
    f"{layout.RESULTS}/.make_run_args"  # the SNAKEMAKE_ARGS of the last `make run` (the Makefile's)
)


def report_command(configfiles) -> str:
    """The snakemake command that builds the report of a run made with these --configfile arguments."""
    files = " ".join(shlex.quote(str(f)) for f in configfiles)
    return f"snakemake --report {REPORT}" + (f" --configfile {files}" if files else "")


def notes(config: dict, datasets) -> list[str]:
    """What a finished run says aloud beside where its outputs are: the tail baselines skipped where they do not
    apply (tst.stages.skipped_tails), then each dataset's warnings (results/{dataset}/warnings.md,
    tst.run_warnings)."""
    from tst.run_warnings import read_warnings
    from tst.stages import skipped_tails

    out = skipped_tails(config, datasets)
    for d in datasets:
        out += [f"{d}: WARNING: {w}" for w in read_warnings(layout.warnings(d))]
    return out


def message(datasets, configfiles, notes=()) -> str:
    """The lines a finished run prints: per dataset its leaderboard, tables, plots and results folder; the
    notes (tst.afterrun.notes: skipped baselines, warnings); then the report command (make report, or the
    snakemake command with the run's --configfiles)."""
    lines = ["", "Done."]
    for d in datasets:
        lines += [
            f"  {d}: leaderboard {layout.table(d, 'leaderboard', 'md')} (also .csv, .tex, .html)",
            (
                f"  {d}: every table in {layout.root(d)}/{layout.TABLES}/, every plot in "
                f"{layout.root(d)}/{layout.PLOTS}/, all outputs in {layout.root(d)}/"
            ),
        ]
    lines += [f"  {n}" for n in notes]
    lines += [
        f"The report (every table and plot in one page, {REPORT}): make report",
        f"  or: .venv/bin/{report_command(configfiles)}",
    ]
    return "\n".join(lines)
