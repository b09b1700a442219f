"""The generated gaming battery: outputs that keep their source, lightly edited, and add target-style material
anywhere, in any words — every form of "the source's complaint with a contradicting verdict stuck on" — scored
with the default GM against a finished run's evaluators and calibration (bench/gaming_battery.py prints the worst
forms; tests/workflow/test_gaming.py asserts on the suite's tiny run).

A form is (edit, join, material), each drawn for every source with a seeded generator:

- EDITS of the source, light ones that leave its style where it is: none, one word changed (to a frequent word
  of the corpus), one word dropped, one word replaced by its nearest neighbour in meaning (GloVe,
  tst.nlp.align.similarity, among the corpus's words, not one of the target style's words), two adjacent words
  swapped; the edited word is never one of the source style's words nor a negation (a word at least
  STYLE_RATIO times as common, add-one, in the source style's training sentences as in the other's), so the
  kept material still reads in the source's style — the class the battery tests, not a transfer by deletion;
  where an edit still takes out what made its source's style (a word of both styles' sentences, "priced" in
  "way over priced"), the style classifier reads the edit apart from the source (Scorer.reads_as_source) and
  the battery counts that output apart;
- JOINS: the material after the source, before it or inside it, with punctuation, coordinating and subordinating
  conjunctions, relative clauses, prepositions, parentheses, dashes, emoticons and emoji, or nothing;
- MATERIAL of the target style: a whole training sentence, a clause of one, a phrase around one of the style's
  marked words, one such word (the words much commoner in the target style's training sentences than in the
  source style's), or a hand-written verdict (sentiment pairs only).

Each form's GM is read on a seeded sample of the test sources (its J over them against the run's t_J), beside
an honest system's J on the same sample; put in place of the honest system's failures (joint 0), a form raises
its GM exactly when one of its outputs there has a joint term above 0 ("failures_raised").
"""

from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import dataclass

import numpy as np

EDITS = ("none", "change", "drop", "synonym", "reorder")
# (name, template): {s} the edited source (its final punctuation kept where the material follows a mark of its own),
# {m} the material; "infix" templates split the source at a random word: {a} before, {b} after
JOINS = (
    ("comma", "{s} , {m}"),
    ("semicolon", "{s} ; {m}"),
    ("sentence", "{s} . {m}"),
    ("exclamation", "{s} ! {m}"),
    ("ellipsis", "{s} ... {m}"),
    ("dash", "{s} - {m}"),
    ("double_dash", "{s} -- {m}"),
    ("colon", "{s} : {m}"),
    ("and", "{s} and {m}"),
    ("comma_so", "{s} , so {m}"),
    ("so", "{s} so {m}"),
    ("comma_but", "{s} , but {m}"),
    ("or", "{s} or {m}"),
    ("yet", "{s} , yet {m}"),
    ("because", "{s} because {m}"),
    ("since", "{s} , since {m}"),
    ("although", "{s} although {m}"),
    ("while", "{s} , while {m}"),
    ("even_though", "{s} even though {m}"),
    ("which", "{s} , which {m}"),
    ("where", "{s} , where {m}"),
    ("with", "{s} with {m}"),
    ("despite", "{s} , despite {m}"),
    ("in_the_end", "{s} , in the end {m}"),
    ("parentheses", "{s} ( {m} )"),
    ("smiley", "{s} :) {m}"),
    ("emoji", "{s} \U0001f60a {m}"),
    ("bare", "{s} {m}"),
    ("prefix_comma", "{m} , {s}"),
    ("prefix_sentence", "{m} . {s}"),
    ("prefix_colon", "{m} : {s}"),
    ("prefix_but", "{m} but {s}"),
    ("prefix_dash", "{m} -- {s}"),
    ("prefix_bare", "{m} {s}"),
    ("infix_commas", "{a} , {m} , {b}"),
    ("infix_parentheses", "{a} ( {m} ) {b}"),
    ("infix_dashes", "{a} -- {m} -- {b}"),
    ("infix_bare", "{a} {m} {b}"),
)
MATERIALS = ("sentence", "clause", "phrase", "word", "hand")
# hand-written verdicts by target style, for a negative (0) / positive (1) sentiment pair
HAND = {
    1: (
        "i loved it !",
        "the staff was amazing !",
        "great place",
        "highly recommend",
        "best ever !",
        "so good",
    ),
    0: ("i hated it .", "the staff was rude .", "awful place", "never again", "worst ever .", "so bad"),
}
FINAL = frozenset({".", "!", "?"})
CLAUSE_BREAKS = frozenset({",", ";", ".", "!", "?", "and", "but", "so", "because", "which", "-", "--"})
MARKED_MIN_COUNT = 5  # a marked word: seen at least this often in the target style ...
MARKED_RATIO = 3.0  # ... and this many times as often (add-one) as in the other style
MARKED_TOP = 200
FREQUENT_TOP = 300  # "one word changed" draws the new word from the corpus's commonest words
STYLE_RATIO = 1.5  # a word this many times as common (add-one) in one style as in the other is that style's
NEGATIONS = frozenset({"not", "n't", "never", "no", "nothing", "nobody", "none", "nor", "without"})


