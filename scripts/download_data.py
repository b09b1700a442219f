"""Fetch one missing corpus file from its public URL (rule download_data; needs internet).

Snakemake (`script:`): snakemake.params.url -> snakemake.output[0]. By hand:
    python scripts/download_data.py URL OUT
"""

import sys
import urllib.request
from pathlib import Path


def download(url: str, out: str | Path, timeout: float = 60.0) -> int:
    """Download url to out (via a temporary file, so a failed download leaves nothing); returns bytes."""
    if not url:
        raise ValueError(f"no download URL is configured for {out}: add it to datasets.<name>.source.urls "
                         f"or place the file there by hand")
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".part")
    with urllib.request.urlopen(url, timeout=timeout) as r, open(tmp, "wb") as f:
        data = r.read()
        f.write(data)
    if not data:
        tmp.unlink()
        raise ValueError(f"empty download from {url}")
    tmp.replace(out)
    return len(data)


if __name__ == "__main__" and "snakemake" not in globals():
    print(download(sys.argv[1], sys.argv[2]))
elif "snakemake" in globals():
    sm = globals()["snakemake"]
    download(sm.params.url, sm.output[0])
