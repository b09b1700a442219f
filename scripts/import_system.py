"""Rule import_system: an external system's test outputs (Li et al. TSV, or plain aligned lines) for one
source style -> aligned outputs / sources files."""

import json
import logging

from tst.data.sources import resolve_data_dir
from tst.data.systems import import_system
from tst.io import write_lines
from tst.logs import log_to

sm = snakemake  # noqa: F821 (set by Snakemake)
with log_to(sm.log[0]):
    sources, outputs, counts = import_system(
        sm.params.spec,
        sm.params.dataset,
        resolve_data_dir(sm.config.get("data_dir")),
        int(sm.wildcards.style),
        sm.wildcards.dataset,
        sm.wildcards.system,
    )
    write_lines(sm.output.outputs, outputs)
    write_lines(sm.output.sources, sources)
    logging.getLogger("import_system").info(json.dumps(counts))
