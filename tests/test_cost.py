"""tst cost (tst.cost): the trainings, updates and hours of a small config, against a hand computation."""

import json

import pytest
import yaml
from conftest import REPO

from tst.cli import main
from tst.config_files import merge_configs
from tst.cost import Rates, train_sizes, transfer_costs

M0 = {"model": "cross_aligned", "lambda_rec": 1, "lambda_adv": 1}
M7 = {**M0, "lambda_para": 0.2, "lambda_cyc": 5, "lambda_lm": 0.001, "lambda_adv2": 1}


def rates_file(tmp_path, device="cuda:0"):
    """A rates table as bench/gpu_check.py writes it: M0 and M7, 1 and 2 trainings at once."""

    def row(variant, settings, jobs, aggregate, each, mps=False):
        return {"mps": mps, "variant": variant, "settings": settings, "jobs": jobs, "steps": 20,
                "updates": 20 * jobs, "seconds": 20 * jobs / aggregate, "updates_per_s": aggregate,
                "per_training_updates_per_s": each}  # fmt: skip

    rows = [
        row("M0", M0, 1, 20.0, [20.0]),
        row("M0", M0, 2, 30.0, [14.0, 16.0]),
        row("M7", M7, 1, 8.0, [8.0]),
        row("M7", M7, 2, 12.0, [5.0, 7.0]),
        row("M7", M7, 4, 1.0, [1.0], mps=True),
        {
            "mps": False,
            "variant": "M2",
            "settings": {**M0, "lambda_cyc": 5},
            "jobs": 2,
            "error": "out of memory",
        },
    ]
    path = tmp_path / "rates.json"
    # measured with config.yaml's model sizes at the overlay's batch 32 (small_config)
    sizes = {"emb_dim": 100, "style_dim": 32, "content_dim": 256, "disc_widths": [3, 4, 5],
             "disc_filters": 32, "batch_size": 32}  # fmt: skip
    path.write_text(json.dumps({"device": {"device": device}, "dims": "paper", "batch": 32,
                                "threads_per_training": 1, "sizes": sizes, "rows": rows}))  # fmt: skip
    return path


def small_config(tmp_path):
    """config.yaml with an overlay: dataset `a` (raw files: 130 / 70 train lines) and `b` (prepared: 64 / 65
    lines), 2 epochs at batch 32, seeds 1-3, variants M0, M2 (cyc only), M7 and a multi_decoder."""
    data, root = tmp_path / "data", tmp_path / "run"
    (data / "a").mkdir(parents=True)
    for style, n in ((0, 100), (1, 50)):
        (data / "a" / f"train.{style}").write_text("w x\n" * n)
        (data / "a" / f"more.{style}").write_text("w y\n" * (30 if style == 0 else 20))
    for style, n in ((0, 64), (1, 65)):
        path = root / "results" / "b" / "data" / f"train.{style}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("w z\n" * n)
    files = {
        "kind": "files",
        "files": {"train": ["a/train.{style}", "a/more.{style}"], "dev": "x", "test": "y"},
    }
    overlay = {
        "run": ["a", "b"],
        "data_dir": str(data),
        "jobs_per_gpu": 2,
        "datasets": {
            "a": {"styles": ["neg", "pos"], "source": files},
            "b": {"styles": ["neg", "pos"], "source": files},
        },
        "transfer": {
            "epochs": 2,
            "batch_size": 32,
            "seeds": [1, 2, 3],
            "run_variants": ["M0", "M2", "M7", "md"],
            "variants": {"md": {"model": "multi_decoder", "lambda_adv": 1}},
        },
    }
    (tmp_path / "overlay.yaml").write_text(yaml.safe_dump(overlay))
    base = yaml.safe_load((REPO / "config.yaml").read_text())
    return merge_configs([base, overlay]), root, data


