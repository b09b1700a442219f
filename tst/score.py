"""Score one system's transfers with every metric whose evaluator is available; write JSON + TSV."""

from __future__ import annotations

import logging
import math
import re
from pathlib import Path

from tst.evaluators.classifiers import load_classifier
from tst.evaluators.embeddings import load_embeddings
from tst.evaluators.language_model import load_lm
from tst.evaluators.naturalness import load_naturalness
from tst.evaluators.style_lexicon import style_words
from tst.io import read_json, read_lines, sha256_of, write_json, write_lines
from tst.metrics.attribute_hit import attribute_hit
from tst.metrics.base import MetricResult
from tst.metrics.gm import DEFAULT_T, gm
from tst.nlp.vader import vader_words

log = logging.getLogger(__name__)

GM_T = DEFAULT_T  # Pang & Gimpel 2019 §3.3


class Scores(dict):
    """dict[str, MetricResult] plus what was skipped (metric -> reason) and the evaluator files used."""

    def __init__(self):
        super().__init__()
        self.skipped: dict[str, str] = {}
        self.evaluators: dict[str, Path] = {}  # file name relative to the evaluators dir -> path


class _Evaluators:
    """Loads each evaluator file at most once; remembers which were used."""

    def __init__(self, directory, scores: Scores):
        self.dir = Path(directory)
        self.scores = scores
        self.cache: dict[str, object] = {}

    def find(self, name: str) -> Path | None:
        path = self.dir / name
        return path if path.is_file() else None

    def load(self, name: str, loader=read_json):
        if name not in self.cache:
            path = self.dir / name
            self.cache[name] = loader(path)
            self.scores.evaluators[name] = path
        return self.cache[name]


def _split_ours(system: str) -> tuple[str, int | None]:
    m = re.fullmatch(r"(.+)\.seed(\d+)", system)
    return (m.group(1), int(m.group(2))) if m else (system, None)


def score_meta(dataset: str, system: str, split: str, checkpoint: str) -> dict:
    """The header of a score file: `M0.seed1` -> variant M0, seed 1; `ep1.5` -> epoch 1.5; `final` -> None."""
    variant, seed = _split_ours(system)
    m = re.fullmatch(r"ep(\d+(?:\.\d+)?)", checkpoint)
    return {"dataset": dataset, "system": system, "variant": variant, "seed": seed,
            "checkpoint": checkpoint, "epoch": float(m.group(1)) if m else None, "split": split}


def score_system(sources, outputs, source_styles, evaluators_dir, references=None, lists=None, *,
                 system: str | None = None, cp_lexicon: str = "vader", cp_seed: int = 0,
                 gm_t=GM_T, only=None) -> Scores:
    """Every metric whose evaluator file exists in `evaluators_dir`; the rest go to `.skipped` with a reason.

    sources, outputs: aligned lists of tokenized strings; source_styles: the style (0/1) of each source
    (target = 1 - style); references: per sentence a list of reference strings (None where a sentence has
    none), or None; lists: per-source attribute lists for attribute hit (Yu et al. 2021), or None;
    system: names the naturalness classifiers `naturalness/{system}.{lr,nn}.*`; cp_lexicon: words removed
    before CP ("vader" = VADER's sentiment lexicon, "style_lexicon" = style_lexicon.json, "none");
    only: optional collection of metric keys to compute.
    """
    from tst.metrics import acc, bleu, content_preservation, naturalness, perplexity, sim, sti, wmd

    n = len(outputs)
    if len(sources) != n or len(source_styles) != n:
        raise ValueError(f"{len(sources)} sources, {n} outputs, {len(source_styles)} styles: must be equal")
    targets = [1 - int(s) for s in source_styles]
    scores = Scores()
    ev = _Evaluators(evaluators_dir, scores)

    def want(key):
        return only is None or key in only

    def run(key, files, compute):
        """Compute metric `key` when every file in `files` exists, else record why it was skipped."""
        if not want(key):
            return
        missing = [f for f in files if ev.find(f) is None]
        if missing:
            scores.skipped[key] = f"missing evaluator file(s): {', '.join(missing)}"
            return
        scores[key] = compute()
        log.info("%s: %s", key, scores[key].score if key in scores else scores.skipped[key])


    run("acc", ["style_cnn.pt"], lambda: acc.accuracy(outputs, targets, ev.load("style_cnn.pt", load_classifier)))
    run("transfer_strength", ["style_lstm.pt"], lambda: acc.accuracy(
        outputs, targets, ev.load("style_lstm.pt", load_classifier), name="transfer_strength",
        variant="Fu et al. 2018 transfer strength: share of outputs the LSTM-sigmoid puts in the target style"))
    run("sti", ["style_cnn.pt"], lambda: sti.sti(sources, outputs, targets, ev.load("style_cnn.pt", load_classifier)))
    run("sim", ["glove.kv", "idf.json"], lambda: sim.sim(
        sources, outputs, ev.load("glove.kv", load_embeddings), ev.load("idf.json")))

    lex_files = {"vader": [], "none": [], "style_lexicon": ["style_lexicon.json"]}
    if cp_lexicon not in lex_files:
        raise ValueError(f"cp_lexicon must be one of {sorted(lex_files)}, not {cp_lexicon!r}")

    def cp_words():
        if cp_lexicon == "vader":
            return vader_words()
        if cp_lexicon == "style_lexicon":
            return style_words(ev.load("style_lexicon.json"))
        return frozenset()

    run("cp", ["glove.kv", *lex_files[cp_lexicon]], lambda: content_preservation.content_preservation(
        sources, outputs, ev.load("glove.kv", load_embeddings), cp_words(), lexicon_name=cp_lexicon))
    run("cp_random", ["glove.kv", *lex_files[cp_lexicon]],
        lambda: content_preservation.random_pair_content_preservation(
            sources, outputs, ev.load("glove.kv", load_embeddings), cp_words(), seed=cp_seed, lexicon_name=cp_lexicon))

    run("pp_joint", ["lm_joint.pt"], lambda: perplexity.perplexity(outputs, ev.load("lm_joint.pt", load_lm)))
    run("pp_target", ["lm_style0.pt", "lm_style1.pt"], lambda: perplexity.perplexity_by_style(
        outputs, targets, {s: ev.load(f"lm_style{s}.pt", load_lm) for s in (0, 1)}))

    for mode, kv in (("masked", "word2vec_masked.kv"), ("removed", "word2vec.kv")):
        run(f"wmd_{mode}", ["style_lexicon.json", kv], lambda mode=mode, kv=kv: wmd.wmd(
            sources, outputs, ev.load(kv, load_embeddings), style_words(ev.load("style_lexicon.json")), mode))

    for kind in ("lr", "nn"):
        key = f"naturalness_{kind}"
        if not want(key):
            continue
        found = sorted((ev.dir / "naturalness").glob(f"{system}.{kind}.*")) if system else []
        if not found:
            scores.skipped[key] = ("no system name given" if not system
                                   else f"missing evaluator file: naturalness/{system}.{kind}.json|pt")
            continue
        name = f"naturalness/{found[0].name}"
        run(key, [name], lambda name=name, key=key: naturalness.naturalness(
            outputs, ev.load(name, load_naturalness), name=key))

    for kind in ("corpus", "sentence"):
        if want(f"bleu_self_{kind}"):
            scores[f"bleu_self_{kind}"] = bleu.self_bleu(sources, outputs, kind)
        if not want(f"bleu_ref_{kind}"):
            continue
        have = [i for i in range(n) if references is not None and references[i]]
        if not have:
            scores.skipped[f"bleu_ref_{kind}"] = "no human references given"
            continue
        r = bleu.ref_bleu([outputs[i] for i in have], [references[i] for i in have], kind)
        r.details["n_with_reference"] = len(have)
        if r.per_sentence:  # back onto the full corpus, None where a sentence has no reference
            full = [None] * n
            for i, v in zip(have, r.per_sentence):
                full[i] = v
            r.per_sentence = full
        scores[f"bleu_ref_{kind}"] = r

    if want("gm"):
        _add_gm(scores, gm_t)
    if want("attribute_hit"):
        _add_attribute_hit(scores, lists, outputs)
    for key, why in scores.skipped.items():
        log.warning("skipped %s: %s", key, why)
    return scores


