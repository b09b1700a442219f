"""Attribute-independent and attribute-dependent words from a dependency parse (Yu et al. 2021, §5.1).

Independent (§5.1.1): nouns and verbs whose VADER valence is neutral (step 1-2), Porter-stemmed (step 3),
plus personal pronouns except "it", possessive and reflexive pronouns (step 4).
Dependent (§5.1.2): nouns and verbs with valence (step 1) plus their dependency children with valence
(steps 2-3).

Decisions (the paper leaves them open; its lists in Tables 4-6 guided them, see tests/nlp/test_attributes.py):
- Valence is VADER's lexicon value of the lowercased word form (not the lemma: VADER scores word forms;
  "specials" is neutral in Table 5 although "special" has valence). A word absent from the lexicon is neutral.
- Proper nouns (UPOS PROPN) count as nouns by default: Tables 5-6 keep "denny", "chaplin", "charlie",
  "tuesday" (option include_proper_nouns).
- Masked NER placeholders (-PERSON-, -LOCATION-, ...) are proper nouns whatever the tagger says, and are
  kept verbatim (never stemmed or lowercased) so that they match the same placeholder in an output.
- AUX is not a verb here ("is" is absent from the Table 1 list "store, look, management, need, change").
- "Possessive pronoun" means the independent forms (mine, yours, hers, ours, theirs, and "his"/"her" when not
  tagged PRP$); possessive determiners (my, your, his + noun) are left out by default: no list in Tables 4-6
  holds one although "my", "your", "his" occur in their inputs (option possessive_determiners).
- Only tokens with a letter count (drops "30", "'", punctuation mis-tagged as nouns).
- dependent_heads="all" takes valence-carrying children of every noun/verb, not only of the emotional ones
  (the strict reading of §5.1.2, dependent_heads="emotional"): the paper's own lists hold "bad" of
  "bad food", "good" of "good food" (Table 5), whose heads are neutral. In this mode a copula (AUX) counts
  as a head too: UD (UDify) makes the predicate the head of "... which is really good" (attached to the
  noun), spaCy makes "is" the head and "good" its child; without this "good", "worse" (Tables 5-6) and
  every "the food was bad" would be lost.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from functools import lru_cache

from tst.imports import load_nltk
from tst.io import read_jsonl
from tst.nlp.backend import Doc, Token
from tst.nlp.vader import vader_lexicon

PLACEHOLDER = re.compile(r"^-[A-Z]+-$")  # masked entities of tst.nlp.ner, e.g. -PERSON-
PERSONAL = {"i", "me", "you", "he", "him", "she", "her", "we", "us", "they", "them", "thee", "thou", "ye"}
POSSESSIVE = {"mine", "yours", "his", "hers", "ours", "theirs"}
REFLEXIVE = {"myself", "yourself", "yourselves", "himself", "herself", "ourselves", "themselves", "oneself"}
POSSESSIVE_DETERMINERS = {"my", "your", "his", "her", "our", "their", "thy"}
HAS_LETTER = re.compile(r"[^\W\d_]")


@lru_cache(maxsize=1)
def _stemmer():
    """NLTK's Porter stemmer (nltk imported on first use, tst.imports.load_nltk)."""
    load_nltk()
    from nltk.stem import PorterStemmer

    return PorterStemmer()


@dataclass
class AttributeOptions:
    nouns_only: bool = False  # the paper's "more flexible" list: nouns (and pronouns), no verbs
    include_proper_nouns: bool = True
    pronouns: bool = True  # step 4 of §5.1.1
    possessive_determiners: bool = False  # my/your/his + noun count as possessive pronouns
    dependent_heads: str = "all"  # "all" nouns/verbs or only the "emotional" ones (strict §5.1.2)

    @classmethod
    def from_config(cls, cfg: dict | None) -> AttributeOptions:
        cfg = dict(cfg or {})
        known = set(asdict(cls()))
        unknown = sorted(set(cfg) - known)
        if unknown:
            raise ValueError(f"config key attributes: unknown option(s) {unknown}; allowed: {sorted(known)}")
        opts = cls(**cfg)
        if opts.dependent_heads not in ("all", "emotional"):
            raise ValueError(
                f"config key attributes.dependent_heads: {opts.dependent_heads!r}; "
                "allowed: 'all', 'emotional'"
            )
        return opts


# ---- parse records: the parse is an artifact of its own, so list options never trigger a reparse ----


def doc_to_record(doc: Doc) -> dict:
    """A parsed sentence as plain JSON lists (one entry per token)."""
    t = doc.tokens
    return {
        "tokens": [x.text for x in t],
        "lemma": [x.lemma for x in t],
        "pos": [x.pos for x in t],
        "tag": [x.tag for x in t],
        "dep": [x.dep for x in t],
        "head": [x.head for x in t],
    }


