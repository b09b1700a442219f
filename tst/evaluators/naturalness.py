"""Adversarial naturalness classifiers (Mir et al. 2019 §4.4 and their code/naturalness.py): one per system,
trained to tell the system's inputs (human-written, label 1) from its outputs (label 0), test samples
excluded; naturalness of a text = P(human). (a) unigram logistic regression (binary word features, saved
as JSON); (b) "nn": an LSTM classifier as Mir's (torch dict; `arch: cnn` gives a Kim CNN, named so)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tst.evaluators.style_lexicon import unigram_matrix
from tst.imports import unimportable
from tst.io import read_json, write_json
from tst.vocab import Vocab


def split_data(
    human: list[list[str]], generated: list[list[str]], dev_fraction: float, seed: int, balance: bool = True
):
    """Balance the classes (subsample the larger side, as human corpora dwarf a system's outputs), then
    hold out dev_fraction of each class. Returns (train, train_y, dev, dev_y)."""
    rng = np.random.default_rng(seed)
    sides = [list(generated), list(human)]
    if balance:
        n = min(len(generated), len(human))
        sides = [[s[i] for i in sorted(rng.choice(len(s), n, replace=False))] for s in sides]
    tr, tr_y, dv, dv_y = [], [], [], []
    for label, sents in enumerate(sides):
        order = rng.permutation(len(sents))
        n_dev = round(len(sents) * dev_fraction)
        dv += [sents[i] for i in order[:n_dev]]
        dv_y += [label] * n_dev
        tr += [sents[i] for i in order[n_dev:]]
        tr_y += [label] * (len(sents) - n_dev)
    return tr, tr_y, dv, dv_y


class LRNaturalness:
    """P(human) = sigmoid(b + sum of weights of the distinct known words of the sentence)."""

    def __init__(self, vocab: list[str], coef, intercept: float, metrics: dict | None = None):
        self.vocab, self.coef, self.intercept = list(vocab), np.asarray(coef, np.float64), float(intercept)
        self.metrics = metrics or {}

    @property
    def description(self) -> str:
        """Names the C and how it was chosen (Mir et al.'s released classifiers use C per system)."""
        c, how = self.metrics.get("C"), self.metrics.get("C_chosen_by")
        tail = f", C = {c:g} ({how})" if c is not None and how else ""
        return f"unigram logistic regression (binary word features{tail})"

    def prob_human(self, sentences: list[list[str]]) -> np.ndarray:
        z = unigram_matrix(sentences, self.vocab) @ self.coef + self.intercept
        return 1.0 / (1.0 + np.exp(-z))

    def to_json(self) -> dict:
        return {
            "kind": "naturalness_lr",
            "vocab": self.vocab,
            "coef": self.coef.tolist(),
            "intercept": self.intercept,
            "metrics": self.metrics,
        }


class CNNNaturalness:
    """A torch classifier (LSTM by default, or Kim CNN) with label 1 = human."""

    def __init__(self, classifier, metrics: dict | None = None):
        self.classifier, self.metrics = classifier, metrics or {}
        self.description = {"lstm_classifier": "LSTM classifier", "text_cnn": "Kim CNN classifier"}.get(
            classifier.kind, classifier.kind
        )

    def prob_human(self, sentences: list[list[str]]) -> np.ndarray:
        return self.classifier.predict_proba(sentences)[:, 1]


def _sklearn():
    """scikit-learn's LogisticRegression and StratifiedKFold, imported with pandas unimportable: scikit-learn
    try-imports it whenever it is installed (~0.45 s of a ~2.3 s import), for DataFrame inputs these
    numpy and sparse matrices are not."""
    with unimportable("pandas"):
        from sklearn.linear_model import LogisticRegression
        from sklearn.model_selection import StratifiedKFold

    return LogisticRegression, StratifiedKFold


def _fit_lr(x, y, C: float, seed: int):
    LogisticRegression, _ = _sklearn()

    return LogisticRegression(C=C, solver="liblinear", random_state=seed, max_iter=1000).fit(x, y)


def choose_C(x, y, grid, folds: int = 5, seed: int = 1) -> tuple[float, dict[str, float]]:
    """C with the best mean held-out accuracy over `folds` stratified folds (shuffled with `seed`); ties go to
    the smaller C (stronger regularisation). Returns (C, {C: mean accuracy})."""
    _, StratifiedKFold = _sklearn()
    y = np.asarray(y)
    splits = list(StratifiedKFold(folds, shuffle=True, random_state=seed).split(np.zeros(len(y)), y))
    scores = {}
    for c in sorted(float(c) for c in grid):
        accs = [(_fit_lr(x[tr], y[tr], c, seed).predict(x[te]) == y[te]).mean() for tr, te in splits]
        scores[c] = float(np.mean(accs))
    best = max(scores.values())
    return min(c for c, a in scores.items() if a == best), {f"{c:g}": a for c, a in scores.items()}


def train_naturalness_lr(
    human,
    generated,
    C: float | None = None,
    dev_fraction: float = 0.1,
    seed: int = 1,
    min_count: int = 1,
    C_grid=None,
    cv_folds: int = 5,
) -> LRNaturalness:
    """C None: chosen per system by `choose_C` on `C_grid` (config.yaml `evaluators.naturalness.lr`, the one
    place the grid is written) on the training part; a number fixes it. Both are recorded in the model's
    metrics (C, C_chosen_by, and the CV accuracy per C). Mir et al.'s code
    (passeul/style-transfer-model-evaluation@4ca376d) has no training script for its unigram classifiers; the
    pickles it releases (models/naturalness_classifiers/unigram_{ARAE,CAAE,DAR}.pkl, liblinear, L2) hold
    C = 0.1, 7 and 2, i.e. C differs per system."""
    from collections import Counter

    tr, tr_y, dv, dv_y = split_data(human, generated, dev_fraction, seed)
    counts = Counter(t for s in tr for t in set(s))
    vocab = sorted(w for w, c in counts.items() if c >= min_count)
    x, y = unigram_matrix(tr, vocab), np.asarray(tr_y)
    info: dict = {"C": C, "C_chosen_by": "fixed in the config"}
    if C is None:
        if not C_grid:
            raise ValueError("naturalness LR: give C, or C_grid to choose C by cross-validation")
        C, cv = choose_C(x, y, C_grid, cv_folds, seed)
        grid = ", ".join(f"{c:g}" for c in sorted(C_grid))
        info = {"C": C, "C_chosen_by": f"{cv_folds}-fold CV accuracy on [{grid}]", "cv_accuracy": cv}
    lr = _fit_lr(x, y, C, seed)
    model = LRNaturalness(vocab, lr.coef_[0], lr.intercept_[0])
    acc = float(((model.prob_human(dv) > 0.5) == np.asarray(dv_y, bool)).mean()) if dv else None
    model.metrics = {"dev_accuracy": acc, "n_train": len(tr), "n_dev": len(dv), **info}
    return model


def train_naturalness_cnn(
    human,
    generated,
    model_cfg: dict | None = None,
    train_cfg: dict | None = None,
    dev_fraction: float | None = None,
    min_count: int | None = None,
    log=print,
    arch: str = "lstm",
) -> dict:
    """Checkpoint dict of a torch classifier (label 1 = human; arch "lstm", Mir's, or "cnn"), vocabulary from
    its own training text (the workflow's is Mir et al.'s LSTM). What the arguments leave out (None) is
    evaluators.naturalness.nn's, resolved (tst.defaults.evaluator_defaults)."""
    from tst.defaults import evaluator_defaults
    from tst.evaluators.classifiers import train_classifier

    block = evaluator_defaults("naturalness.nn")
    dev_fraction = block["dev_fraction"] if dev_fraction is None else dev_fraction
    min_count = block["min_count"] if min_count is None else min_count
    train_cfg = dict(train_cfg or {})
    tr, tr_y, dv, dv_y = split_data(human, generated, dev_fraction, train_cfg.get("seed", block["seed"]))
    vocab = Vocab.build(tr, min_count=min_count)
    kind = {"lstm": "lstm_classifier", "cnn": "text_cnn"}[arch]
    ckpt = train_classifier(
        tr, tr_y, dv, dv_y, vocab, kind, model_cfg, train_cfg, log, section="naturalness.nn"
    )
    ckpt["naturalness"] = True
    return ckpt


class CrossFitNaturalness:
    """Classifiers each trained on one fold of a system's outputs. A sentence one fold trained on is scored
    by the other folds only, so outputs are never judged by a classifier that saw them (needed when the
    outputs scored are the outputs trained on, e.g. an external system's test outputs)."""

    def __init__(self, folds: list, seen: list[list[str]]):
        self.folds, self.seen = folds, [set(s) for s in seen]
        self.description = (
            f"{getattr(folds[0], 'description', 'classifier')}, cross-fitted on {len(folds)} folds"
        )

    def prob_human(self, sentences: list[list[str]]) -> np.ndarray:
        probs = np.stack([fold.prob_human(sentences) for fold in self.folds])  # [folds, n]
        out = np.empty(len(sentences))
        for i, sentence in enumerate(sentences):
            text = " ".join(sentence)
            unseen = [k for k, seen in enumerate(self.seen) if text not in seen] or range(len(self.folds))
            out[i] = probs[list(unseen), i].mean()
        return out


def cross_fit_folds(generated: list[list[str]], n_folds: int = 2) -> list[list[list[str]]]:
    """Outputs split into folds by line position (line i goes to fold i mod n_folds)."""
    return [generated[k::n_folds] for k in range(n_folds)]


def save_naturalness(obj, path: str | Path, seen: list[list[str]] | None = None) -> None:
    """LRNaturalness -> JSON; a CNN checkpoint dict -> torch file. A list of them (cross-fitted folds)
    is saved with `seen`, the output sentences each fold trained on."""
    if isinstance(obj, list):
        folds = [m.to_json() if isinstance(m, LRNaturalness) else m for m in obj]
        obj = {"kind": "naturalness_cross_fit", "folds": folds, "seen": seen}
    if isinstance(obj, LRNaturalness) or str(path).endswith(".json"):
        write_json(path, obj.to_json() if isinstance(obj, LRNaturalness) else obj)
    else:
        import torch

        Path(path).parent.mkdir(parents=True, exist_ok=True)
        torch.save(obj, path)


def _lr_from_json(d: dict) -> LRNaturalness:
    return LRNaturalness(d["vocab"], d["coef"], d["intercept"], d.get("metrics"))


def _cnn_from_checkpoint(ckpt: dict) -> CNNNaturalness:
    from tst.evaluators.classifiers import classifier_from_checkpoint

    return CNNNaturalness(classifier_from_checkpoint(ckpt), ckpt.get("metrics"))


def load_naturalness(path: str | Path):
    """-> object with prob_human(sentences) -> np.ndarray [n]."""
    if str(path).endswith(".json"):
        d, build = read_json(path), _lr_from_json
    else:
        import torch

        d, build = torch.load(path, map_location="cpu", weights_only=True), _cnn_from_checkpoint
    if d.get("kind") == "naturalness_cross_fit":
        return CrossFitNaturalness([build(f) for f in d["folds"]], d["seen"])
    return build(d)
