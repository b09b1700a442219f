"""Prepare one dataset's corpus: read -> normalize -> length filter -> splits without leakage -> NER masking -> BPE.

Writes the files of docs/interfaces.md "Prepared data" into out_dir but the references and report.json, and
corpus.json, from which tst.data.references writes those (rule prepare_data runs this module, rule
prepare_references that one; tst.data.prepare.prepare_dataset both). This module reads no reference file and
imports no code that does, so that neither a changed reference file nor changed reference code reruns it.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from pathlib import Path

from tst import layout
from tst.data.demo import generate_demo
from tst.data.normalize import NUM, length_limits, length_ok, normalizer
from tst.data.paraphrase import pair_lines, select_pairs
from tst.data.reader import read_text_lines
from tst.data.sources import file_specs, resolve_data_dir, style_path
from tst.data.splits import SPLIT_DEFAULTS, SPLITS, remove_leakage, sample_train, split_pool
from tst.defaults import default, schema_default
from tst.io import InputError, sha256_of, write_json, write_jsonl, write_lines
from tst.vocab import Vocab

DROP_REASONS = ("non_utf8", "control", "empty", "too_long", "length")
# Fewest sentences each style needs per split after filtering and leakage removal (config key
# datasets.<name>.min_sentences): fewer stop prepare_data with the counts, before any model trains.
MIN_SENTENCES = {"train": 20, "dev": 2, "test": 2}
# NER labels masked when a dataset's ner.labels is not given (entity label -> placeholder token); also used
# by tst transfer (tst/apply.py) to prepare new text as the dataset was.
DEFAULT_NER_LABELS = {"PERSON": "-PERSON-", "GPE": "-LOCATION-"}

log = logging.getLogger(__name__)


class TooFewSentences(ValueError):
    """A style has fewer sentences in a split than datasets.<name>.min_sentences asks for."""


# The most of one style's distinct sentences (all splits, as read) that may also be sentences of the other
# style. Above it the two styles are mostly one corpus (e.g. styles [neg, neg], or both `{style}` paths naming
# the same file): every evaluator and model would learn nothing about style, so prepare stops. Ours: real pairs
# share a few generic sentences ("great food ." in both), far below half.
MAX_SHARED_BETWEEN_STYLES = 0.5


class SameSentences(ValueError):
    """The two styles' splits are mostly the same sentences."""


def shared_between_styles(splits: dict) -> dict[str, float]:
    """Per style ("0", "1"): the share of its distinct sentences (all splits) that are also the other style's."""
    sets = [{s for sp in SPLITS for s in splits[sp][st]} for st in (0, 1)]
    common = sets[0] & sets[1]
    return {str(st): len(common) / len(sets[st]) if sets[st] else 0.0 for st in (0, 1)}


def check_styles_differ(cfg: dict, name: str, splits: dict, report: dict) -> None:
    """Record shared_between_styles in the report; SameSentences naming the styles, the shares and the fix when
    one style shares more than MAX_SHARED_BETWEEN_STYLES of its sentences with the other."""
    shared = report["shared_between_styles"] = shared_between_styles(splits)
    if max(shared.values()) > MAX_SHARED_BETWEEN_STYLES:
        styles = cfg["styles"]
        raise SameSentences(
            f"datasets.{name}: the two styles are mostly the same sentences: "
            + ", ".join(f"{100 * shared[str(st)]:.0f}% of style {st} ({styles[st]})" for st in (0, 1))
            + f" also in the other style (at most {100 * MAX_SHARED_BETWEEN_STYLES:.0f}% allowed). Check that "
            f"datasets.{name}.styles names two different styles and that the source files' {{style}} paths "
            "name a different file for each."
        )