def record_to_doc(record: dict) -> Doc:
    cols = zip(record["tokens"], record["lemma"], record["pos"], record["tag"], record["dep"], record["head"])
    tokens = [Token(text=a, lemma=b, pos=c, tag=d, dep=e, head=int(f)) for a, b, c, d, e, f in cols]
    return Doc(tokens=tokens, ents=[])


def parse_records(backend, sentences: list[list[str]]) -> list[dict]:
    """Tagger + parser only (no NER) over pre-tokenized sentences, as parse records."""
    return [doc_to_record(d) for d in backend.annotate(sentences, parse=True, ner=False)]


def load_parses(path) -> list[Doc]:
    """Docs of a parse.jsonl file (one record per line, aligned with the parsed text)."""
    return [record_to_doc(r) for r in read_jsonl(path)]


# ---- words ----


def valence(word: str) -> float:
    """VADER lexicon valence of the lowercased word form; 0.0 (neutral) when absent."""
    return float(vader_lexicon().get(word.lower(), 0.0))


@lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    """Porter stem of the lowercased word (§5.1.1 step 3); NER placeholders stay as they are."""
    if PLACEHOLDER.match(word):
        return word
    return _stemmer().stem(word.lower())


def stem_tokens(tokens: list[str]) -> list[str]:
    return [stem(t) for t in tokens]


def _is_content(tok: Token, opts: AttributeOptions, nouns_only: bool) -> bool:
    """Noun or verb in the sense of §5.1.1 step 1 (placeholders count as proper nouns)."""
    if PLACEHOLDER.match(tok.text):
        return opts.include_proper_nouns
    if not HAS_LETTER.search(tok.text):
        return False
    if tok.pos == "NOUN" or (tok.pos == "PROPN" and opts.include_proper_nouns):
        return True
    return tok.pos == "VERB" and not nouns_only


def _is_kept_pronoun(tok: Token, opts: AttributeOptions) -> bool:
    """§5.1.1 step 4: personal pronouns except "it", possessive and reflexive pronouns."""
    w = tok.text.lower()
    if not opts.pronouns:
        return False
    if tok.tag == "PRP$" or (w in POSSESSIVE_DETERMINERS and w not in PERSONAL | POSSESSIVE):
        return opts.possessive_determiners and w in POSSESSIVE_DETERMINERS
    return w in PERSONAL or w in POSSESSIVE or w in REFLEXIVE


def independent_words(doc: Doc, opts: AttributeOptions | None = None) -> list[str]:
    """Attribute-independent words (lowercased surface forms, sentence order, repeats kept)."""
    opts = opts or AttributeOptions()
    out = []
    for tok in doc.tokens:
        neutral_content = _is_content(tok, opts, opts.nouns_only) and valence(tok.text) == 0.0  # steps 1-2
        if neutral_content or _is_kept_pronoun(tok, opts):  # step 4
            out.append(tok.text if PLACEHOLDER.match(tok.text) else tok.text.lower())
    return out


def dependent_words(doc: Doc, opts: AttributeOptions | None = None) -> list[str]:
    """Attribute-dependent words (§5.1.2), lowercased, sentence order, repeats kept."""
    opts = opts or AttributeOptions()
    toks = doc.tokens
    keep = [False] * len(toks)
    for i, tok in enumerate(toks):
        if tok.pos == "AUX" and opts.dependent_heads == "all":
            emotional = False  # a copula heading its clause (spaCy's scheme), see the module docstring
        elif not _is_content(tok, opts, nouns_only=False) or PLACEHOLDER.match(tok.text):
            continue
        else:
            emotional = valence(tok.text) != 0.0
        keep[i] = keep[i] or emotional  # step 1
        if emotional or opts.dependent_heads == "all":
            for j, child in enumerate(toks):  # steps 2-3: children that carry valence
                if child.head == i and j != i and valence(child.text) != 0.0:
                    keep[j] = True
    return [t.text.lower() for t, k in zip(toks, keep) if k]


def extract(doc: Doc, opts: AttributeOptions | None = None) -> dict:
    """One line of an attributes.jsonl file.

    independent: stemmed (what attribute hit compares); independent_words: the same words unstemmed
    (for embedding look-ups of the attribute regularizer); dependent: lowercased surface words.
    """
    words = independent_words(doc, opts)
    return {
        "independent": stem_tokens(words),
        "dependent": dependent_words(doc, opts),
        "independent_words": words,
    }


def load_attribute_lists(path, surface: bool = False) -> tuple[list[list[str]], list[list[str]]]:
    """(independent lists, dependent lists) of an attributes.jsonl file, aligned with its text file.

    surface=True returns the unstemmed independent words instead of the stems.
    """
    records = read_jsonl(path)
    key = "independent_words" if surface else "independent"
    return [r[key] for r in records], [r["dependent"] for r in records]
