"""How separable are the literature styles at all? Dev accuracy of strong bag-of-n-gram classifiers on a prepared
literature dataset, beside the style CNN's recorded dev accuracy.

python bench/literature_acc_ceiling.py results/literature
Reads data/{train,dev}.{0,1}.txt (BPE pieces are joined back into words) and evaluators/style_cnn.pt's recorded
dev accuracy; fits TF-IDF logistic regressions on words (1-2-grams), characters (2-5-grams) and both, C in
{3, 10, 30}, and prints each dev accuracy and the majority-class share. Pang & Gimpel's 0.933 is for Dickens vs
modern fiction (unreleased); our stand-in is Dickens vs Austen with names masked."""

from __future__ import annotations

import sys
from pathlib import Path

import torch
from scipy.sparse import hstack
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression


def words(line: str) -> str:
    """A BPE-piece line ('▁un po lite ▁and') back to words; a word-level line is unchanged."""
    return "".join(line.split()).replace("\u2581", " ").strip() if "\u2581" in line else line.strip()


def labelled(data: Path, split: str) -> tuple[list[str], list[int]]:
    sents, labels = [], []
    for style in (0, 1):
        lines = (data / f"{split}.{style}.txt").read_text(encoding="utf-8").splitlines()
        sents += [words(s) for s in lines]
        labels += [style] * len(lines)
    return sents, labels


def main(root: Path) -> None:
    train, y = labelled(root / "data", "train")
    dev, dev_y = labelled(root / "data", "dev")
    print(
        f"train {len(train)}, dev {len(dev)}, dev majority share {max(dev_y.count(0), dev_y.count(1)) / len(dev_y):.3f}"
    )
    cnn = root / "evaluators" / "style_cnn.pt"
    if cnn.exists():
        print(
            f"style CNN (recorded dev accuracy): {torch.load(cnn, weights_only=True)['metrics']['dev_accuracy']:.3f}"
        )
    w = TfidfVectorizer(token_pattern=r"\S+", ngram_range=(1, 2), sublinear_tf=True)
    c = TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 5), sublinear_tf=True, min_df=2)
    xw, xc = w.fit_transform(train), c.fit_transform(train)
    dw, dc = w.transform(dev), c.transform(dev)
    for name, x, d in [
        ("words 1-2", xw, dw),
        ("chars 2-5", xc, dc),
        ("both", hstack([xw, xc]).tocsr(), hstack([dw, dc]).tocsr()),
    ]:
        for C in (3, 10, 30):
            model = LogisticRegression(C=C, max_iter=2000).fit(x, y)
            print(f"tf-idf LR {name}, C={C}: dev accuracy {(model.predict(d) == dev_y).mean():.3f}")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "results/literature"))