def check_min_sentences(cfg: dict, name: str, splits: dict, report: dict) -> None:
    """Raise TooFewSentences naming every (style, split) below its minimum, with the counts of what was read
    and dropped, and the fix."""
    minimum = {**MIN_SENTENCES, **(cfg.get("min_sentences") or {})}
    short = [
        (st, sp, len(splits[sp][st]))
        for st in range(len(cfg["styles"]))
        for sp in SPLITS
        if len(splits[sp][st]) < minimum[sp]
    ]
    if not short:
        return
    lines = [
        f"style {st} ({cfg['styles'][st]}) {sp}: {n} sentences, minimum {minimum[sp]}" for st, sp, n in short
    ]
    for part, by_style in report["inputs"].items():
        for st in sorted({st for st, _, _ in short}):
            c = by_style.get(str(st))
            if c:
                dropped = ", ".join(f"{r} {n}" for r, n in c["dropped"].items() if n) or "none"
                lines.append(
                    f"source.files.{part} style {st}: read {c['read']} lines, kept {c['kept']} "
                    f"(dropped: {dropped})"
                )
    raise TooFewSentences(
        f"datasets.{name}: too few sentences after filtering:\n  " + "\n  ".join(lines) + "\n"
        f"Fix the corpus files (see the drop counts), relax datasets.{name}.length, change "
        f"datasets.{name}.splits, or lower datasets.{name}.min_sentences (default {MIN_SENTENCES})."
    )


def expected_outputs(cfg: dict) -> list[str]:
    """File names prepare_dataset writes for this dataset config (relative to out_dir).

    Every dataset gets the same files (entities.jsonl holds [] lines without NER, raw.txt equals .txt
    without BPE, references/paraphrase files may be empty), so rules can name them; bpe.model only with BPE.
    """
    bpe = (
        [layout.BPE_MODEL]
        if cfg.get("bpe", {}).get("enabled", schema_default("datasets", "any", "bpe", "enabled"))
        else []
    )
    out = [layout.VOCAB, layout.DATA_REPORT, *bpe]
    for style in range(len(cfg["styles"])):
        for split in SPLITS:
            out += [
                layout.text_file(split, style),
                layout.entities_file(split, style),
                layout.text_file(split, style, raw=True),
            ]
        out += [layout.references_file(style), layout.paraphrase_file(style)]
    return out + [layout.CORPUS_STATE, layout.NER_SKIPPED]


def reference_outputs(cfg: dict) -> list[str]:
    """The files of expected_outputs that rule prepare_references writes (tst.data.references)."""
    return [layout.DATA_REPORT] + [layout.references_file(st) for st in range(len(cfg["styles"]))]


def corpus_outputs(cfg: dict) -> list[str]:
    """The files of expected_outputs that rule prepare_data writes (prepare_corpus)."""
    refs = set(reference_outputs(cfg))
    return [f for f in expected_outputs(cfg) if f not in refs]


def read_spec(
    spec, style: int, styles: list[str], data_dir: Path, key: str, max_chars: int, counts: Counter
) -> list[str]:
    """Lines of one file spec for one style: a path template, or {text, labels} (keep lines labelled style)."""
    if isinstance(spec, dict):
        text = read_text_lines(data_dir / style_path(spec["text"], style, styles), key + ".text", 0)
        labels = read_text_lines(data_dir / style_path(spec["labels"], style, styles), key + ".labels", 0)
        if len(text) != len(labels):
            raise ValueError(f"{key}: {len(text)} text lines but {len(labels)} labels")
        lines = [t for t, lab in zip(text, labels) if lab.strip() == str(style)]
        counts["read"] += len(lines)
        too_long = [t for t in lines if max_chars and len(t) > max_chars]
        counts["too_long"] += len(too_long)
        return [t for t in lines if not (max_chars and len(t) > max_chars)]
    return read_text_lines(data_dir / style_path(spec, style, styles), key, max_chars, counts)


