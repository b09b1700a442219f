"""Rule transfer_test: test transfers (greedy, or beam search: transfer.beam_width) of every test checkpoint of one trained model (both source
styles; *.unmasked.txt copies with the NER names put back)."""

from pathlib import Path

from tst.logs import log_to
from tst.train.transfer import transfer_test_files

sm = snakemake  # noqa: F821 (set by Snakemake)
with log_to(sm.log[0]):
    folder = Path(sm.input.last).parent
    labels = sm.params.checkpoints
    outputs = {c: sm.output[2 * i : 2 * i + 2] for i, c in enumerate(labels)}
    transfer_test_files(
        {c: folder / f"{c}.pt" for c in labels},
        sm.input.test,
        outputs,
        entities=sm.input.entities,
        threads=sm.threads,
        beam_width=sm.params.beam_width,
    )