def test_counts_and_hours_equal_a_hand_computation(tmp_path):
    config, root, data = small_config(tmp_path)
    assert train_sizes(config, "a", root, data) == ([130, 70], "raw files, at most")
    assert train_sizes(config, "b", root, data) == ([64, 65], "prepared")
    rows = transfer_costs(config, Rates.load(rates_file(tmp_path), jobs=2), {}, root, data)
    got = {(r.dataset, r.variant): r for r in rows}
    assert list(got) == [(d, v) for d in ("a", "b") for v in ("M0", "M2", "M7", "md")]
    # a: ceil(130 / 32) = 5 updates per epoch, x 2 epochs = 10 per training, x 3 seeds = 30
    # b: ceil(65 / 32) = 3 updates per epoch, x 2 epochs = 6 per training, x 3 seeds = 18
    for (dataset, _), r in got.items():
        assert r.trainings == 3 and r.updates_per_training == {"a": 10, "b": 6}[dataset]
        assert r.updates == {"a": 30, "b": 18}[dataset]
    # M0 at 2 per GPU: the GPU does 30 updates/s together, each training 15 (the mean of 14 and 16)
    assert got["a", "M0"].gpu_hours == pytest.approx(30 / 30 / 3600)
    assert got["a", "M0"].cpu_hours == pytest.approx(30 / 15 / 3600)
    # M7: 12 together, 6 each; M2 (cyc only) has no rate of its own (its row failed): M7's, an upper bound
    for v in ("M7", "M2"):
        assert got["b", v].gpu_hours == pytest.approx(18 / 12 / 3600)
        assert got["b", v].cpu_hours == pytest.approx(18 / 6 / 3600)
    assert (
        got["b", "M7"].rate.exact and not got["b", "M2"].rate.exact and got["b", "M2"].rate.measured == "M7"
    )
    assert got["a", "md"].rate is None and got["a", "md"].gpu_hours is None  # another model: not measured


def test_the_command_prints_the_totals(tmp_path, capsys):
    _, root, _ = small_config(tmp_path)
    rates = rates_file(tmp_path)
    main(["cost", "--config", str(REPO / "config.yaml"), str(tmp_path / "overlay.yaml"), "--rates", str(rates),
          "--root", str(root)])  # fmt: skip
    out = capsys.readouterr().out
    # trainings 2 datasets x 4 variants x 3 seeds = 24; updates 4 x 30 + 4 x 18 = 192
    # GPU-hours (30/30 + 30/12 + 30/12 + 18/30 + 18/12 + 18/12) / 3600 = 9.6 / 3600 = 0.00267 (md left out),
    # CPU-hours (30/15 + 30/6 + 30/6 + 18/15 + 18/6 + 18/6) / 3600 = 19.2 / 3600 = 0.00533
    assert "| total | | 24 | | | 192 | | 0.00267 | 0.00533 |" in out
    assert (
        "| a | M2 | 3 | 130 / 70 (raw files, at most) | 2 x 5 | 30 | 6.00 (M7's: at most) | 0.000694 |" in out
    )
    assert "Not in the totals: md" in out
    assert "2 training(s) at once per GPU" in out and "WARNING" not in out


def test_rates_of_other_model_sizes_are_flagged(tmp_path, capsys):
    _, root, _ = small_config(tmp_path)
    rates = rates_file(tmp_path)
    table = json.loads(rates.read_text())
    table["sizes"].update(content_dim=500, disc_widths=[3, 4, 5])  # a list as JSON holds the config's tuple
    rates.write_text(json.dumps(table))
    main(["cost", "--config", str(REPO / "config.yaml"), str(tmp_path / "overlay.yaml"), "--rates", str(rates),
          "--root", str(root)])  # fmt: skip
    out = capsys.readouterr().out
    assert "WARNING: the rates were measured with other model sizes (paper dimensions: content_dim 500) than " \
        "the config trains (content_dim 256)" in out  # fmt: skip