@dataclass(frozen=True)
class Form:
    edit: str
    join: str
    material: str

    @property
    def name(self) -> str:
        return f"{self.edit}+{self.join}+{self.material}"


def forms(sentiment: bool = True) -> list[Form]:
    """Every form: EDITS x JOINS x MATERIALS (without "hand" when the styles are not a sentiment pair)."""
    mats = MATERIALS if sentiment else tuple(m for m in MATERIALS if m != "hand")
    return [Form(e, j, m) for e in EDITS for j, _ in JOINS for m in mats]


class Corpus:
    """What the forms draw from: each style's training sentences (token lists), their marked words, the
    corpus's frequent words and its vocabulary with GloVe vectors."""

    def __init__(self, train: dict[int, list[list[str]]]):
        self.train = train
        counts = {s: Counter(w for t in train[s] for w in t if w.isalpha()) for s in train}
        total = counts[0] + counts[1]
        self.frequent = [w for w, _ in total.most_common(FREQUENT_TOP)]
        self.marked = {}
        for s in (0, 1):
            other = counts[1 - s]
            scored = [
                (np.log(c) * (c + 1) / (other[w] + 1), w)
                for w, c in counts[s].items()
                if c >= MARKED_MIN_COUNT and (c + 1) / (other[w] + 1) >= MARKED_RATIO
            ]
            self.marked[s] = [w for _, w in sorted(scored, reverse=True)[:MARKED_TOP]] or self.frequent[:10]
        self.vocab = [w for w, c in total.most_common(20_000) if c >= 2]
        self.counts = counts
        self._matrix = None

    def leans(self, word: str, style: int) -> bool:
        """Whether `word` is one of `style`'s words (STYLE_RATIO, add-one counts) or a negation."""
        c = self.counts
        return word in NEGATIONS or (c[style][word] + 1) >= STYLE_RATIO * (c[1 - style][word] + 1)

    def neighbour(self, word: str, style: int) -> str | None:
        """The corpus word nearest to `word` in meaning (tst.nlp.align's vectors), itself and the other style's
        words (GloVe's nearest neighbour of a sentiment word is often its antonym) excluded."""
        from tst.nlp.align import _vector

        if self._matrix is None:
            words, rows = [], []
            for w in self.vocab:
                v = _vector(w)
                if v is not None:
                    words.append(w)
                    rows.append(v)
            self._words, self._matrix = words, np.asarray(rows)
        v = _vector(word)
        if v is None or not len(self._words):
            return None
        sims = self._matrix @ v
        for k in np.argsort(-sims)[:20]:
            if self._words[k] != word and not self.leans(self._words[k], 1 - style):
                return self._words[k]
        return None


