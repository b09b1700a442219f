"""Parsing Li et al.'s crowd ratings, mapping rewrites to systems, preference pairs."""

import csv

import pandas as pd
import pytest

from tst.human.ratings import (
    held_out_source,
    match_ratings,
    parse_ratings_csv,
    preference_pairs,
    read_system_outputs,
)

FIELDS = ["HITId", "WorkerId", "Input.target", "Input.origs", "Input.mods", "Answer.responses"]


def write_fixture(tmp_path):
    """One task: source 'good food .' (positive, so target negative), 4 rewrites; systems x and y both
    copied the source (shown twice), z wrote 'bad food .', w's output was shown in another case,
    and one rewrite matches nothing."""
    src = "good food ."
    mods = ["good food .", "bad food .", "good food .", "Bad  Food.", "???"]
    resp = [
        "grammaticality=5 sentiment=1 topic=5",
        "grammaticality=4 sentiment=5 topic=4",
        "grammaticality=3 sentiment=2 topic=4",
        "grammaticality=2 sentiment=4 topic=3",
        "grammaticality=1 sentiment=1 topic=1",
    ]
    with open(tmp_path / "ratings.csv", "w", newline="") as f:
        w = csv.DictWriter(f, FIELDS)
        w.writeheader()
        w.writerow(
            {
                "HITId": "h1",
                "WorkerId": "w1",
                "Input.target": "negative",
                "Input.origs": "\t".join([src] * len(mods)),
                "Input.mods": "\t".join(mods),
                "Answer.responses": "\t".join(resp),
            }
        )
    out = tmp_path / "outputs"
    out.mkdir()
    for system, o in (("x", "good food ."), ("y", "good food ."), ("z", "bad food ."), ("w", "bad food.")):
        (out / f"sentiment.test.1.{system}").write_text(f"other .\tother .\t1\n{src}\t{o}\t1\n")
    return tmp_path / "ratings.csv", out


def test_parse_and_match_by_hand(tmp_path):
    csv_path, out = write_fixture(tmp_path)
    raw = parse_ratings_csv(csv_path)
    assert len(raw) == 5 and set(raw["source_style"]) == {1}
    table, report = match_ratings(raw, read_system_outputs(out))
    assert report["rewrites_matched_exact"] == 3 and report["rewrites_matched_normalized"] == 1
    assert report["rewrites_unmatched"] == 1 and report["rewrites_shared_by_several_systems"] == 2
    t = table.set_index("system")
    assert set(t.index) == {"x", "y", "z", "w"} and (t["line"] == 1).all()
    # x and y share the two identical slots: means (5+3)/2, (1+2)/2, (5+4)/2
    for s in ("x", "y"):
        assert t.loc[s, ["grammaticality", "sentiment", "topic"]].tolist() == [4.0, 1.5, 4.5]
    assert t.loc["z", ["grammaticality", "sentiment", "topic"]].tolist() == [4.0, 5.0, 4.0]
    assert t.loc["w", "match"] == "normalized" and t.loc["w", "grammaticality"] == 2.0

    pairs = preference_pairs(table)
    # overall = mean of 3: x = y = 10/3, z = 13/3, w = 3 -> pairs z>x, z>y, z>w, x>w, y>w; x~y tie dropped
    got = sorted(zip(pairs["system_plus"], pairs["system_minus"]))
    assert got == [("x", "w"), ("y", "w"), ("z", "w"), ("z", "x"), ("z", "y")]
    assert pairs["score_plus"].gt(pairs["score_minus"]).all()


def test_held_out_split_is_deterministic_and_near_share():
    sources = [f"sentence {i} ." for i in range(2000)]
    flags = [held_out_source(s, 0.3) for s in sources]
    assert flags == [held_out_source(s, 0.3) for s in sources]
    assert 0.26 < sum(flags) / len(flags) < 0.34  # binomial sd at n=2000 is ~0.01


@pytest.mark.shared_data
def test_real_yelp_ratings(shared_data):
    d = shared_data / "yelp" / "li"
    raw = parse_ratings_csv(d / "human_ratings" / "ratings-yelp.csv")
    table, report = match_ratings(raw, read_system_outputs(d / "outputs"))
    assert report["tasks"] == 400 and report["rated_rewrites"] == 3200
    assert report["rewrites_unmatched"] == 0
    assert report["rewrites_matched_exact"] + report["rewrites_matched_normalized"] == 3200
    assert report["rows_per_system"] == {
        s: 400 for s in ("fader", "human", "label", "mit", "multi_decoder", "orgin", "retrieval", "rule_base")
    }
    # First task, read off the CSV by hand: source is line 184 (0-based 183) of sentiment.test.1; fader and multi_decoder
    # both copied it (slots 0 and 2: g 4/5, s 4/3, t 3/2); "sooo wrong ." (retrieval) is slot 1 (4, 4, 5);
    # the human rewrite "the guys here aren't nice or helpful." is slot 4 (5, 4, 2), matched normalized.
    src = "the guys here are sooo incredibly nice and helpful ."
    t = table[table["source"] == src].set_index("system")
    assert (t["line"] == 183).all() and (t["source_style"] == 1).all()
    for s in ("fader", "multi_decoder"):
        assert t.loc[s, ["grammaticality", "sentiment", "topic"]].tolist() == [4.5, 3.5, 2.5]
    assert t.loc["retrieval", ["grammaticality", "sentiment", "topic"]].tolist() == [4.0, 4.0, 5.0]
    assert t.loc["human", ["grammaticality", "sentiment", "topic"]].tolist() == [5.0, 4.0, 2.0]
    assert t.loc["human", "match"] == "normalized"
    pairs = preference_pairs(table)
    assert isinstance(pairs, pd.DataFrame) and len(pairs) == 9580
    # a source's pairs are all on one side of the split
    assert pairs.groupby("source")["held_out"].nunique().max() == 1
