"""`tst transfer`: transfer new sentences with a trained checkpoint (tst.apply.transfer_lines)."""

from __future__ import annotations

import argparse
import pickle
import sys
from pathlib import Path

from tst import layout
from tst.cli.checks import check_files, dataset_root, fail

TRANSFER_HELP = """\
Transfer new sentences with a trained checkpoint: raw text in (one sentence per line), prepared exactly as the
dataset's text was (its normalize, ner and bpe settings from the config, its bpe.model), transferred by greedy
decoding or beam search (--beam, default the config's transfer.beam_width as the workflow's test transfers),
names put back: one line of words out per line in.

Exit code 2 when the command line is wrong (a missing file, an unknown dataset or style), 1 when a file's
content is (a byte that is not UTF-8, a checkpoint that cannot be loaded).

example:
  echo "John was rude to us" | tst transfer {checkpoint} \\
      --dataset-dir {root} --to-style positive --detokenize
"""


def demo_last_checkpoint() -> str:
    """The last checkpoint of the demo's models as config.yaml trains them (transfer.epochs x
    checkpoints_per_epoch), M0's of seed 1: the file `make run` leaves for `tst transfer`."""
    from tst.defaults import default
    from tst.names import checkpoint_labels

    last = checkpoint_labels(default("transfer", "epochs"), default("transfer", "checkpoints_per_epoch"))[-1]
    return layout.checkpoint("demo", "M0", 1, last)


def add_transfer(sub) -> None:
    example = {"checkpoint": demo_last_checkpoint(), "root": layout.root("demo")}
    p = sub.add_parser(
        "transfer",
        help="transfer new sentences with a trained checkpoint",
        description=TRANSFER_HELP.format(**example),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("checkpoint", help=f"a transfer checkpoint, e.g. {example['checkpoint']}")
    p.add_argument(
        "--dataset-dir",
        required=True,
        help=f"the dataset's results folder, {layout.root('<dataset>')} (as for tst score): its "
        f"{layout.DATA}/{layout.BPE_MODEL} when it uses BPE; its {layout.DATA} folder is read as it, with a warning",
    )
    p.add_argument(
        "--to-style",
        required=True,
        help="target style: 0, 1 or its name in the config (the input is of the other style)",
    )
    p.add_argument("--input", default="-", help="raw sentences, one per line (default -: stdin)")
    p.add_argument("--output", default="-", help="where the transfers go (default -: stdout)")
    p.add_argument(
        "--config",
        nargs="+",
        default=["config.yaml"],
        help="config file(s), later ones overlaying earlier ones as with snakemake --configfile "
        "(default: config.yaml)",
    )
    p.add_argument(
        "--dataset",
        help=f"dataset name in the config (default: DATASET_DIR's name, {layout.root('<dataset>')})",
    )
    p.add_argument(
        "--detokenize",
        action="store_true",
        help="write each transfer as people write text: cased as its input line (names, the first letter, I) "
        'and detokenized ("did n\'t" -> "didn\'t"); default: lowercased PTB tokens, as the corpus',
    )
    p.add_argument("--device", help="cpu, cuda, cuda:1 (default: CUDA when present)")
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument(
        "--beam",
        type=int,
        default=None,
        metavar="WIDTH",
        help="beam width, 1 = greedy (default: transfer.beam_width of the --config, as the workflow's test "
        "transfers; 1 without)",
    )
    p.add_argument("-v", "--verbose", action="store_true", help="log progress to stderr")
    p.set_defaults(func=cmd_transfer)


def cmd_transfer(args) -> list[str]:
    import yaml

    from tst.apply import style_index, transfer_lines
    from tst.config_files import dataset_settings, read_configs
    from tst.io import InputError, NotUTF8Error, decode_lines, read_lines, write_lines
    from tst.stages import beam_width

    check_files(
        "transfer", {"checkpoint": [args.checkpoint], "--input": [args.input], "--config": args.config}
    )
    if not Path(args.dataset_dir).is_dir():
        fail(
            "transfer",
            f"--dataset-dir {args.dataset_dir}: no such folder (pass {layout.root('<dataset>')})",
            2,
        )
    root = dataset_root("transfer", args.dataset_dir)
    name = args.dataset or root.resolve().name
    try:
        merged = read_configs(args.config)
        ds_cfg, nlp_cfg = dataset_settings(merged, name)
        to_style = style_index(args.to_style, list(ds_cfg.get("styles") or []))
        beam = args.beam if args.beam is not None else beam_width(merged)
        if beam < 1:
            raise ValueError(f"--beam {beam}: the beam width is 1 (greedy) or more")
    except (ValueError, yaml.YAMLError) as e:
        fail("transfer", str(e), 2)
    try:
        if args.input == "-":
            stdin = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else sys.stdin.read().encode()
            lines = decode_lines(stdin, "standard input")[0]
        else:
            lines = read_lines(args.input)
    except NotUTF8Error as e:
        fail("transfer", str(e), 1)
    try:
        out = transfer_lines(
            args.checkpoint,
            lines,
            to_style,
            ds_cfg,
            root / layout.DATA,
            nlp_cfg=nlp_cfg,
            device=args.device,
            batch_size=args.batch_size,
            beam_width=beam,
            detokenize=args.detokenize,
        )
    except (InputError, FileNotFoundError) as e:
        fail("transfer", str(e), 1)
    except (RuntimeError, KeyError, EOFError, pickle.UnpicklingError) as e:
        first = (str(e).splitlines() or [""])[0].split(". ")[0]
        fail(
            "transfer",
            f"cannot use checkpoint {args.checkpoint}: not a transfer checkpoint that loads with "
            f"torch.load(weights_only=True) ({type(e).__name__}: {first})",
            1,
        )
    if args.output == "-":
        sys.stdout.writelines(line + "\n" for line in out)
    else:
        write_lines(args.output, out)
    return out
