"""bench/mir_style_judgments.py reads Mir et al.'s released layout (a folder written here in its format) and
pools the correlations as their code does."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

SPEC = importlib.util.spec_from_file_location(
    "mir_style_judgments", Path(__file__).resolve().parents[1] / "bench" / "mir_style_judgments.py"
)
mir = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(mir)


def write_release(root: Path, n: int = 3, short: str | None = None) -> None:
    """Mir et al.'s layout with n sources per style; the setting `short` loses its last output line."""
    (root / "data").mkdir(parents=True)
    (root / "data/sentiment.test.0").write_text("".join(f"bad {i}\n" for i in range(n)))
    (root / "data/sentiment.test.1").write_text("".join(f"good {i}\n" for i in range(n)))
    dist = root / mir.DISTRIBUTIONS
    dist.mkdir(parents=True)
    np.savez(
        dist / "input_distributions.npz", textcnn=np.full((2 * n, 2), 0.5), fasttext=np.full((2 * n, 2), 0.5)
    )
    human = root / "evaluations/human/style_transfer_intensity"
    human.mkdir(parents=True)
    for k, (model, name, folder) in enumerate(mir.settings(root)):
        out = root / "transfer_model_outputs" / model / folder
        out.mkdir(parents=True)
        m = n - 1 if name == short else n
        (out / "sentiment.test.0.tsf").write_text("".join(f"good {k} {i}\n" for i in range(n)))
        (out / "sentiment.test.1.tsf").write_text("".join(f"bad {k} {i}\n" for i in range(m)))
        np.save(human / f"{name}.npy", np.arange(2 * n, dtype=np.float64) + k)
        np.savez(dist / f"{name}.npz", textcnn=np.full((2 * n, 2), 0.5), fasttext=np.full((2 * n, 2), 0.5))


def test_the_release_is_read_in_mir_et_al_s_order_with_the_first_half_rewritten_to_positive(tmp_path):
    write_release(tmp_path)
    sources, targets, source_cnn, rows = mir.load(tmp_path)
    assert sources == ["bad 0", "bad 1", "bad 2", "good 0", "good 1", "good 2"]
    assert targets.tolist() == [1, 1, 1, 0, 0, 0] and source_cnn.shape == (6, 2)
    assert [r["setting"] for r in rows][:4] == [
        "ARAE_lambda_1",
        "ARAE_lambda_5",
        "ARAE_lambda_10",
        "CAAE_rho_0_01",
    ]
    assert len(rows) == 12 and rows[4]["setting"] == "CAAE_rho_0_1" and rows[-1]["setting"] == "DAR_gamma_500"
    assert rows[3]["outputs"][0] == "good 3 0" and rows[3]["ratings"].tolist() == [3, 4, 5, 6, 7, 8]


def test_a_setting_whose_outputs_do_not_align_is_named(tmp_path):
    write_release(tmp_path, short="DAR_gamma_15")
    with pytest.raises(ValueError, match="DAR_gamma_15: 5 outputs, 6 ratings"):
        mir.load(tmp_path)


def test_correlations_pool_each_models_settings_and_all_twelve():
    """Pearson's r worked out by hand on one model's pooled rows; Spearman of a monotone reading is 1."""
    rows = []
    for model, name, _ in mir.settings(Path(".")):
        people = np.array([1.0, 2.0, 4.0])
        reading = {k: people**2 for k in mir.READINGS}  # monotone in the ratings
        rows.append({"model": model, "setting": name, "ratings": people, **reading})
    table = mir.correlations(rows)
    x, y = np.tile([1.0, 4.0, 16.0], 3), np.tile([1.0, 2.0, 4.0], 3)  # ARAE: 3 settings pooled
    r = ((x - x.mean()) * (y - y.mean())).sum() / np.sqrt(
        ((x - x.mean()) ** 2).sum() * ((y - y.mean()) ** 2).sum()
    )
    assert table["ARAE"]["style"]["pearson"] == pytest.approx(round(r, 4))
    assert table["ARAE"]["style"]["n"] == 9 and table["all"]["style"]["n"] == 36
    assert table["all"]["style_gain"]["spearman"] == 1.0
