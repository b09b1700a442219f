"""Rule download_sentence_labels: GLUE's SST-2 training file into the data folder, from GLUE's zip or the mirror,
checked by size and sha256 (tst.data.sentence_labels.download_sst2)."""

from tst.data.sentence_labels import download_sst2
from tst.logs import log_to

sm = snakemake  # noqa: F821 (set by Snakemake)
with log_to(sm.log[0]):
    p = sm.params
    n = download_sst2(p.url, sm.output[0], p.member, p.sha256, p.size, whole_file=p.whole_file)
    print(f"{sm.output[0]}: {n} bytes, sha256 {p.sha256}")