def load_parts(cfg: dict, name: str, data_dir: Path | None) -> tuple[dict, dict]:
    """Raw lines per part (train/dev/test/pool) and style, and the demo extras (references, paraphrases)."""
    styles, src = cfg["styles"], cfg["source"]
    max_chars = int(
        (cfg.get("length") or {}).get("max_chars", schema_default("datasets", "any", "length", "max_chars"))
    )  # longer lines are dropped
    parts: dict[str, dict[int, list[str]]] = {}
    counts: dict[str, dict[int, Counter]] = {}
    extras: dict = {}
    if src["kind"] == "demo":
        demo = generate_demo(
            int(
                src.get(
                    "sentences_per_style", schema_default("datasets", "any", "source", "sentences_per_style")
                )
            ),
            int(src.get("seed", schema_default("datasets", "any", "source", "seed"))),
        )
        parts["pool"] = {s: demo["sentences"][s] for s in range(len(styles))}
        counts["pool"] = {s: Counter(read=len(parts["pool"][s])) for s in range(len(styles))}
        extras = demo
    elif src["kind"] == "files":
        data_dir = resolve_data_dir(data_dir)
        for part in ("train", "dev", "test", "pool"):
            specs = file_specs(cfg, part)
            if not specs:
                continue
            parts[part], counts[part] = {}, {}
            for style in range(len(styles)):
                c = Counter()
                lines = []
                for spec in specs:
                    lines += read_spec(
                        spec, style, styles, data_dir, f"datasets.{name}.source.files.{part}", max_chars, c
                    )
                parts[part][style], counts[part][style] = lines, c
    else:
        raise ValueError(f"datasets.{name}.source.kind must be demo or files, not {src['kind']!r}")
    return {"parts": parts, "counts": counts}, extras