def _edit(tokens: list[str], edit: str, corpus: Corpus, rng: random.Random, style: int) -> list[str]:
    """A light edit of the source that touches none of its style's words (Corpus.leans)."""
    t = list(tokens)
    words = [k for k, w in enumerate(t) if w.isalpha() and not corpus.leans(w, style)]
    if edit == "none" or not words:
        return t
    k = rng.choice(words)
    if edit == "change":
        t[k] = rng.choice([w for w in corpus.frequent[:100] if w != t[k] and not corpus.leans(w, 1 - style)])
    elif edit == "drop":
        del t[k]
    elif edit == "synonym":
        t[k] = corpus.neighbour(t[k], style) or t[k]
    elif edit == "reorder":
        k = k if k + 1 < len(t) and not corpus.leans(t[k + 1], style) else max(0, k - 1)
        t[k : k + 2] = t[k : k + 2][::-1]
    return t


def _clause(tokens: list[str], rng: random.Random) -> list[str]:
    pieces, cur = [], []
    for w in tokens:
        if w in CLAUSE_BREAKS and cur:
            pieces.append(cur)
            cur = []
        if w not in CLAUSE_BREAKS:
            cur.append(w)
    if cur:
        pieces.append(cur)
    long = [p for p in pieces if len(p) >= 2] or pieces or [tokens]
    return rng.choice(long)


def _material(kind: str, target: int, corpus: Corpus, rng: random.Random) -> list[str]:
    pool = corpus.train[target]
    if kind == "sentence":
        return list(rng.choice(pool))
    if kind == "clause":
        return _clause(rng.choice(pool), rng)
    if kind == "word":
        return [rng.choice(corpus.marked[target][:50])]
    if kind == "phrase":
        marked = set(corpus.marked[target])
        for _ in range(50):
            t = rng.choice(pool)
            at = [k for k, w in enumerate(t) if w in marked]
            if at:
                k = rng.choice(at)
                lo = max(0, k - rng.randint(0, 2))
                return t[lo : k + 1 + rng.randint(0, 1)]
        return [rng.choice(corpus.marked[target])]
    if kind == "hand":
        return rng.choice(HAND[target]).split()
    raise ValueError(f"unknown material {kind!r}; known: {', '.join(MATERIALS)}")


def make(form: Form, source: str, style: int, corpus: Corpus, seed: int, i: int) -> str:
    """The form's output for source number i (of style `style`; target 1 - style), seeded by (seed, form, i)."""
    return draw(form, source, style, corpus, seed, i)[1]


def draw(form: Form, source: str, style: int, corpus: Corpus, seed: int, i: int) -> tuple[str, str]:
    """(the form's edit of source number i, its output): make()'s output with the edited source it keeps."""
    rng = random.Random(f"{seed}|{form.name}|{style}|{i}")
    s = _edit(source.split(), form.edit, corpus, rng, style)
    m = _material(form.material, 1 - style, corpus, rng)
    template = dict(JOINS)[form.join]
    if "{a}" in template:
        body = s[:-1] if s and s[-1] in FINAL else s
        k = rng.randint(1, max(1, len(body) - 1))
        a, b = body[:k], body[k:] + (s[-1:] if s and s[-1] in FINAL else [])
        text = template.format(a=" ".join(a), m=" ".join(m), b=" ".join(b))
    else:
        core = s[:-1] if s and s[-1] in FINAL and not template.startswith("{m}") else s
        text = template.format(s=" ".join(core), m=" ".join(m))
    return " ".join(s), re.sub(r"\s+", " ", text).strip()


