"""The metric registry (tst.metrics.registry): its table, evaluator_files, add_derived (GM from stored corpus
scores), the Evaluators cache across score_system calls and the GM wiring of tst.scoring.run.score."""

import math
import subprocess
import sys

import numpy as np
import pytest

import tst.scoring.evaluator_files as score_mod
from tst.io import InputError, write_json, write_lines
from tst.metrics.base import Metric
from tst.metrics.gm import DEFAULT_T
from tst.metrics.registry import (
    ASPECTS,
    METRICS,
    NOT_METRICS,
    ScoreOptions,
    add_derived,
    evaluator_files,
    scored_keys,
)
from tst.scoring.compute import score_system
from tst.scoring.evaluator_files import Evaluators
from tst.scoring.request import RequestError, ScoreRequest
from tst.scoring.run import score
from tst.scoring.write import score_meta

# Short names as Pang & Gimpel, Fu et al., Mir et al. and Yu et al. print them.
LABELS = {
    "acc": "Acc",
    "transfer_strength": "TS",
    "sim": "Sim",
    "cp": "CP",
    "cp_random": "CP-random",
    "pp_joint": "PP",
    "pp_target": "PP-target",
    "gm": "GM",
    "gm_pg": "GM-P&G",
    "sti": "STI",
    "wmd_masked": "WMD-masked",
    "wmd_removed": "WMD-removed",
    "naturalness_lr": "Nat-LR",
    "naturalness_nn": "Nat-NN",
    "bleu_self_corpus": "self-BLEU",
    "bleu_self_sentence": "self-BLEU-sent",
    "bleu_ref_corpus": "ref-BLEU",
    "bleu_ref_sentence": "ref-BLEU-sent",
    "attribute_hit": "Hit",
}
LOWER_IS_BETTER = {
    "pp_joint",
    "pp_target",
    "wmd_masked",
    "wmd_removed",
    "wmd_unmasked",
}  # perplexities and distances


def test_every_metric_is_fully_described():
    assert [k for k in METRICS if k in LABELS] == list(LABELS)  # the papers' metrics, in table order
    for key, m in METRICS.items():
        assert m.key == key and m.label == LABELS.get(key, m.label) and m.label
        assert isinstance(m.unit, str) and m.unit
        assert m.higher_is_better is (key not in LOWER_IS_BETTER)
        assert m.aspect in ASPECTS
        assert isinstance(m.digits, int)
        assert (m.compute is None) == m.derived == (m.derive is not None)
    assert METRICS["gm_pg"].derived_from == ("acc", "sim", "pp_joint")
    assert METRICS["pp_joint"].digits == 1 and METRICS["gm_pg"].digits == 2 and METRICS["acc"].digits == 3


# The column order of score files, TSVs and tables before the rows moved into their modules (a refactor
# that must keep every output byte-identical), metrics off by default left out.
ORDER = [
    "style",
    "content",
    "joint",
    "acc",
    "acc_prob",
    "transfer_strength",
    "sim",
    "cp",
    "cp_random",
    "cp_lower_bound",
    "pp_joint",
    "pp_target",
    "acceptability",
    "gm",
    "gm_pg",
    "sti",
    "wmd_masked",
    "wmd_removed",
    "wmd_unmasked",
    "naturalness_lr",
    "naturalness_nn",
    "naturalness_lr_inputs",
    "naturalness_nn_inputs",
    "bleu_self_corpus",
    "distinct",
    "bleu_self_sentence",
    "bleu_ref_corpus",
    "bleu_ref_sentence",
    "bleu_self_st",
    "bleu_ref_st",
    "attribute_hit",
    "sbert_all_minilm_l6_v2",
]


def test_rows_are_declared_by_their_modules_in_a_fixed_order():
    import importlib

    assert [k for k, m in METRICS.items() if m.default] == ORDER
    for key, m in METRICS.items():
        fn = m.compute or m.derive
        module = importlib.import_module(fn.__module__)
        assert m in module.ROWS, f"{key}: declared outside the module of its function"
    assert "aggregate" in NOT_METRICS  # torch and pandas: never imported by the registry