def prepare_corpus(
    cfg: dict,
    data_dir: Path | None,
    out_dir: Path,
    nlp_cfg: dict | None = None,
    name: str = "dataset",
    backend=None,
) -> dict:
    """Build results/{dataset}/data/ for one dataset config (the `datasets.{name}` block) but its references and
    report.json; returns what corpus.json holds (its report, test sentences, NER masking, the demo's references),
    which tst.data.references.prepare_references reads."""
    t0 = time.perf_counter()
    out_dir = Path(out_dir)
    styles = cfg["styles"]
    norm = normalizer(cfg.get("normalize"))
    length = cfg.get("length") or {}
    lo, hi = length_limits(length)
    loaded, extras = load_parts(cfg, name, data_dir)
    report: dict = {"dataset": name, "inputs": {}, "splits": {}}
    # what `tst score` applies to text it is given, so that it is scored as this corpus was normalized
    report["normalize"] = {k: bool(v) for k, v in (cfg.get("normalize") or {}).items()}

    # normalize + length filter (explicit test files are kept whole unless length.filter_test)
    normed: dict[str, dict[int, list[str]]] = {}
    raw_of: dict[str, str] = {}  # normalized sentence -> its raw line (demo references/paraphrases)
    for part, by_style in loaded["parts"].items():
        normed[part] = {}
        report["inputs"][part] = {}
        for style, lines in by_style.items():
            c = loaded["counts"][part][style]
            keep = []
            for line in lines:
                tokens = norm(line)
                if not tokens:
                    c["empty"] += 1
                elif (
                    part != "test"
                    or length.get("filter_test", schema_default("datasets", "any", "length", "filter_test"))
                ) and not length_ok(tokens, lo, hi):
                    c["length"] += 1
                else:
                    s = " ".join(tokens)
                    raw_of.setdefault(s, line)
                    keep.append(s)
            c["kept"] = len(keep)
            normed[part][style] = keep
            report["inputs"][part][str(style)] = {
                "read": c["read"],
                "kept": len(keep),
                "dropped": {r: c[r] for r in DROP_REASONS},
            }

    # splits: explicit files, plus a pool split by fractions
    splits: dict[str, dict[int, list[str]]] = {s: {k: [] for k in range(len(styles))} for s in SPLITS}
    for part in ("train", "dev", "test"):
        for style, lines in normed.get(part, {}).items():
            splits[part][style] += lines
    if "pool" in normed:
        sc = cfg.get("splits", {})
        for style, lines in normed["pool"].items():
            parts = split_pool(
                lines,
                float(sc.get("dev_fraction", SPLIT_DEFAULTS["dev_fraction"])),
                float(sc.get("test_fraction", SPLIT_DEFAULTS["test_fraction"])),
                int(sc.get("seed", SPLIT_DEFAULTS["seed"])) + style,
            )
            for split in SPLITS:
                splits[split][style] += parts[split]
    # an explicit test file keeps its repeats: it stays aligned with published outputs and references
    check_styles_differ(cfg, name, splits, report)  # as read: leakage removal takes a shared one from a style
    splits, leak = remove_leakage(splits, keep_repeats=("test",) if "test" in normed else ())
    sc = cfg.get("splits") or {}
    if (
        sc.get("max_train") is not None
    ):  # a training subset (e.g. a CPU-sized run), drawn after leakage removal
        report["train_subset"] = {}
        for st in range(len(styles)):
            full = len(splits["train"][st])
            splits["train"][st] = sample_train(
                splits["train"][st], int(sc["max_train"]), int(sc.get("seed", SPLIT_DEFAULTS["seed"])) + st
            )
            report["train_subset"][str(st)] = {"of": full, "kept": len(splits["train"][st])}
    check_min_sentences(cfg, name, splits, report)

    # NER masking, one batched pass over every sentence of every split (parse=False)
    ner_cfg = cfg.get("ner", {})
    entities: dict[str, dict[int, list]] = {}
    masked_of: dict[str, str] = {}  # sentence -> masked sentence
    skipped: dict[str, dict] = {}  # entity surfaces left unmasked (tst.nlp.ner.common_surfaces)
    words = {sp: {st: [s.split() for s in lines] for st, lines in by.items()} for sp, by in splits.items()}
    if ner_cfg.get("enabled", schema_default("datasets", "any", "ner", "enabled")):
        from tst.nlp.backend import backend_from_config
        from tst.nlp.ner import common_surfaces, mask

        backend = backend or backend_from_config(nlp_cfg)
        labels = ner_cfg.get("labels") or DEFAULT_NER_LABELS
        keys = [(sp, st) for sp in SPLITS for st in range(len(styles))]
        flat = [w for k in keys for w in words[k[0]][k[1]]]
        t_ner = time.perf_counter()
        docs = backend.annotate(flat, parse=False, ner=True)
        masked, ents = mask(flat, docs, labels)
        # entities that are common words of the corpus stay words (tst.nlp.ner.common_surfaces)
        cased = not (cfg.get("normalize") or {}).get(
            "lowercase", schema_default("datasets", "any", "normalize", "lowercase")
        )
        skipped = common_surfaces(flat, ents, cased, [k[1] for k in keys for _ in words[k[0]][k[1]]])
        if skipped:
            masked, ents = mask(flat, docs, labels, keep=frozenset(skipped))
            log.info(
                "NER: %d entity surfaces left unmasked as common words of the corpus (%s): %s",
                len(skipped),
                layout.NER_SKIPPED,
                ", ".join(
                    f"{k!r} ({v['tagged']}x, {'/'.join(v['reasons'])})" for k, v in list(skipped.items())[:20]
                ),
            )
        log.info(
            "NER of %d sentences: %.1f s", len(flat), time.perf_counter() - t_ner
        )  # a log, not the report
        i = 0
        for sp, st in keys:
            n = len(words[sp][st])
            words[sp][st], entities.setdefault(sp, {})[st] = masked[i : i + n], ents[i : i + n]
            i += n
        masked_of = {" ".join(w): " ".join(m) for w, m in zip(flat, masked)}
        per_label = Counter(p for e in ents for p, _ in e)
        report["ner"] = {
            "sentences": len(flat),
            "sentences_with_entities": sum(1 for e in ents if e),
            "entities": dict(sorted(per_label.items())),
            "backend": (nlp_cfg or {}).get("backend", default("nlp", "backend")),
        }
        if skipped:
            report["ner"]["left_unmasked"] = {k: v["tagged"] for k, v in skipped.items()}

    for sp in SPLITS:
        report["splits"][sp] = {
            str(st): {"kept": len(words[sp][st]), **leak[sp][st]} for st in range(len(styles))
        }

    # the demo's references (word level, masked like the corpus); a files dataset's are read by
    # prepare_references (rule prepare_references), so that a changed reference file reruns no corpus job
    demo_refs = _demo_references(cfg, extras, splits, norm, raw_of, backend, ner_cfg, nlp_cfg, masked_of)

    # BPE on train only; word-level copies stay in raw.txt
    bpe_cfg = cfg.get("bpe", {})
    final = words
    if bpe_cfg.get("enabled", schema_default("datasets", "any", "bpe", "enabled")):
        from tst.data.bpe import train_bpe

        train_text = [" ".join(w) for st in range(len(styles)) for w in words["train"][st]]
        symbols = (
            sorted(set((ner_cfg.get("labels") or {}).values())) + [NUM] if ner_cfg.get("enabled") else [NUM]
        )
        bpe = train_bpe(
            train_text,
            out_dir / layout.BPE_MODEL,
            int(bpe_cfg.get("vocab_size", schema_default("datasets", "any", "bpe", "vocab_size"))),
            symbols,
        )
        final = {
            sp: {st: bpe.encode_many([" ".join(w) for w in by[st]]) for st in by} for sp, by in words.items()
        }
        report["bpe"] = {"vocab_size": len(bpe), "train_sentences": len(train_text)}

    for sp in SPLITS:
        for st in range(len(styles)):
            write_lines(out_dir / layout.text_file(sp, st), (" ".join(w) for w in final[sp][st]))
            write_lines(out_dir / layout.text_file(sp, st, raw=True), (" ".join(w) for w in words[sp][st]))
            ents = entities[sp][st] if entities else [[] for _ in words[sp][st]]
            write_jsonl(out_dir / layout.entities_file(sp, st), ents)
    report["paraphrase"] = {}
    released = (
        None  # a dataset's released pairs (datasets.<name>.paraphrase): the same for both styles (eq. 5)
    )
    if not extras and cfg.get("paraphrase"):
        released, report["paraphrase_source"] = released_pairs(cfg, name, data_dir, norm)
        released = _mask_rows(released, backend, ner_cfg, masked_of)
        if bpe_cfg.get("enabled", schema_default("datasets", "any", "bpe", "enabled")):
            released = [tuple(" ".join(p) for p in bpe.encode_many(list(pair))) for pair in released]
    for st in range(len(styles)):
        pairs = released or []
        if extras:  # demo: same-style paraphrase pairs of the train sentences
            pairs = [
                (s, " ".join(norm(extras["paraphrases"][st][raw_of[s]])))
                for s in splits["train"][st]
                if raw_of.get(s) in extras["paraphrases"][st]
            ]
            pairs = _mask_rows(pairs, backend, ner_cfg, masked_of)
        write_lines(out_dir / layout.paraphrase_file(st), ("\t".join(p) for p in pairs))
        report["paraphrase"][str(st)] = len(pairs)
    train_tokens = [w for st in range(len(styles)) for w in final["train"][st]]
    Vocab.save_counts(out_dir / layout.VOCAB, train_tokens)
    report["vocab_types"] = len({t for w in train_tokens for t in w})
    write_json(out_dir / layout.NER_SKIPPED, skipped)
    corpus = {
        "report": report,
        "test": {str(st): splits["test"][st] for st in range(len(styles))},  # normalized, not masked
        "masked": masked_of,  # every sentence NER masked -> its masked form ({} without NER)
        "demo_references": demo_refs,  # None: not the demo corpus
    }
    write_json(out_dir / layout.CORPUS_STATE, corpus)
    log.info("prepared %s in %.1f s", name, time.perf_counter() - t0)  # timings go to the log only
    return corpus