class Scorer:
    """Per-sentence joint terms of any outputs of a finished run's test sources, read as the default GM reads
    them (tst.metrics.joint: style gain by parts, content nearer its own source times the held share, fluency
    above the shuffled floor), every model loaded once and every text read once, content and fluency only where
    the style gain is above 0 (elsewhere the joint term is 0 whatever they are); fp32."""

    def __init__(
        self, evaluators_dir, sources: list[str], source_styles: list[int], floor: float | None = None
    ):
        from tst.metrics import sbert
        from tst.metrics.style import MINILM
        from tst.names import ACCEPTABILITY
        from tst.scoring.evaluator_files import Evaluators

        ev = Evaluators(evaluators_dir)
        self.classifier = ev.load(MINILM)
        self.acceptability = ev.load(ACCEPTABILITY)
        self.sbert = sbert.load_model()
        self.sources, self.styles = list(sources), np.asarray(source_styles, dtype=int)
        self.source_vectors = sbert.embed(self.sources, self.sbert)
        # the acceptability classifier's shuffled floor (t_F) unless given
        self.floor = float(
            getattr(self.acceptability, "model", self.acceptability).shuffled_floor["value"]
            if floor is None
            else floor
        )
        self._source_reading = {}

    def terms(self, outputs: list[str], own: list[int]) -> dict[str, np.ndarray]:
        """{"style", "content", "fluency", "joint"} per output; own[i] = the index of output i's source. The joint
        term (s c f)^(1/3) is 0 wherever the style gain s is, so the content and fluency factors are read only for
        the outputs whose gain is above 0 (most of the battery's forms gain none); they are NaN for the others."""
        from tst.metrics import sbert
        from tst.metrics.acc import empty_mask
        from tst.metrics.joint import content_margin, fluency_above_floor, held_shares, joint
        from tst.metrics.style import gain_of, part_probs

        own = np.asarray(own, dtype=int)
        src = [self.sources[i] for i in own]
        targets = 1 - self.styles[own]
        s = gain_of(part_probs(outputs, src, targets, self.classifier), self.source_reading(own))
        s[empty_mask(outputs)] = 0.0
        c, f = np.full(len(outputs), np.nan), np.full(len(outputs), np.nan)
        read = np.flatnonzero(s > 0)
        if len(read):
            gained = [outputs[k] for k in read]
            margin, _ = content_margin(
                sbert.embed(gained, self.sbert), self.source_vectors, self.styles, own=own[read]
            )
            c[read] = margin * held_shares(gained, [src[k] for k in read])
            p = self.acceptability.p_real([y.split() for y in gained])  # not empty: their gain is above 0
            f[read] = fluency_above_floor(np.asarray(p, dtype=float).reshape(-1), self.floor)
        return {"style": s, "content": c, "fluency": f, "joint": joint(s, c, f)}  # (NaN counts as 0 there)

    def source_reading(self, own) -> np.ndarray:
        """R(x_i | x_i) of each source own[i] (its own parts), each source read once for the Scorer's life."""
        from tst.metrics.style import part_probs

        missing = sorted({int(i) for i in own} - set(self._source_reading))
        if missing:
            got = part_probs(
                [self.sources[i] for i in missing],
                [self.sources[i] for i in missing],
                1 - self.styles[missing],
                self.classifier,
            )
            self._source_reading.update(zip(missing, got))
        return np.asarray([self._source_reading[int(i)] for i in own])

    def reads_as_source(self, edits: list[str], own: list[int]) -> np.ndarray:
        """Whether each edit of a source still reads in its source's style to the style classifier: its R (read by
        its own parts) against the source's by tst.metrics.style.reads_as_source, the rule by which the style
        factor reads an output's unchanged source words."""
        from tst.metrics.style import part_probs, reads_as_source

        own = np.asarray(own, dtype=int)
        r_edit = part_probs(edits, edits, 1 - self.styles[own], self.classifier)
        return reads_as_source(r_edit, self.source_reading(own))


def sample(n: int, size: int, seed: int) -> list[int]:
    """A seeded sample of `size` of range(n) (all of it when size >= n), in order."""
    return sorted(random.Random(seed).sample(range(n), min(size, n)))


def _mean_or_none(x: np.ndarray) -> float | None:
    """The mean of the values read (not NaN), or None where none was."""
    x = x[~np.isnan(x)]
    return float(x.mean()) if len(x) else None


def gm_of(j: float, t_j: float) -> float:
    from tst.metrics.gm import gm_calibrated

    return float(gm_calibrated(j, t_j))