def test_code_hash_of_the_scorer_covers_every_metric_module(repo_root):
    """The registry imports the metric modules by listing tst/metrics/, so tst.codehash must list them too:
    an edit of any metric module reruns the score jobs (and only the modules the registry imports)."""
    from tst.codehash import DISCOVERS, modules_of

    assert DISCOVERS["tst.metrics.registry"] == ("tst.metrics", NOT_METRICS)
    hashed = {k for k in modules_of(repo_root / "scripts" / "score.py") if k.startswith("tst.metrics.")}
    declaring = {m.compute.__module__ if m.compute else m.derive.__module__ for m in METRICS.values()}
    assert declaring <= hashed and "tst.metrics.aggregate" not in hashed
    # a script that imports one metric module is not hashed with the registry (its jobs stay put)
    assert "tst.metrics.registry" not in modules_of(repo_root / "scripts" / "baseline_system.py")


def test_human_aspects_follow_li_et_al():
    from tst.human.correlation import ASPECT_OF_METRIC

    expected = {
        "sim": "topic",
        "cp": "topic",
        "wmd_masked": "topic",
        "wmd_removed": "topic",
        "bleu_self_sentence": "topic",
        "attribute_hit": "topic",
        "acc": "sentiment",
        "transfer_strength": "sentiment",
        "sti": "sentiment",
        "pp_joint": "grammaticality",
        "pp_target": "grammaticality",
        "naturalness_lr": "grammaticality",
        "naturalness_nn": "grammaticality",
    }
    assert {k: ASPECT_OF_METRIC.get(k) for k in expected} == expected
    assert set(ASPECT_OF_METRIC.values()) == {"topic", "sentiment", "grammaticality"}
    # corpus-level and reference-based metrics are not compared with the ratings
    assert not {"gm", "bleu_self_corpus", "bleu_ref_corpus", "bleu_ref_sentence"} & set(ASPECT_OF_METRIC)


def test_evaluator_files():
    assert evaluator_files(["acc"]) == ["style_cnn.pt"]
    assert evaluator_files(["sim"]) == ["glove.kv", "idf.json"]
    assert evaluator_files(["gm_pg"]) == ["style_cnn.pt", "lm_joint.pt", "glove.kv", "idf.json"]
    assert evaluator_files(["bleu_self_corpus", "attribute_hit"]) == []
    assert evaluator_files(["cp"]) == ["glove.kv"]
    assert evaluator_files(["cp"], options={"cp_lexicon": "style_lexicon"}) == [
        "glove.kv",
        "style_lexicon.json",
    ]
    assert evaluator_files(["naturalness_lr", "naturalness_nn"]) == []  # named after the system
    assert evaluator_files(["naturalness_lr", "naturalness_nn"], system="M0.seed1") == [
        "naturalness/M0.seed1.lr.json",
        "naturalness/M0.seed1.nn.pt",
    ]
    every = evaluator_files()
    # 12: the three style classifiers, three LMs, acceptability.pt, three embeddings, idf, style lexicon
    assert len(every) == len(set(every)) == 12 and every[0] == "style_cnn.pt"
    with pytest.raises(ValueError, match="unknown metric"):
        evaluator_files(["bleu"])


def test_options_are_checked():
    assert ScoreOptions.of(None) == {
        "cp_lexicon": "vader",
        "cp_seed": 0,
        "sbert": True,
        "pp_count_eos": False,
        "references_release": None,
        "extra_metrics": (),
        "precision": "auto",  # config.yaml's evaluators.precision
    }
    assert ScoreOptions.of({"extra_metrics": ["distinct"]})["extra_metrics"] == ("distinct",)
    with pytest.raises(TypeError, match="extra_metrics"):
        ScoreOptions.of({"extra_metrics": "distinct"})
    with pytest.raises(ValueError, match="unknown metric keys"):
        scored_keys({"extra_metrics": ["chrf3"]})
    with pytest.raises(ValueError, match="references_release"):
        ScoreOptions.of({"references_release": 14})
    with pytest.raises(ValueError, match="cp_lexicon"):
        ScoreOptions.of({"cp_lexicon": "afinn"})
    with pytest.raises(ValueError, match="unknown scoring options"):
        ScoreOptions.of({"gm_t": [1, 2, 3, 4]})