def released_pairs(cfg: dict, name: str, data_dir, norm) -> tuple[list[tuple[str, str]], dict]:
    """datasets.<name>.paraphrase -> the pairs of Pang & Gimpel's eq. 5 (tst.data.paraphrase.select_pairs:
    normalized like the corpus, footnote 1's filter, `pairs` sampled with the dataset's split seed) and what
    report.json records of them: the file, its sha256, where it was released, the counts."""
    spec = cfg["paraphrase"]
    path = Path(resolve_data_dir(data_dir)) / spec["file"]
    key = f"datasets.{name}.paraphrase.file"
    if not path.is_file():
        raise InputError(f"{path}: paraphrase pairs not found ({key}); place the file there or set its url")
    digest = sha256_of(path)
    if spec.get("sha256") and spec["sha256"].lower() != digest:
        raise InputError(
            f"{path}: sha256 {digest} is not the {spec['sha256']} of datasets.{name}.paraphrase.sha256 (another "
            f"release or a broken download); fetch it again or correct the sha256"
        )
    member = spec.get("member")
    pairs, counts = select_pairs(
        lambda: pair_lines(path, member),
        norm,
        spec.get("pairs"),
        int((cfg.get("splits") or {}).get("seed", SPLIT_DEFAULTS["seed"])),
    )
    if not pairs:
        raise InputError(
            f"{path}{f' ({member})' if member else ''}: no usable paraphrase pair ({key}): every line must be "
            f"`u<TAB>v` with two different sentences ({counts['read']} lines read, {counts['malformed']} "
            f"without a tab, {counts['filtered']} dropped by the substring filter)"
        )
    source = {k: spec[k] for k in ("file", "member", "source", "url") if spec.get(k)}
    return pairs, {**source, "sha256": digest, **counts}