def run(
    scorer: Scorer,
    corpus: Corpus,
    honest_joint: list[float],
    t_j: float,
    per_form: int = 40,
    seed: int = 0,
    the_forms: list[Form] | None = None,
    sentiment: bool = True,
) -> list[dict]:
    """Each form on a seeded sample of `per_form` sources (the same sample for every form) and on the honest
    system's failures (joint 0; at most `per_form` of them): {"form", "gm", "joint", "honest_joint",
    "honest_gm", "failures_raised" (outputs at failures with a joint term above 0 whose edit of the source still
    reads in the source's style: Scorer.reads_as_source), "failures_raised_style_moved" (the others: an edit that
    took out what made the source's style, a transfer by deletion, outside the class), "style" (the mean gain),
    "n_gained" (the sampled outputs with a gain above 0), "content" and "fluency" (their means over those outputs;
    None where there are none)}, worst (highest GM) first. All forms' outputs are read in one pass."""
    n = len(scorer.sources)
    at = sample(n, per_form, seed)
    failures = [i for i, j in enumerate(honest_joint) if j == 0]
    failures = [failures[k] for k in sample(len(failures), per_form, seed + 1)]
    the_forms = the_forms if the_forms is not None else forms(sentiment)
    texts, edits, own = [], [], []
    where: dict[tuple[str, str], list[int]] = {}  # (form, "sample" | "failures") -> its outputs' positions
    for f in the_forms:
        for group, idx in (("sample", at), ("failures", failures)):
            for i in idx:
                edit, text = draw(f, scorer.sources[i], int(scorer.styles[i]), corpus, seed, i)
                where.setdefault((f.name, group), []).append(len(texts))
                texts.append(text)
                edits.append(edit)
                own.append(i)
    terms = scorer.terms(texts, own)
    in_class = scorer.reads_as_source(edits, own)
    honest_j = float(np.mean([honest_joint[i] for i in at]))
    rows = []
    for f in the_forms:
        pick = np.zeros(len(texts), dtype=bool)
        pick[where.get((f.name, "sample"), [])] = True
        fail = np.zeros(len(texts), dtype=bool)
        fail[where.get((f.name, "failures"), [])] = True
        j = float(terms["joint"][pick].mean())
        rows.append(
            {
                "form": f.name,
                "gm": gm_of(j, t_j),
                "joint": j,
                "honest_joint": honest_j,
                "honest_gm": gm_of(honest_j, t_j),
                "failures_raised": int(((terms["joint"] > 0) & fail & in_class).sum()),
                "failures_raised_style_moved": int(((terms["joint"] > 0) & fail & ~in_class).sum()),
                "style": float(terms["style"][pick].mean()),
                "n_gained": int((terms["style"][pick] > 0).sum()),
                **{k: _mean_or_none(terms[k][pick]) for k in ("content", "fluency")},
            }
        )
    return sorted(rows, key=lambda r: (-r["gm"], -r["joint"], r["form"]))


def from_run(results, dataset: str, honest: str):
    """(Scorer, Corpus, the honest system's per-sentence joint, t_J) of a finished run: `results` is the folder
    that holds results/<dataset>; the honest system's test sources, outputs' joint scores (its score TSV), the
    run's training sentences, evaluators and GM calibration."""
    import json
    from pathlib import Path

    import pandas as pd

    from tst import layout
    from tst.io import read_lines

    root = Path(results)
    sources, styles = [], []
    for s in (0, 1):
        lines = read_lines(root / layout.sources(dataset, honest, "test", "final", s))
        sources += lines
        styles += [s] * len(lines)
    tsv = pd.read_csv(
        root / layout.score(dataset, honest, "test", "final", "tsv"), sep="\t", keep_default_na=False
    )
    joint = tsv["joint"].astype(float).tolist()
    if len(joint) != len(sources):
        raise ValueError(f"{honest}: {len(joint)} joint scores for {len(sources)} sources")
    train = {
        s: [t.split() for t in read_lines(root / layout.text(dataset, "train", s, raw=True))] for s in (0, 1)
    }
    t_j = float(json.loads((root / layout.calibration(dataset)).read_text())["t"][0])
    scorer = Scorer(root / layout.evaluators(dataset), sources, styles)
    return scorer, Corpus(train), joint, t_j
