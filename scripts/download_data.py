"""Rule download_data: one missing data file from its public URL, or from the mirror (config data_mirror /
$TST_MIRROR) that copies the data folder; checked against its configured sha256 when there is one."""

from tst.data.downloads import download
from tst.logs import log_to

sm = snakemake  # noqa: F821 (set by Snakemake)
with log_to(sm.log[0]):
    download(sm.params.url, sm.output[0], sha256=sm.params.sha256)
