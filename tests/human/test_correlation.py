"""Metric-vs-human correlation on hand-built tables with hand-computed coefficients."""

import pandas as pd
import pytest

from tst.human.correlation import correlations, join_metrics


def ratings_table():
    # 2 systems x 2 sources; style-0 source "a" is line 1 of its file, style-1 source "c" line 0.
    rows = []
    for system, topic, gram in (("A", (1, 3), (1, 2)), ("B", (2, 4), (3, 4))):
        rows.append(
            {
                "source": "a",
                "source_style": 0,
                "line": 1,
                "system": system,
                "topic": topic[0],
                "grammaticality": gram[0],
                "sentiment": 3.0,
            }
        )
        rows.append(
            {
                "source": "c",
                "source_style": 1,
                "line": 0,
                "system": system,
                "topic": topic[1],
                "grammaticality": gram[1],
                "sentiment": 3.0,
            }
        )
    return pd.DataFrame(rows)


def metrics():
    # rows: style-0 sources "z", "a" (n_style0 = 2) then style-1 sources "c", "d"
    src = ["z", "a", "c", "d"]
    return {
        "A": pd.DataFrame({"source": src, "sim": [9.0, 1.0, 3.0, 9.0], "pp_joint": [0, 40.0, 30.0, 0]}),
        "B": pd.DataFrame({"source": src, "sim": [9.0, 2.0, 4.0, 9.0], "pp_joint": [0, 20.0, 10.0, 0]}),
        "unrated": pd.DataFrame({"source": src, "sim": [0.0] * 4, "pp_joint": [1.0] * 4}),
    }


def test_join_by_source_and_by_line_agree():
    by_src = join_metrics(ratings_table(), metrics(), n_style0=2)
    no_src = {k: v.drop(columns="source") for k, v in metrics().items()}
    by_line = join_metrics(ratings_table(), no_src, n_style0=2)
    key = ["system", "source"]
    a, b = by_src.sort_values(key).reset_index(drop=True), by_line.sort_values(key).reset_index(drop=True)
    assert a["sim"].tolist() == [1.0, 3.0, 2.0, 4.0] == b["sim"].tolist()


def test_correlations_hand_computed():
    res = correlations(
        join_metrics(ratings_table(), metrics(), n_style0=2), {"sim": "topic", "pp_joint": "grammaticality"}
    )
    res = res.set_index(["metric", "level"])
    # sim (1, 3, 2, 4) vs topic (1, 3, 2, 4): perfect monotone and linear
    sent = res.loc[("sim", "sentence")]
    assert sent["n"] == 4
    assert sent["spearman"] == pytest.approx(1.0)
    assert sent["pearson"] == pytest.approx(1.0)
    assert sent["kendall"] == pytest.approx(1.0)
    # pp_joint (40, 30, 20, 10) vs grammaticality (1, 2, 3, 4): rank-reversed, linear -> -1
    pp = res.loc[("pp_joint", "sentence")]
    assert pp["spearman"] == pytest.approx(-1.0) and pp["expected_sign"] == -1
    # system level has 2 points: undefined (n < 3) -> NaN, not a fake 1.0
    assert res.loc[("sim", "system")]["n"] == 2 and pd.isna(res.loc[("sim", "system")]["pearson"])


def test_pearson_kendall_by_hand():
    # x = (1, 2, 3, 4), y = (1, 3, 2, 4): Pearson = sum(dx dy) / sqrt(sum dx^2 sum dy^2) = 4 / 5 = 0.8;
    # Kendall: 5 concordant, 1 discordant pair -> (5 - 1) / 6; Spearman on ranks = Pearson here = 0.8.
    r = ratings_table().assign(topic=[1.0, 2.0, 3.0, 4.0])
    m = metrics()
    m["A"]["sim"] = [0.0, 1.0, 3.0, 0.0]
    m["B"]["sim"] = [0.0, 2.0, 4.0, 0.0]
    res = correlations(join_metrics(r, m, n_style0=2), {"sim": "topic"}, levels=("sentence",)).iloc[0]
    # joined order: A/a (1, 1), A/c (3, 2), B/a (2, 3), B/c (4, 4) -> x = (1, 3, 2, 4), y = (1, 2, 3, 4)
    assert res["pearson"] == pytest.approx(0.8)
    assert res["spearman"] == pytest.approx(0.8)
    assert res["kendall"] == pytest.approx(4 / 6)


def test_system_level_uses_per_system_means():
    # systems A, B, C rated on sources a, c; per-system means of sim: A (1+3)/2 = 2, B 3, C 6;
    # of topic: A (1+2)/2 = 1.5, B 3.5, C 5. Pearson by hand: dx = (-5/3, -2/3, 7/3),
    # dy = (-11/6, 1/6, 5/3): sum dx dy = 123/18, sum dx^2 = 78/9, sum dy^2 = 222/36.
    r = ratings_table()
    r = pd.concat([r, r[r["system"] == "A"].assign(system="C")], ignore_index=True)
    r["topic"] = [1.0, 2.0, 3.0, 4.0, 5.0, 5.0]
    m = metrics()
    m["C"] = pd.DataFrame({"source": ["z", "a", "c", "d"], "sim": [0.0, 5.0, 7.0, 0.0]})
    res = correlations(join_metrics(r, m, n_style0=2), {"sim": "topic"}, levels=("system",)).iloc[0]
    assert res["n"] == 3
    assert res["pearson"] == pytest.approx((123 / 18) / ((78 / 9) * (222 / 36)) ** 0.5)
    assert res["spearman"] == pytest.approx(1.0) and res["kendall"] == pytest.approx(1.0)


def test_join_by_line_with_the_scorers_source_style_column():
    """The scorer's per-sentence TSV carries its own source_style column: the join keeps one copy, and a
    mismatch (wrong n_style0) is an error rather than a silent misalignment."""
    scored = {k: v.drop(columns="source").assign(source_style=[0, 0, 1, 1]) for k, v in metrics().items()}
    joined = join_metrics(ratings_table(), scored, n_style0=2)
    assert list(joined.columns).count("source_style") == 1
    assert sorted(joined["sim"].tolist()) == [1.0, 2.0, 3.0, 4.0]
    with pytest.raises(ValueError, match="n_style0"):
        join_metrics(ratings_table(), scored, n_style0=1)