def test_registry_import_is_cheap():
    code = (
        "import sys, tst.metrics.registry; "
        "print(sorted(m for m in ('torch', 'gensim', 'ot', 'nltk', 'sacrebleu', 'pandas') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def _stored(acc=None, sim=None, pp=None, **more) -> dict:
    m = {
        k: {"score": v, "variant": "v", "higher_is_better": k != "pp_joint"}
        for k, v in (("acc", acc), ("sim", sim), ("pp_joint", pp))
        if v is not None
    }
    return {**m, **more}


@pytest.mark.parametrize(
    "row",
    [("M0", 0.818, 0.719, 37.3, 10.0), ("M3", 0.807, 0.796, 28.4, 21.5), ("M7", 0.818, 0.805, 29.0, 22.8)],
    ids=lambda r: r[0],
)
def test_add_derived_reproduces_pang_gimpel_table2(row):
    # Pang & Gimpel 2019 Table 2 (Yelp): Acc, Sim, PP -> GM as printed (one decimal); M3 and M7 have PP
    # below 30, where min{[97 - PP]+, [PP + 37]+} takes the lower threshold
    _, acc, sim, pp, printed = row
    out = add_derived(_stored(acc, sim, pp), DEFAULT_T)
    assert round(out["gm_pg"]["score"], 1) == pytest.approx(printed)
    assert out["gm_pg"]["variant"] == (
        "Pang & Gimpel 2019 eq. 1 on corpus Acc, Sim, PP (joint LM), t=[63.0, 71.0, 97.0, -37.0]"
    )
    assert out["gm_pg"]["higher_is_better"] is True and out["gm_pg"]["details"] == {
        "t": [63.0, 71.0, 97.0, -37.0]
    }
    assert set(out.skipped) == {"gm"}  # the calibrated GM needs the dataset's thresholds
    # integer thresholds (as a YAML config gives them) name the same variant
    assert add_derived(_stored(acc, sim, pp), (63, 71, 97, -37))["gm_pg"] == out["gm_pg"]


def test_add_derived_skips_without_a_factor():
    stale = {"score": 99.0, "variant": "old t", "higher_is_better": True}
    out = add_derived(_stored(0.818, 0.719, gm=stale), DEFAULT_T)
    assert "gm_pg" not in out and out.skipped == {
        "gm": "needs joint",
        "gm_pg": "needs pp_joint",
    }
    assert list(out) == ["acc", "sim"]
    undefined = _stored(0.818, 0.719, 37.3)
    undefined["acc"]["score"] = None  # e.g. no sentence could be classified
    assert add_derived(undefined, DEFAULT_T).skipped == {
        "gm": "needs joint",
        "gm_pg": "needs acc",
    }
    # GM sits in the registry order, after pp_target and before sti
    order = list(add_derived(_stored(0.818, 0.719, 37.3, sti={"score": 0.1}, pp_target={"score": 40.0})))
    assert order == ["acc", "sim", "pp_joint", "pp_target", "gm_pg", "sti"]


# ---- score_system / score with fake evaluators ----


class Clf:
    """P(style 1) = 0.9 when "good" is in the sentence, else 0.1."""

    def predict_proba(self, sentences):
        p1 = np.array([0.9 if "good" in s else 0.1 for s in sentences])
        return np.stack([1 - p1, p1], axis=1)


class Emb:
    dim = 2

    def __init__(self):
        self.table = {
            "good": [1.0, 0.0],
            "bad": [1.0, 0.0],
            "food": [0.0, 1.0],
            "service": [0.0, 1.0],
            "fine": [3.0, 4.0],
        }

    def get(self, w):
        v = self.table.get(w)
        return None if v is None else np.array(v)


class UniformLM:
    def token_nll(self, sentences):
        return [np.full(len(s) + 1, math.log(50.0)) for s in sentences]


@pytest.fixture
def fake_evaluators(tmp_path, monkeypatch):
    d = tmp_path / "evaluators"
    d.mkdir()
    for name in ("style_cnn.pt", "lm_joint.pt", "glove.kv"):
        (d / name).write_text(f"fake {name}")
    write_json(d / "idf.json", {"idf": {}, "n_docs": 3, "default": 1.0})
    loads = []

    def counting(obj):
        def load(path):
            loads.append(path.name)
            return obj

        return load

    monkeypatch.setattr(score_mod, "load_classifier", counting(Clf()))
    monkeypatch.setattr(score_mod, "load_lm", counting(UniformLM()))
    monkeypatch.setattr(score_mod, "load_embeddings", counting(Emb()))
    return d, loads


SOURCES = {0: ["bad food", "bad"], 1: ["good service"]}
OUTPUTS = {0: ["good food", "fine"], 1: ["bad service"]}


def test_evaluators_load_each_file_once_across_calls(fake_evaluators):
    d, loads = fake_evaluators
    ev = Evaluators(d)
    src, out = SOURCES[0] + SOURCES[1], OUTPUTS[0] + OUTPUTS[1]
    first = score_system(src, out, [0, 0, 1], ev, only={"acc", "sti"})
    second = score_system(out, src, [1, 1, 0], ev, only={"acc"})
    assert loads == ["style_cnn.pt"]  # one load for two metrics and two calls
    # first: "fine" misses its target 1; second (sources as outputs, targets 0, 0, 1): all right
    assert first["acc"].score == pytest.approx(2 / 3) and second["acc"].score == pytest.approx(1.0)
    # each call lists the files it used (for the sha256 list of its score file)
    assert list(first.evaluators) == list(second.evaluators) == ["style_cnn.pt"]
    assert score_system(src, out, [0, 0, 1], ev, only={"bleu_self_corpus"}).evaluators == {}
    assert list(ev.used) == ["style_cnn.pt"]


def test_a_metric_off_by_default_is_scored_only_when_named(fake_evaluators, monkeypatch):
    """A row with default=False stays out of every score (no value, no skip reason) unless the scoring option
    extra_metrics or `only` names it."""
    from tst.metrics.base import MetricResult

    def n_words(ctx):
        per = [float(len(o.split())) for o in ctx.outputs]
        return MetricResult("n_words", "words per output", sum(per) / len(per), per)

    row = Metric("n_words", "words", "words", "overall", True, 999, (), n_words, default=False)
    monkeypatch.setitem(METRICS, "n_words", row)
    d, _ = fake_evaluators
    src, out = SOURCES[0] + SOURCES[1], OUTPUTS[0] + OUTPUTS[1]  # outputs of 2, 1 and 2 words
    assert "n_words" not in scored_keys() and scored_keys({"extra_metrics": ["n_words"]})[-1] == "n_words"
    plain = score_system(src, out, [0, 0, 1], d)
    assert "n_words" not in plain and "n_words" not in plain.skipped
    on = score_system(src, out, [0, 0, 1], d, options={"extra_metrics": ["n_words"]})
    assert on["n_words"].score == pytest.approx(5 / 3) and list(on)[:-1] == list(plain)
    named = score_system(src, out, [0, 0, 1], d, only={"n_words", "acc"})
    assert list(named) == ["acc", "n_words"] and named["n_words"].per_sentence == [2.0, 1.0, 2.0]


def test_score_gm_from_acc_sim_pp(fake_evaluators, tmp_path):
    """Every factor of eq. 1 is above its threshold (Acc, Sim) or below it (PP), so a wrong factor, a
    swapped argument or the wrong PP branch would change the value."""
    d, loads = fake_evaluators
    files = {}
    for style in (0, 1):
        files[f"src{style}"], files[f"out{style}"] = (
            tmp_path / f"src.{style}.txt",
            tmp_path / f"out.{style}.txt",
        )
        write_lines(files[f"src{style}"], SOURCES[style])
        write_lines(files[f"out{style}"], OUTPUTS[style])
    # one Evaluators for every call, as a workflow job scoring all checkpoints of a system uses it
    ev = Evaluators(d)
    args = ([files["src0"], files["src1"]], [files["out0"], files["out1"]], [0, 1])
    meta = score_meta("toy", "M0.seed1", "test", "ep1.0")
    obj = score(
        ScoreRequest(*args, meta=meta, only=["gm_pg"], gm_t=DEFAULT_T), ev, json_out=tmp_path / "s.json"
    )
    # Acc: targets 1, 1, 0; "good food" -> 1 (right), "fine" -> 0 (wrong), "bad service" -> 0 (right): 2/3.
    # Sim: "bad food"/"good food" and "good service"/"bad service" have equal mean vectors (cos 1);
    # "bad" = (1, 0) vs "fine" = (3, 4): cos 3/5. Sim = 2.6 / 3. PP: uniform LM over 50 words -> 50.
    m = obj["metrics"]
    assert list(m) == ["acc", "sim", "pp_joint", "gm_pg"]  # gm brings its factors
    assert m["acc"]["score"] == pytest.approx(2 / 3)
    assert m["sim"]["score"] == pytest.approx(2.6 / 3)
    assert m["pp_joint"]["score"] == pytest.approx(50.0)
    # eq. 1: [100 Acc - 63]+ = 11/3, [100 Sim - 71]+ = 47/3, min{[97 - 50]+, [50 + 37]+} = 47
    assert m["gm_pg"]["score"] == pytest.approx((11 / 3 * 47 / 3 * 47) ** (1 / 3), rel=1e-9)
    assert (tmp_path / "s.json").read_text().count('"gm_pg"') == 1
    assert sorted(obj["evaluators"]) == ["glove.kv", "idf.json", "lm_joint.pt", "style_cnn.pt"]
    assert (obj["variant"], obj["seed"], obj["epoch"], obj["n_sentences"]) == ("M0", 1, 1.0, 3)
    # other thresholds: [66.67 - 60]+ = 20/3, [86.67 - 80]+ = 20/3, min{[90 - 50]+, [50 - 40]+} = 10
    t = (60, 80, 90, 40)
    assert score(ScoreRequest(*args, meta=meta, only=["gm_pg"], gm_t=t), ev)["metrics"]["gm_pg"][
        "score"
    ] == pytest.approx((20 / 3 * 20 / 3 * 10) ** (1 / 3), rel=1e-9)
    # without gm_t (the workflow): no derived metric; the report adds GM from the stored scores
    plain = score(ScoreRequest(*args, meta=meta), ev)
    assert "gm_pg" not in plain["metrics"] and "gm_pg" not in plain["skipped"]
    # the same number and definition; `tst score`'s entry also says what it read and signs it (tst.signature)
    derived = add_derived(plain["metrics"], DEFAULT_T)["gm_pg"]
    assert derived == {k: v for k, v in m["gm_pg"].items() if k not in ("reads", "signature")}
    assert plain["skipped"]["pp_target"] == "missing evaluator file(s): lm_style0.pt, lm_style1.pt"
    assert sorted(loads) == ["glove.kv", "lm_joint.pt", "style_cnn.pt"]  # once over three score calls


def test_score_writes_the_resample_statistics_the_workflow_keeps(fake_evaluators, tmp_path):
    """resample_stats (scripts/score.py sets it): the TSV gets PP's per-sentence `key:stat` columns, from
    which the leaderboard resamples PP; without it, none."""
    from tst.io import read_lines

    d, _ = fake_evaluators
    paths = []
    for style in (0, 1):
        paths.append((tmp_path / f"src.{style}.txt", tmp_path / f"out.{style}.txt"))
        write_lines(paths[-1][0], SOURCES[style])
        write_lines(paths[-1][1], OUTPUTS[style])
    ev, args = Evaluators(d), ([p[0] for p in paths], [p[1] for p in paths], [0, 1])
    meta = score_meta("toy", "M0.seed1", "test", "ep1.0")
    score(ScoreRequest(*args, meta=meta, only=["pp_joint"]), ev, tsv_out=tmp_path / "plain.tsv")
    score(
        ScoreRequest(*args, meta=meta, only=["pp_joint"], resample_stats=True), ev, tsv_out=tmp_path / "s.tsv"
    )
    assert read_lines(tmp_path / "plain.tsv")[0] == "i\tsource_style\tpp_joint"
    lines = [ln.split("\t") for ln in read_lines(tmp_path / "s.tsv")]
    stats = ["pp_joint:nll_sum", "pp_joint:n_tokens", "pp_joint:empty", "pp_joint:max_nll"]
    assert lines[0] == ["i", "source_style", "pp_joint", *stats]
    # "good food", "fine", "bad service": 2, 1, 2 words, each at NLL ln 50 (the uniform LM over 50 words)
    rows = {name: [float(r[lines[0].index(name)]) for r in lines[1:]] for name in stats}
    assert rows["pp_joint:n_tokens"] == [2, 1, 2] and rows["pp_joint:empty"] == [0, 0, 0]
    assert rows["pp_joint:nll_sum"] == pytest.approx([2 * math.log(50), math.log(50), 2 * math.log(50)])


def test_score_options_are_a_frozen_mapping_equal_to_their_dict():
    """ScoreOptions.of resolves a dict once (values converted: cp_seed "3" -> 3, extra_metrics list -> tuple);
    a resolved value is returned as it is; it reads as the dict of DEFAULT_OPTIONS' keys, in that order, and
    cannot be changed."""
    import dataclasses

    o = ScoreOptions.of({"cp_seed": "3", "extra_metrics": ["distinct"], "sbert": 0})
    assert ScoreOptions.of(o) is o
    assert (o.cp_seed, o["cp_seed"], o.sbert, o["extra_metrics"]) == (3, 3, False, ("distinct",))
    assert list(o) == [
        "cp_lexicon",
        "cp_seed",
        "sbert",
        "pp_count_eos",
        "references_release",
        "extra_metrics",
        "precision",
    ]
    assert (
        o
        == dict(o)
        == {**ScoreOptions.of(None), "cp_seed": 3, "sbert": False, "extra_metrics": ("distinct",)}
    )
    assert hash(o) == hash(ScoreOptions.of(dict(o))) and o.get("gm_t") is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        o.cp_seed = 4
    with pytest.raises(KeyError):
        o["gm_t"]


def test_score_resolves_the_options_once_and_passes_them_down(fake_evaluators, tmp_path, monkeypatch):
    """One score call resolves its options dict once (ScoreOptions.of on a dict: one call), and the
    metrics' Context holds that very value."""
    d, _ = fake_evaluators
    from tst.scoring import compute

    real, real_context, resolved, contexts = ScoreOptions.of, compute.Context, [], []

    def counting(options):
        if not isinstance(options, ScoreOptions):
            resolved.append(dict(options or {}))
        return real(options)

    def context(*args, **kwargs):
        contexts.append(
            args[7]
        )  # Context(sources, outputs, styles, load, references, lists, system, options, ..)
        return real_context(*args, **kwargs)

    monkeypatch.setattr(ScoreOptions, "of", staticmethod(counting))
    monkeypatch.setattr(compute, "Context", context)
    write_lines(tmp_path / "src.0.txt", SOURCES[0])
    write_lines(tmp_path / "out.0.txt", OUTPUTS[0])
    meta = score_meta("toy", "mit", "test", "final")
    request = ScoreRequest(
        [tmp_path / "src.0.txt"],
        [tmp_path / "out.0.txt"],
        [0],
        meta=meta,
        evaluators=d,
        options={"cp_seed": 5},
    )
    obj = score(request)
    assert resolved == [{"cp_seed": 5}]
    assert len(contexts) == 1 and isinstance(contexts[0], ScoreOptions) and contexts[0].cp_seed == 5
    assert "distinct" in obj["metrics"]


def test_score_checks_its_inputs(fake_evaluators, tmp_path):
    d, _ = fake_evaluators
    write_lines(tmp_path / "src.0.txt", ["a b", "c"])
    write_lines(tmp_path / "out.0.txt", ["a b"])
    meta = score_meta("toy", "mit", "test", "final")
    with pytest.raises(InputError, match="has 1 lines but"):
        score(ScoreRequest([tmp_path / "src.0.txt"], [tmp_path / "out.0.txt"], [0], meta=meta, evaluators=d))
    with pytest.raises(RequestError, match="1 --sources files but 2 --outputs files") as e:
        ScoreRequest([tmp_path / "src.0.txt"], [tmp_path / "out.0.txt"] * 2, [0], meta=meta)
    assert e.value.code == 2  # a command-line mistake: tst score exits 2
    with pytest.raises(RequestError, match="unknown metric"):
        ScoreRequest([tmp_path / "src.0.txt"], [tmp_path / "src.0.txt"], [0], meta=meta, only=["bleu"])
    with pytest.raises(RequestError, match="source style of .*src.0.txt must be 0 or 1, not 2") as e:
        ScoreRequest([tmp_path / "src.0.txt"], [tmp_path / "out.0.txt"], [2], meta=meta)
    assert e.value.code == 1


def test_score_json_records_the_references_sha256(fake_evaluators, tmp_path):
    """The score JSON names the references ref-BLEU used by their sha256 (hashlib's digest of the bytes)."""
    import hashlib

    d, _ = fake_evaluators
    write_lines(tmp_path / "src.0.txt", SOURCES[0])
    write_lines(tmp_path / "out.0.txt", OUTPUTS[0])
    write_lines(tmp_path / "references.0.tsv", [f"{s}\t{o}" for s, o in zip(SOURCES[0], OUTPUTS[0])])
    meta = score_meta("toy", "M0.seed1", "test", "ep1.0")
    request = ScoreRequest(
        [tmp_path / "src.0.txt"],
        [tmp_path / "out.0.txt"],
        [0],
        meta=meta,
        references=[tmp_path / "references.0.tsv"],
        only=["bleu_ref_corpus"],
    )
    obj = score(request, Evaluators(d))
    want = hashlib.sha256((tmp_path / "references.0.tsv").read_bytes()).hexdigest()
    assert obj["references_sha256"] == {"references.0.tsv": want}
    assert "bleu_ref_corpus" in obj["metrics"]  # the references were used (two-word lines: BLEU-4 is 0)