def _mask_rows(
    rows: list[tuple[str, ...]], backend, ner_cfg: dict, cache: dict | None = None
) -> list[tuple[str, ...]]:
    """Mask every column of TSV rows with the corpus' NER settings (no-op when NER is off); `cache` maps
    already-masked sentences to their masked form so they are not annotated twice."""
    if not ner_cfg.get("enabled", schema_default("datasets", "any", "ner", "enabled")) or not rows:
        return [tuple(r) for r in rows]
    from tst.nlp.ner import mask

    cache = {} if cache is None else cache
    todo = list(dict.fromkeys(c for r in rows for c in r if c not in cache))
    words = [c.split() for c in todo]
    masked, _ = mask(words, backend.annotate(words, parse=False, ner=True), ner_cfg.get("labels"))
    cache.update({c: " ".join(m) for c, m in zip(todo, masked)})
    return [tuple(cache[c] for c in r) for r in rows]


def _demo_references(cfg, extras, splits, norm, raw_of, backend, ner_cfg, nlp_cfg, cache) -> dict | None:
    """The demo corpus's references, {style: [(source, rewrite)]}: the generator's rewrite of every test
    sentence, normalized and masked like the corpus; None for a files dataset."""
    if not extras:
        return None
    rows = {
        st: [
            (s, " ".join(norm(extras["references"][st][raw_of[s]])))
            for s in splits["test"][st]
            if raw_of.get(s) in extras["references"][st]
        ]
        for st in range(len(cfg["styles"]))
    }
    if ner_cfg.get("enabled", schema_default("datasets", "any", "ner", "enabled")):
        if backend is None:
            from tst.nlp.backend import backend_from_config

            backend = backend_from_config(nlp_cfg)
        rows = {st: _mask_rows(r, backend, ner_cfg, cache) for st, r in rows.items()}
    return rows