def test_cpu_rates_give_cpu_hours_only_and_sizes_can_be_given(tmp_path, capsys):
    config, root, data = small_config(tmp_path)
    rates = Rates.load(rates_file(tmp_path, device="cpu"), jobs=1)
    rows = transfer_costs(config, rates, {"a": [320, 10], "b": [1, 1]}, root, data)
    r = rows[0]
    assert (r.dataset, r.variant, r.updates_per_training) == ("a", "M0", 20)  # ceil(320 / 32) x 2 epochs
    assert r.gpu_hours == 0 and r.cpu_hours == pytest.approx(3 * 20 / 20.0 / 3600)


def test_rates_not_measured_for_the_jobs_per_gpu_are_refused(tmp_path):
    with pytest.raises(ValueError, match=r"no rate measured for 3 trainings at once \(measured: 1, 2\)"):
        Rates.load(rates_file(tmp_path), jobs=3)
    assert Rates.load(rates_file(tmp_path), jobs=4, mps=True).rows[0]["updates_per_s"] == 1.0


@pytest.mark.parametrize("h, text", [(0.0, "0"), (9.6 / 3600, "0.00267"), (2.5, "2.5"), (1234.54, "1,234.5")])
def test_hours_are_readable(h, text):
    from tst.cost import hours

    assert hours(h) == text


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--train-sizes", "a=10"], "--train-sizes a=10: write DATASET=N0,N1"),
        (["--jobs-per-gpu", "3"], "no rate measured for 3 trainings at once (measured: 1, 2)"),
        (["--rates", "missing.json"], "--rates missing.json: no such file"),
    ],
)
def test_a_wrong_command_line_stops_with_exit_2(tmp_path, capsys, extra, message):
    _, root, _ = small_config(tmp_path)
    base = ["cost", "--config", str(REPO / "config.yaml"), str(tmp_path / "overlay.yaml")]
    with pytest.raises(SystemExit) as stop:
        main([*base, "--rates", str(rates_file(tmp_path)), "--root", str(root), *extra])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("tst cost: error: ") and message in err


def test_a_clone_costs_a_config_without_rates(tmp_path, capsys):
    """No --rates and no GPU check's rates under --root: the dated CPU rates the clone ships, named and
    described. config.yaml's demo: 1,200 training sentences per style at batch 16 = 75 updates an epoch, 4 epochs:
    300 updates of M0, at the shipped M0 rate r hours = 300 / r / 3600."""
    shipped = json.loads((REPO / "bench" / "rates" / "cpu.json").read_text())
    assert shipped["device"]["device"] == "cpu" and "measured on 20" in shipped["note"]
    assert "AMD EPYC" in shipped["note"] and "--device cpu" in shipped["note"]
    m0 = next(r["updates_per_s"] for r in shipped["rows"] if r["variant"] == "M0" and r["jobs"] == 1)
    main(["cost", "--config", str(REPO / "config.yaml"), "--root", str(tmp_path)])
    out = capsys.readouterr().out
    assert f"rates of {REPO / 'bench' / 'rates' / 'cpu.json'} (CPU, demo dimensions at batch 16" in out
    row = next(line for line in out.splitlines() if line.startswith("| demo | M0 |"))
    assert row.split("|")[5].strip() == "4 x 75" and row.split("|")[6].strip() == "300"
    assert float(row.split("|")[9]) == pytest.approx(300 / m0 / 3600, rel=5e-3)
    assert out.rstrip().splitlines()[-1] == f"The rates: {shipped['note']}"
    # the GPU check's rates under --root, when it wrote them, come first
    measured = tmp_path / "results" / "gpu_check" / "rates.json"
    measured.parent.mkdir(parents=True)
    measured.write_text(rates_file(tmp_path).read_text())
    main(["cost", "--config", str(REPO / "config.yaml"), "--root", str(tmp_path)])
    assert f"rates of {measured} (GPU" in capsys.readouterr().out
