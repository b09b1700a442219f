"""Command-line interface: `tst <command>` or `python -m tst <command>`. Works without Snakemake.

One module per command: tst.cli.score (`tst score`), tst.cli.transfer (`tst transfer`), tst.cli.cost (`tst
cost`); what they check and how they stop: tst.cli.checks."""

from __future__ import annotations

import argparse
import logging
import sys

from tst.cli.checks import fail
from tst.cli.cost import add_cost
from tst.cli.score import add_score
from tst.cli.transfer import add_transfer


def package_version() -> str:
    """`tst --version`: the package version, the scoring code's hash and the checkout's commit (tst.signature)."""
    from tst import signature

    return f"{signature.version()} (scoring code {signature.scoring_code()}, commit {signature.commit()})"


class _Version(argparse.Action):
    """--version, worked out only when asked (the code hash and git are not for every command)."""

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"{parser.prog} {package_version()}")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="tst", description="Text style transfer pipeline commands.")
    ap.add_argument(
        "--version", action=_Version, nargs=0, help="show the version, the scoring code's hash and exit"
    )
    sub = ap.add_subparsers(dest="command", required=True)
    add_score(sub)
    add_transfer(sub)
    add_cost(sub)
    return ap


def main(argv=None) -> None:
    args, extra = build_parser().parse_known_args(argv)
    if extra:  # an unknown option is the subcommand's command-line mistake: its prefix, exit 2
        fail(args.command, f"unrecognized arguments: {' '.join(extra)} (see tst {args.command} --help)", 2)
    logging.basicConfig(
        level=logging.INFO if getattr(args, "verbose", False) else logging.ERROR,
        format="%(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    args.func(args)
