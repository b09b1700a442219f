"""The gaming battery (tst.attacks) on the suite's tiny run: each way to game the default GM, built from the human
references' outputs and the run's own test sources and training text, scored as `tst score` scores them
(tst.score_texts) against the run's evaluators and calibration. None may raise the references' GM, and each
scores below them."""

import pytest

from tst.attacks import ATTACKS, run_battery


@pytest.mark.slow
def test_no_attack_raises_an_honest_systems_gm_or_beats_it(finished_run, tmp_path):
    got = run_battery(finished_run, "demo", "reference", tmp_path)
    honest = got["honest"]["gm"]
    assert honest is not None and honest > 0, got["honest"]
    for name in ATTACKS:
        gm = got[name]["gm"]
        assert gm is not None, (name, got[name])
        if name in ("tails_for_failures", "copy_for_failures"):
            # the references with their failures replaced: never above the references themselves (1e-4: the
            # float rounding of encoding other batches; a replaced output that scored would add 1e-2 or more)
            assert gm <= honest + 1e-4, (name, gm, honest)
        else:
            assert gm < honest, (name, gm, honest)
    # the degenerate ones score nothing at all: a source with a tail keeps its source's part, word salad keeps no
    # fluency, a fixed sentence keeps at most the fixed-sentence bound, an empty or nonsense line nothing
    for name in ("tail_clause", "tail_sentence", "shuffled_outputs", "fixed_target", "empty", "zzqx"):
        assert got[name]["gm"] == 0.0, (name, got[name])


@pytest.mark.slow
def test_no_generated_form_beats_the_references(finished_run):
    """tst.battery's forms (every edit x join x material: the source, lightly edited, with target-style material
    added anywhere) on a sample of the tiny run's test sources: none reads above the references on the same
    sample; none adds anything in place of the references' failures where its edit of the source still reads in
    the source's style (the class: the kept material is one of the output's content parts, and an output whose
    content parts read at most 1/2 reads below 1/2 and gains no style, tst.metrics.style); and the forms that keep
    the unedited source whole beside the material (a prefix or a suffix) add nothing there at all (their source's
    run is one of their content parts: tst.nlp.parts)."""
    from tst import battery

    scorer, corpus, joint, t_j = battery.from_run(finished_run, "demo", "reference")
    rows = battery.run(scorer, corpus, joint, t_j, per_form=6, seed=0)
    assert len(rows) >= 500 and len({r["form"] for r in rows}) == len(rows)
    honest = rows[0]["honest_gm"]
    assert honest > 0, rows[0]
    assert rows[0]["gm"] < honest, rows[0]
    whole = [
        r for r in rows if r["form"].startswith("none+") and not r["form"].split("+")[1].startswith("infix")
    ]
    assert len(whole) == (len(battery.JOINS) - 4) * len(battery.MATERIALS)
    assert all(r["failures_raised"] + r["failures_raised_style_moved"] == 0 for r in whole), [
        r for r in whole if r["failures_raised"] + r["failures_raised_style_moved"]
    ]
    assert all(r["failures_raised"] == 0 for r in rows), [r for r in rows if r["failures_raised"]]
