"""Rule download_data: one missing corpus file from its public URL (needs internet)."""

from tst.data.sources import download
from tst.logs import log_to

sm = snakemake  # noqa: F821 (set by Snakemake)
with log_to(sm.log[0]):
    download(sm.params.url, sm.output[0])
