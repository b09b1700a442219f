"""Rule extract_system: a released system's outputs cut out of the file its authors released (config `extract`)."""

from pathlib import Path

from tst.data.systems import extract_outputs
from tst.logs import log_to

sm = snakemake  # noqa: F821 (set by Snakemake)
with log_to(sm.log[0]):
    out = Path(sm.output[0])
    tmp = out.with_name(out.name + ".part")
    tmp.write_bytes(extract_outputs(Path(sm.input[0]).read_bytes(), sm.params.spec, sm.params.key))
    tmp.replace(out)
