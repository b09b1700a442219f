"""The input files of one score request read into aligned lists (read_inputs), under one policy for every file
(Reader): bytes that are not UTF-8 (tst.io.ENCODING_ERRORS), lines holding a control character (read as
empty), lines longer than max_words (cut and counted), and the scoring normalization when the request asks for
it (tst.data.normalize.scoring_normalizer)."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from tst.data.normalize import scoring_normalizer
from tst.io import InputError, has_control, parse_jsonl, read_lines_counted
from tst.metrics.bleu import read_references
from tst.metrics.registry import SCORE_CHARS_PER_WORD

log = logging.getLogger(__name__)


def cut_words(line: str, max_words: int | None) -> str | None:
    """`line` cut to its first max_words tokens (split on whitespace, joined by one space) and then to
    SCORE_CHARS_PER_WORD x max_words characters, or None when it is within both (or max_words is None)."""
    if max_words is None:
        return None
    tokens = line.split(maxsplit=max_words)
    too_many = len(tokens) > max_words
    cut = " ".join(tokens[:max_words]) if too_many else line
    max_chars = SCORE_CHARS_PER_WORD * max_words
    if len(cut) > max_chars:
        return cut[:max_chars].rstrip()
    return cut if too_many else None


class Reader:
    """Reads the input files of a score request with one policy for bytes that are not UTF-8 (tst.io.
    ENCODING_ERRORS) and counts, per file, the lines where bytes were replaced; cuts lines longer than
    max_words tokens (None: no limit) and counts them per file."""

    def __init__(self, errors: str = "strict", max_words: int | None = None, normalize=None, mask=None):
        self.errors = errors
        self.normalize = normalize  # line -> line (tst.data.normalize.scoring_normalizer), None: as given
        self.mask = mask  # lines -> lines, the corpus' NER masking of sources and references (ner_masker)
        self.replaced: dict[str, int] = {}
        self.control: dict[str, int] = {}  # file -> lines with a control character, read as empty lines
        self.max_words = max_words
        self.truncated: dict[str, int] = {}  # file -> lines cut to max_words

    def cut(self, lines: list[str], path, columns_from: int = 0) -> list[str]:
        """The lines with every tab-separated column from `columns_from` on cut to max_words tokens (a
        references file keeps its source column whole: it is matched on the source text); the cut lines are
        counted for `path` and the first is named in a warning."""
        if self.max_words is None:
            return lines
        out, first = [], None
        for i, line in enumerate(lines, 1):
            cols = line.split("\t") if columns_from else [line]
            cut = [cut_words(c, self.max_words) if k >= columns_from else None for k, c in enumerate(cols)]
            if any(c is not None for c in cut):
                self.truncated[str(path)] = self.truncated.get(str(path), 0) + 1
                first = first or i
                line = "\t".join(c if n is None else n for c, n in zip(cols, cut))
            out.append(line)
        if first:
            log.warning(
                "%s: %d line(s) longer than %d words (or %d characters) cut (the first: line %d)",
                path,
                self.truncated[str(path)],
                self.max_words,
                SCORE_CHARS_PER_WORD * self.max_words,
                first,
            )
        return out

    def sources(self, path) -> list[str]:
        """The lines of a sources file, NER-masked when the reader masks (as prepare_data masks the corpus)."""
        lines = self.lines(path)
        return self.mask(lines) if self.mask is not None else lines

    def references(self, path) -> list[str]:
        """The lines of a references file, every column NER-masked when the reader masks, each reference cut to
        max_words (the source column kept whole)."""
        lines = self.lines(path)
        if self.mask is not None:
            rows = [line.split("\t") for line in lines]
            cells = iter(self.mask([c for r in rows for c in r]))
            lines = ["\t".join(next(cells) for _ in r) for r in rows]
        return self.cut(lines, path, columns_from=1)

    def truncation(self) -> dict:
        """What the score JSON records: the limit, the number of lines cut and the count per file."""
        return {
            "max_words": self.max_words,
            "n_truncated": sum(self.truncated.values()),
            "truncated_lines": dict(self.truncated),
        }

    def lines(self, path, text: bool = True) -> list[str]:
        """The lines of `path`; text=True (sentences, references): normalized when the reader normalizes."""
        lines, n = read_lines_counted(path, self.errors)
        if n:
            self.replaced[str(path)] = n
            log.warning("%s: %d line(s) with bytes that are not UTF-8, replaced by U+FFFD", path, n)
        control = [i for i, line in enumerate(lines) if has_control(line)]
        if control:  # not a sentence (prepare drops such lines): an empty line here, so alignment holds
            self.control[str(path)] = len(control)
            for i in control:
                lines[i] = ""
        if text and self.normalize is not None:
            lines = [self.normalize(line) for line in lines]
        return lines

    def lists(self, path) -> list[list[str]]:
        """The 'independent' attribute lists of an attributes.jsonl file."""
        out = []
        for i, r in enumerate(parse_jsonl(self.lines(path, text=False), path), 1):
            if not isinstance(r, dict) or not isinstance(r.get("independent"), list):
                raise InputError(f"{path}, record {i}: expected an object with an 'independent' list")
            out.append(r["independent"])
        return out


def lists_by_text(list_paths, text_paths, sources, reader: Reader) -> list[list[str]]:
    """Attribute lists of the sources, looked up by exact sentence text in (text file, attributes.jsonl)
    pairs; a source found in none of them gets an empty list (left out of attribute hit and counted)."""
    by_text = {}
    for list_path, text_path in zip(list_paths, text_paths):
        text, rec = reader.sources(text_path), reader.lists(list_path)
        if len(rec) != len(text):
            raise InputError(f"{list_path} has {len(rec)} records but {text_path} has {len(text)} lines")
        for line, r in zip(text, rec):
            by_text.setdefault(line, r)
    return [by_text.get(s, []) for s in sources]


def ner_masker(ner: dict):
    """lines -> lines with every named entity of ner["labels"] (label -> placeholder) replaced by its placeholder,
    found by the nlp backend of ner["nlp"] (the config's `nlp:` block), as prepare_data masks a corpus
    (tst.nlp.ner.mask); each distinct line annotated once, an empty line left as it is."""
    from tst.nlp.backend import backend_from_config
    from tst.nlp.ner import mask

    backend, labels, done = backend_from_config(ner.get("nlp")), dict(ner["labels"]), {}

    def mask_lines(lines: list[str]) -> list[str]:
        todo = [line for line in dict.fromkeys(lines) if line not in done and line.split()]
        words = [line.split() for line in todo]
        if words:
            masked, _ = mask(words, backend.annotate(words, parse=False, ner=True), labels)
            done.update((line, " ".join(m)) for line, m in zip(todo, masked))
        return [done.get(line, line) for line in lines]

    return mask_lines


@dataclass
class Inputs:
    """A request's files as aligned lists: `sources` as scored (cut to max_words; references and attribute lists
    are matched on them whole), `outputs`, `styles` (per sentence), `references` (per sentence a list, or None),
    `lists` (attribute lists per sentence, or None); `reader` holds what reading counted."""

    sources: list[str]
    outputs: list[str]
    styles: list[int]
    references: list | None
    lists: list | None
    reader: Reader


def read_inputs(request) -> Inputs:
    """The files of `request` (a tst.scoring.request.ScoreRequest) read and aligned; InputError naming the file
    and what is wrong when they do not align or hold no sentence."""
    normalize = request.normalize
    applied = bool(normalize and normalize.get("normalize") is not None)
    norm = scoring_normalizer(normalize["normalize"], normalize.get("placeholders", ())) if applied else None
    reader = Reader(
        request.encoding_errors, request.max_words, norm, ner_masker(request.ner) if request.ner else None
    )
    lists, lists_text = request.lists, request.lists_text
    src_all, out_all, styles_all, list_all = [], [], [], [] if lists else None
    src_cut = []  # the sources as scored (cut to max_words); src_all keeps them whole to match references
    for k, (sp, op, st) in enumerate(zip(request.sources, request.outputs, request.source_styles)):
        src, out = reader.sources(sp), reader.lines(op)
        if not src and not out:
            raise InputError(
                f"no sentences: {sp} and {op} are empty (no lines); pass files with one sentence per line, "
                "or leave this pair out"
            )
        if len(src) != len(out):
            raise InputError(f"{op} has {len(out)} lines but {sp} has {len(src)}")
        src_all += src
        src_cut += reader.cut(src, sp)
        out_all += reader.cut(out, op)
        styles_all += [int(st)] * len(src)
        if lists and not lists_text:
            rec = reader.lists(lists[k])
            if len(rec) != len(src):
                raise InputError(f"{lists[k]} has {len(rec)} records but {sp} has {len(src)} lines")
            list_all += rec
    if lists and lists_text:
        list_all = lists_by_text(lists, lists_text, src_all, reader)
    refs = (
        read_references(list(request.references), src_all, read=reader.references)
        if request.references
        else None
    )
    return Inputs(src_cut, out_all, styles_all, refs, list_all, reader)
