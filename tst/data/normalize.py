"""Sentence normalization and the length filter (config keys `normalize:` and `length:`)."""

from __future__ import annotations

import re
from functools import lru_cache

from tst.defaults import schema_default

NUM = "<num>"
_NUMBER = re.compile(r"^[+-]?(\d+([.,:/]\d+)*|\d*[.,]\d+)(st|nd|rd|th|s|%)?$")


@lru_cache(maxsize=1)
def _treebank():
    from tst.imports import load_nltk

    load_nltk()
    from nltk.tokenize import TreebankWordTokenizer

    return TreebankWordTokenizer()


def normalize_settings(block: dict | None) -> dict[str, bool]:
    """A dataset's `normalize:` block (lowercase, numbers, tokenize), the schema's default for a key it leaves
    out."""
    keys = ("lowercase", "numbers", "tokenize")
    return {k: bool((block or {}).get(k, schema_default("datasets", "any", "normalize", k))) for k in keys}


def is_number(token: str) -> bool:
    """A digit string such as 3, 3.5, 1,000, 10:30, 2nd, 90s or 50% (Fu et al. replace these by <num>)."""
    return bool(_NUMBER.match(token))


def ptb_tokenize(text: str) -> list[str]:
    """Penn-Treebank tokens of raw text ("it's good." -> it 's good .)."""
    return _treebank().tokenize(text)


def normalize_tokens(
    text: str, lowercase: bool = True, numbers: bool = False, tokenize: bool = False
) -> list[str]:
    """One line -> tokens: optional PTB tokenization, lowercasing, numbers -> <num>; whitespace collapsed."""
    tokens = ptb_tokenize(text) if tokenize else text.split()
    if lowercase:
        tokens = [t.lower() for t in tokens]
    if numbers:
        tokens = [NUM if is_number(t) else t for t in tokens]
    return tokens


# Tokens protected when text is tokenized again: the quotes the PTB tokenizer itself writes (NLTK's Treebank
# tokenizer reads a closing '' after a space as an opening quote: `` ... `` instead of `` ... '') and placeholder
# tokens such as <unk>, <num> or a system's <UNK> (it would split them into < unk >). With them protected,
# retokenize is the identity on tokenized text.
_PTB_QUOTES = {"``": "\ue000", "''": "\ue001"}
_PLACEHOLDER = re.compile(r"^<[^<>\s]+>$")


def retokenize(text: str) -> list[str]:
    """PTB tokens of a line that may be raw text (cased, detokenized, as people and LLMs write) or already
    tokenized: raw text is split as the corpus was ("It didn't." -> It did n't .), tokenized text comes back
    as it was (PTB quote tokens kept)."""
    kept: list[str] = []  # placeholders, put back in order

    def protect(token: str) -> str:
        if token in _PTB_QUOTES:
            return _PTB_QUOTES[token]
        if _PLACEHOLDER.match(token):
            kept.append(token)
            return "\ue002"
        return token

    back = {v: k for k, v in _PTB_QUOTES.items()}
    tokens = ptb_tokenize(" ".join(protect(t) for t in text.split()))
    kept.reverse()
    return [kept.pop() if t == "\ue002" else back.get(t, t) for t in tokens]


@lru_cache(maxsize=1)
def _detokenizer():
    from tst.imports import load_nltk

    load_nltk()
    from nltk.tokenize.treebank import TreebankWordDetokenizer

    return TreebankWordDetokenizer()


def detokenize(words: list[str], like: str = "", names=()) -> str:
    """Words (PTB tokens, lowercased as the corpus) as people write them (`tst transfer --detokenize`): each
    word cased as the raw line `like` writes it (its first word only when it is one of `names`, the words of the
    names NER found: a sentence's first word is capitalized anyway), "i" as "I", the first letter capitalized,
    the tokens joined back (NLTK's Treebank detokenizer: "did n't" -> "didn't", "`` a ''" -> '"a"')."""
    cased = {}
    names = {n.lower() for n in names}
    for k, t in enumerate(ptb_tokenize(like) if like else []):
        if t != t.lower() and (k > 0 or t.lower() in names):
            cased.setdefault(t.lower(), t)
    out = [cased.get(w, "I" if w == "i" else w) for w in words]
    text = _detokenizer().detokenize(out)
    return text[:1].upper() + text[1:]


# Curly quotes and apostrophes (as word processors and LLMs write them) -> the ASCII forms the PTB tokenizer reads:
# "didn’t" -> did n't, “great” -> `` great '' (the forms of the tokenized corpora: Yelp, Amazon, IMDB, SST-2).
CURLY_QUOTES = str.maketrans({"‘": "'", "’": "'", "‛": "'", "“": '"', "”": '"', "„": '"', "‟": '"'})


def scoring_normalizer(cfg: dict | None, placeholders=()):
    """The normalization `tst score` applies to every line it reads (sources, outputs, references) so that text
    written as people write it is scored as the workflow scores the corpus and the published systems: curly
    quotes to ASCII (CURLY_QUOTES), PTB tokens (retokenize: the identity on tokenized text), then the dataset's
    `normalize:` block (lowercase, numbers). `placeholders`: the corpus's NER placeholder tokens (-PERSON-, ...),
    kept exactly as the corpus writes them, in whatever case they come (-person- -> -PERSON-): lowercased, the
    evaluators would read them as unknown words. A function line -> normalized line (a references line: each
    TAB-separated column)."""
    c = normalize_settings(cfg)
    lowercase, numbers = c["lowercase"], c["numbers"]
    keep = {p.lower(): p for p in placeholders}

    def token(t: str) -> str:
        if t.lower() in keep:
            return keep[t.lower()]
        t = t.lower() if lowercase else t
        return NUM if numbers and is_number(t) else t

    def one(text: str) -> str:
        return " ".join(token(t) for t in retokenize(text.translate(CURLY_QUOTES)))

    return lambda line: "\t".join(one(col) for col in line.split("\t"))


def normalization_record(normalize: dict) -> dict:
    """What a `tst score` JSON says of its normalization ({"normalize": block or None, "from": where,
    "placeholders": the NER placeholders kept as written})."""
    block = normalize.get("normalize")
    if block is None:
        return {"applied": False, "note": "lines scored as given (--no-normalize)"}
    return {
        "applied": True,
        "tokenize": "PTB (NLTK Treebank; tokenized text is left as it is; curly quotes read as ' and \")",
        "lowercase": normalize_settings(block)["lowercase"],
        "numbers": normalize_settings(block)["numbers"],
        "placeholders": sorted(normalize.get("placeholders") or ()),
        "from": normalize.get("from"),
    }


def normalizer(cfg: dict | None):
    """A function line -> tokens from a dataset's `normalize:` block (lowercase, numbers, tokenize)."""
    c = normalize_settings(cfg)
    lowercase, numbers, tokenize = c["lowercase"], c["numbers"], c["tokenize"]
    return lambda text: normalize_tokens(text, lowercase=lowercase, numbers=numbers, tokenize=tokenize)


def length_limits(length: dict | None) -> tuple[int, int]:
    """(min_words, max_words) of a dataset's `length:` block, each the schema's default where the block is silent:
    the one reading of the limits that preparing the corpus, the config's checks and the scoring cut share."""
    length = length or {}
    return tuple(
        int(length.get(k, schema_default("datasets", "any", "length", k))) for k in ("min_words", "max_words")
    )


def length_ok(tokens: list[str], min_words: int = 1, max_words: int | None = None) -> bool:
    """The length filter: min_words <= len(tokens) <= max_words (None = no upper bound)."""
    n = len(tokens)
    return n >= min_words and (max_words is None or n <= max_words)