def _add_gm(scores: Scores, t) -> None:
    need = [k for k in ("acc", "sim", "pp_joint") if k not in scores or scores[k].score is None]
    if need:
        scores.skipped["gm"] = f"needs {', '.join(need)}"
        return
    a, s, p = scores["acc"].score, scores["sim"].score, scores["pp_joint"].score
    value = float(gm(a, s, p, t=tuple(t)))
    scores["gm"] = MetricResult("gm", f"Pang & Gimpel 2019 eq. 1 on corpus Acc, Sim, PP (joint LM), t={list(t)}",
                                value, [], True, {"t": list(t)})


def _add_attribute_hit(scores: Scores, lists, outputs) -> None:
    if lists is None:
        scores.skipped["attribute_hit"] = "no attribute lists given"
        return
    tokens = [o.split() if isinstance(o, str) else list(o) for o in outputs]
    scores["attribute_hit"] = attribute_hit(lists, tokens)


def score_json(scores: Scores, meta: dict, n_sentences: int) -> dict:
    """The score-file object of docs/interfaces.md, with each used evaluator's sha256 and the skip reasons."""
    return {**meta, "n_sentences": n_sentences,
            "metrics": {k: r.to_json() for k, r in scores.items()},
            "evaluators": {name: sha256_of(path) for name, path in sorted(scores.evaluators.items())},
            "skipped": dict(scores.skipped)}


def write_score_json(path, scores: Scores, meta: dict, n_sentences: int) -> dict:
    obj = score_json(scores, meta, n_sentences)
    write_json(path, obj)
    return obj


def _cell(v) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    return repr(float(v))


def write_score_tsv(path, scores: Scores, source_styles) -> list[str]:
    """Per-sentence TSV: `i`, `source_style`, then one column per metric with per-sentence values
    (corpus-only metrics such as corpus BLEU and GM have none); empty cell = undefined."""
    n = len(source_styles)
    cols = [k for k, r in scores.items() if len(r.per_sentence) == n and n > 0]
    lines = ["\t".join(["i", "source_style", *cols])]
    for i in range(n):
        lines.append("\t".join([str(i), str(int(source_styles[i]))]
                               + [_cell(scores[k].per_sentence[i]) for k in cols]))
    write_lines(path, lines)
    return cols


def read_references(paths, sources) -> list[list[str] | None]:
    """References per source from `source<TAB>reference[<TAB>reference2...]` files, matched on the exact
    source text (None where a source has no line); a source listed twice gets all its references."""
    table: dict[str, list[str]] = {}
    for path in paths:
        for line in read_lines(path):
            if not line.strip():
                continue
            cols = line.split("\t")
            if len(cols) < 2:
                raise ValueError(f"{path}: expected source<TAB>reference, got {line!r}")
            table.setdefault(cols[0].strip(), []).extend(c.strip() for c in cols[1:] if c.strip())
    return [table.get(s.strip()) for s in sources]
