"""One score request, built and checked once and passed down frozen (ScoreRequest): the files to score, how
they are read (encoding policy, word limit, normalization) and what is computed (options, metric keys, GM
thresholds, the calibration, bootstrap intervals). `tst score` builds it from its arguments
(tst.scoring.arguments); a workflow rule from its params (scripts/score.py)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from tst.io import InputError
from tst.metrics.registry import METRICS, ScoreOptions, check_keys


class RequestError(InputError):
    """A request that cannot be scored, found before any file is scored: `code` is the exit status of `tst
    score` (2: the command line, 1: a file's content); the message names the option or file and the fix."""

    def __init__(self, message: str, code: int = 2):
        super().__init__(message)
        self.code = code


def _frozen(value):
    return None if value is None else MappingProxyType(dict(value))


@dataclass(frozen=True)
class ScoreRequest:
    """What one score file is made of. sources[i] / outputs[i]: the i-th source file and the output file aligned
    with it line by line, all of whose sources have style source_styles[i] (0 or 1; target = 1 - style);
    meta: the score file's header (tst.scoring.write.score_meta), whose `system` names the naturalness
    classifiers; evaluators: the evaluators folder; bpe: the dataset's bpe.model when it has one (its piece-level
    classifiers and LMs read the text encoded with it); references: `source<TAB>reference...` files matched on
    the source text; lists: attributes.jsonl files aligned with the sources, or with `lists_text` when given (then
    matched on the exact text); options: the scoring options (tst.metrics.base.ScoreOptions); only: metric keys
    (None: every metric on; a derived key brings its factors); gm_t: when given, derived metrics (GM) are added
    with these thresholds (`tst score`; the workflow leaves them to the report), the calibrated GM with
    `calibration` (the dataset's validity/gm_thresholds.json); encoding_errors: "strict" (a byte that is not
    UTF-8 is an InputError naming the file and line) or "replace" (U+FFFD, counted in the JSON's
    input_encoding); max_words: every line longer is cut to its first max_words tokens and to
    tst.metrics.registry.SCORE_CHARS_PER_WORD x max_words characters, and counted (None: no limit); ci: bootstrap
    options (tst.bootstrap.resolve), each metric gets "ci95" (None: no intervals); resample_stats: the TSV also
    gets the `key:stat` columns the leaderboard resamples; normalize: None = lines scored as given (the
    workflow's files are normalized when they are made), else {"normalize": the dataset's `normalize:` block or
    None (turned off), "from": where it was read, "placeholders": the corpus's NER placeholders}, the scoring
    normalization of every line read (tst.data.normalize.scoring_normalizer); ner: None = no NER masking (the workflow's files are masked when
    prepared), else {"labels": label -> placeholder, "nlp": the config's `nlp:` block}: the sources and references
    NER-masked as prepare_data masks the corpus (tst.scoring.read.ner_masker), the outputs scored as given;
    sources_embedded: the sources'
    sentence-embedding files (.npy, .txt; rule embed_sources), preloaded so that both routes batch alike;
    progress: a progress bar on stderr."""

    sources: tuple
    outputs: tuple
    source_styles: tuple
    meta: Mapping
    evaluators: Path | None = None
    bpe: Path | None = None
    references: tuple = ()
    lists: tuple = ()
    lists_text: tuple = ()
    options: ScoreOptions = field(default_factory=lambda: ScoreOptions.of(None))
    only: frozenset | None = None
    gm_t: tuple | None = None
    calibration: Mapping | None = None
    encoding_errors: str = "strict"
    max_words: int | None = None
    ci: Mapping | None = None
    resample_stats: bool = False
    normalize: Mapping | None = None
    ner: Mapping | None = None
    sources_embedded: tuple = ()
    progress: bool = False

    def __post_init__(self):
        set_ = object.__setattr__  # frozen: each field is set once, here, in its frozen form
        for name in ("sources", "outputs", "references", "lists", "lists_text", "sources_embedded"):
            set_(self, name, tuple(str(p) for p in getattr(self, name) or ()))
        set_(self, "source_styles", tuple(self.source_styles))
        for name in ("meta", "calibration", "ci", "normalize", "ner"):
            set_(self, name, _frozen(getattr(self, name)))
        set_(self, "options", ScoreOptions.of(self.options))
        set_(self, "gm_t", None if self.gm_t is None else tuple(float(t) for t in self.gm_t))
        for name in ("evaluators", "bpe"):
            if getattr(self, name) is not None:
                set_(self, name, Path(getattr(self, name)))
        if self.only is not None:
            try:
                set_(self, "only", frozenset(check_keys(self.only)))
            except ValueError as e:
                raise RequestError(str(e)) from None
        self._check_pairing()

    def _check_pairing(self) -> None:
        """The files that must pair up do (RequestError, exit 2), and each source style is 0 or 1."""
        n = len(self.sources)
        if len(self.outputs) != n:
            raise RequestError(
                f"{n} --sources files but {len(self.outputs)} --outputs files: give one output per source"
            )
        if len(self.source_styles) != n:
            raise RequestError(
                f"{len(self.source_styles)} --source-styles for {n} --sources files: give one per source"
            )
        if self.lists_text and not self.lists:
            raise RequestError("--lists-text given without --lists")
        if self.lists and len(self.lists) != len(self.lists_text or self.sources):
            against = "--lists-text" if self.lists_text else "--sources"
            raise RequestError(
                f"{len(self.lists)} --lists files for {len(self.lists_text or self.sources)} {against} files"
            )
        for path, style in zip(self.sources, self.source_styles):
            if style not in (0, 1):
                raise RequestError(f"source style of {path} must be 0 or 1, not {style!r}", 1)

    def wanted(self) -> frozenset | None:
        """The metric keys computed: `only` and the factors its derived keys need (None: every metric on)."""
        if self.only is None:
            return None
        return self.only | {f for k in self.only for f in METRICS[k].derived_from}
