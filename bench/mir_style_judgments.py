"""The style readings against Mir et al.'s (2019) human judgments of style transfer intensity.

Mir et al. released, for 12 settings of three models (ARAE lambda 1/5/10, CAAE rho 0.01/0.1/0.5/1/5, DAR gamma
0.1/1/15/500), the outputs on 122 + 122 Yelp test sentences and people's mean rating of how much each output
moved to the target style (`evaluations/human/style_transfer_intensity/*.npy`: the first half rewrites
`data/sentiment.test.0` to positive, the second `data/sentiment.test.1` to negative), with their classifiers'
style distributions (`evaluations/automated/.../style_distributions/*.npz`). Their code correlates a metric
with the ratings by Pearson's r, pooled over each model's settings (`code/style_transfer_intensity.py`,
`display_correlation_tables`). This prints the same, and Spearman's rho, per model and over all 12 settings
pooled, for:

- `mir_textcnn_emd`: their direction-corrected EMD from their TextCNN's released distributions (what their
  `display_correlation_tables` computes for it);
- `sti_cnn`: the registry's `sti` (Mir's formula) on the given stage's CNN (`style_cnn.pt`);
- `minilm_whole`: P(target) of the whole output by the stage's style classifier (`style_minilm.pt`);
- `style`: R(y | x), the style score (tst.metrics.style);
- `style_gain`: s_i, the default GM's style factor (the gain of a crossing, tst.metrics.style.gain_of).

    git clone https://github.com/passeul/style-transfer-model-evaluation mir
    python bench/mir_style_judgments.py --mir mir --evaluators results/yelp/evaluators [--json out.json]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from scipy import stats

from tst.io import read_lines

# Mir et al.'s code/globals.py: each model's hyperparameter and its settings
SETTINGS = {
    "ARAE": ("lambda", [1, 5, 10]),
    "CAAE": ("rho", [0.01, 0.1, 0.5, 1, 5]),
    "DAR": ("gamma", [0.1, 1, 15, 500]),
}
DISTRIBUTIONS = "evaluations/automated/style_transfer_intensity/sentence_level/style_distributions"


def settings(mir: Path):
    """(model, setting name, its folder name) for the 12 settings, in Mir et al.'s order."""
    for model, (param, values) in SETTINGS.items():
        for v in values:
            val = str(v).replace(".", "_")
            yield model, f"{model}_{param}_{val}", f"{param}_{val}"


def load(mir: Path):
    """Per setting: sources, outputs, target styles, people's ratings, Mir's TextCNN distributions of the
    outputs; and Mir's distributions of the sources."""
    sources = read_lines(mir / "data/sentiment.test.0") + read_lines(mir / "data/sentiment.test.1")
    half = len(sources) // 2
    targets = np.array([1] * half + [0] * (len(sources) - half))
    source_cnn = np.load(mir / DISTRIBUTIONS / "input_distributions.npz", allow_pickle=False)["textcnn"]
    rows = []
    for model, name, folder in settings(mir):
        out_dir = mir / "transfer_model_outputs" / model / folder
        outputs = read_lines(out_dir / "sentiment.test.0.tsf") + read_lines(out_dir / "sentiment.test.1.tsf")
        ratings = np.load(mir / f"evaluations/human/style_transfer_intensity/{name}.npy", allow_pickle=False)
        cnn = np.load(mir / DISTRIBUTIONS / f"{name}.npz", allow_pickle=False)["textcnn"]
        if not (len(outputs) == len(ratings) == len(cnn) == len(sources)):
            raise ValueError(
                f"{name}: {len(outputs)} outputs, {len(ratings)} ratings, {len(cnn)} distributions, "
                f"{len(sources)} sources: they must align"
            )
        rows.append({"model": model, "setting": name, "outputs": outputs, "ratings": ratings, "mir_cnn": cnn})
    return sources, targets, source_cnn.astype(np.float64), rows


def readings(sources, targets, source_cnn, rows, evaluators: Path) -> None:
    """Adds each reading (module docstring) to each row, one array per setting."""
    from tst.evaluators.classifiers import load_classifier
    from tst.metrics.acc import empty_mask, output_probs
    from tst.metrics.sti import direction_corrected_emd, sti
    from tst.metrics.style import gain_of, part_probs, style_probability

    minilm = load_classifier(evaluators / "style_minilm.pt")
    cnn = load_classifier(evaluators / "style_cnn.pt")
    r_sources = part_probs(sources, sources, targets, minilm)
    for row in rows:
        out = row["outputs"]
        row["mir_textcnn_emd"] = np.array(
            [direction_corrected_emd(p, q, int(t)) for p, q, t in zip(source_cnn, row["mir_cnn"], targets)]
        )
        row["sti_cnn"] = np.array(sti(sources, out, targets, cnn).per_sentence)
        row["minilm_whole"] = output_probs(out, targets, minilm)[np.arange(len(out)), targets]
        r = np.array(style_probability(out, targets, minilm, sources=sources).per_sentence)
        row["style"] = r
        gain = gain_of(r, r_sources)
        gain[empty_mask(out)] = 0.0
        row["style_gain"] = gain


READINGS = ("mir_textcnn_emd", "sti_cnn", "minilm_whole", "style", "style_gain")


def correlations(rows) -> dict:
    """{group: {reading: {"pearson", "spearman", "n"}}} per model (its settings pooled) and over all."""
    groups = {m: [r for r in rows if r["model"] == m] for m in SETTINGS} | {"all": rows}
    out = {}
    for g, rs in groups.items():
        people = np.concatenate([r["ratings"] for r in rs])
        out[g] = {}
        for k in READINGS:
            x = np.concatenate([r[k] for r in rs])
            out[g][k] = {
                "pearson": round(float(stats.pearsonr(x, people).statistic), 4),
                "spearman": round(float(stats.spearmanr(x, people).statistic), 4),
                "n": len(x),
            }
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--mir", type=Path, required=True, help="a checkout of passeul/style-transfer-model-evaluation"
    )
    ap.add_argument(
        "--evaluators", type=Path, required=True, help="a stage's evaluators folder (results/yelp/evaluators)"
    )
    ap.add_argument("--json", type=Path, help="also write the table here")
    a = ap.parse_args()
    sources, targets, source_cnn, rows = load(a.mir)
    readings(sources, targets, source_cnn, rows, a.evaluators)
    table = correlations(rows)
    print("| reading | " + " | ".join(f"{g} r / rho" for g in table) + " |")
    print("|---|" + "---:|" * len(table))
    for k in READINGS:
        cells = [f"{table[g][k]['pearson']:+.3f} / {table[g][k]['spearman']:+.3f}" for g in table]
        print(f"| {k} | " + " | ".join(cells) + " |")
    print("n: " + ", ".join(f"{g} {table[g][READINGS[0]]['n']}" for g in table))
    if a.json:
        a.json.write_text(json.dumps(table, indent=1))


if __name__ == "__main__":
    main()
