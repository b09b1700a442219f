"""docs/reference.md, generated: every metric of the registry (tst.metrics.registry) and every config key of the
schema (schemas/config.schema.yaml), so that the reference cannot miss one.

    python -m tst.report.reference [--score-file results/demo/scores/nearest_target/test.final.json] > docs/reference.md

A metric's row: its key, label, unit, aspect, direction, whether it is scored by default, the evaluator files it
needs, the module that defines it (its docstring's first sentence names the paper) and, when a score file is
given, the exact variant string a run writes for it. A config key's row: its dotted path (`<name>` where the
key is free, e.g. a dataset), its type, its value in config.yaml (the default run) or the schema's default, and
the schema's description. The file formats are docs/interfaces.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import yaml

from tst import layout
from tst.defaults import CONFIG, SCHEMA
from tst.metrics.registry import METRICS

# the score file whose variant strings fill docs/reference.md
DEMO_SCORE = layout.score("demo", "nearest_target", "test", "final")


def _cell(text) -> str:
    """Text for a Markdown table cell outside a code span: pipes and angle brackets escaped."""
    return str(text).replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;").replace("\n", " ")


def module_summary(module: str) -> str:
    """The first paragraph of a module's docstring (a metric module names its definition and paper there)."""
    doc = (sys.modules.get(module) or __import__(module, fromlist=["_"])).__doc__ or ""
    return " ".join(doc.strip().split("\n\n")[0].split())


def metric_rows(variants: dict[str, str] | None = None) -> list[str]:
    """The Markdown table of every registered metric (variants: key -> the variant string of a score file)."""
    variants = variants or {}
    lines = [
        "| key | label | unit | aspect | better | default | evaluator files | defined in | variant (demo run) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for key, m in METRICS.items():
        files = ", ".join(f"`{f}`" for f in m.evaluators) or (
            "from " + ", ".join(m.derived_from) if m.derived else ""
        )
        if m.note:
            files = f"{files} {m.note}".strip()
        # a computed metric's module names its definition; a derived one's function says which formula it is
        module = (m.compute or m.derive).__module__
        summary = module_summary(module) if m.compute else " ".join((m.derive.__doc__ or "").split())
        lines.append(
            f"| `{key}` | "
            + " | ".join(
                _cell(x)
                for x in (
                    m.label,
                    m.unit,
                    m.aspect,
                    "↑ higher" if m.higher_is_better else "↓ lower",
                    "yes" if m.default else "no (`score.extra_metrics`)",
                    files,
                    f"{module}: {summary}",
                    variants.get(key, ""),
                )
            )
            + " |"
        )
    return lines


def _resolve(node: dict, schema: dict) -> dict:
    """The schema node a `$ref` points to, with the referring node's own description over the target's (the
    same definition serves several keys: evaluators.lm and datasets.<name>.lm say what each is)."""
    own = node.get("description")
    while "$ref" in node:
        node = schema["$defs"][node["$ref"].rsplit("/", 1)[1]]
    return {**node, "description": own} if own else node


def _type(node: dict) -> str:
    if "enum" in node:
        return " | ".join(json.dumps(v) for v in node["enum"])
    t = node.get("type", "")
    return " | ".join(t) if isinstance(t, list) else t


def _lookup(config: dict, path: tuple[str, ...]):
    node = config
    for p in path:
        if not isinstance(node, dict) or p not in node:
            return None
        node = node[p]
    return node


def config_keys(schema: dict, node: dict | None = None, path: tuple[str, ...] = ()) -> list[tuple]:
    """(dotted path, node) for every key of the schema, depth first in the schema's order; a free key (a
    dataset's name, a variant's name) is written `<name>`."""
    node = _resolve(schema if node is None else node, schema)
    found = []
    for key, sub in (node.get("properties") or {}).items():
        sub = _resolve(sub, schema)
        found.append((path + (key,), sub))
        found += config_keys(schema, sub, path + (key,))
    for pattern, sub in (node.get("patternProperties") or {}).items():
        sub = _resolve(sub, schema)
        found.append((path + (f"<{pattern}>",), sub))
    extra = node.get("additionalProperties")
    if isinstance(extra, dict):
        extra = _resolve(extra, schema)
        if extra.get("properties") or extra.get("patternProperties"):
            found += config_keys(schema, extra, path + ("<name>",))
    return found


def config_rows(schema: dict, config: dict) -> list[str]:
    lines = ["| key | type | default run (config.yaml) | description |", "|---|---|---|---|"]
    for path, node in config_keys(schema):
        value = _lookup(config, path)
        if value is None and "default" in node:
            value = node["default"]
        shown = "" if value is None or isinstance(value, dict) else json.dumps(value, ensure_ascii=False)
        if len(shown) > 60:
            shown = shown[:57] + "..."
        lines.append(
            f"| `{'.'.join(path)}` | {_cell(_type(node))} | {_cell(shown)} | {_cell(node.get('description', ''))} |"
        )
    return lines


def reference(variants: dict[str, str] | None = None) -> str:
    schema = yaml.safe_load(SCHEMA.read_text(encoding="utf-8"))
    config = yaml.safe_load(CONFIG.read_text(encoding="utf-8"))
    parts = [
        "# Reference",
        "",
        (
            f"Generated by `python -m tst.report.reference --score-file {DEMO_SCORE} > docs/reference.md` from the metric registry (`tst/metrics/registry.py`), the config schema"
            " (`schemas/config.schema.yaml`) and `config.yaml`; regenerate it after adding a metric or a key."
        ),
        "",
        "- [Metrics](#metrics)",
        "- [Config keys](#config-keys)",
        "- [File formats](#file-formats)",
        "- [Python API](#python-api)",
        "",
        "## Metrics",
        "",
        (
            f"Each score file (`{layout.score(ckpt='{checkpoint}')}`) holds every metric below"
            " under its key, with the exact variant string (which BLEU, which LM, which embeddings) and the sha256 of"
            " each evaluator file it read. Derived metrics (GM) are recomputed from the stored corpus scores by the"
            " report and by `tst score`. `tst score --help` lists the same metrics with the options that change them."
        ),
        "",
        *metric_rows(variants),
        "",
        "## Config keys",
        "",
        (
            "Every key of `schemas/config.schema.yaml`, with the description it has there (the one place a key is"
            " described); a run stops at start on a key, type or value the schema does not allow, naming it. `<name>`"
            " is a free key (a dataset, a variant, a system). `config.yaml` is loaded under every overlay, so its value"
            " is the default of a workflow run; the overlays in `configs/` change them for a corpus or a scale."
        ),
        "",
        *config_rows(schema, config),
        "",
        "## File formats",
        "",
        (
            "The files between stages (prepared data, evaluators, transfers, score files and their per-sentence TSVs,"
            " system outputs for `tst score`) are described in [interfaces.md](interfaces.md)."
        ),
        "",
        *api_section(),
    ]
    return "\n".join(parts)


def api_section() -> list[str]:
    """The Python API: the public names of tst.__all__ (kept across patch releases), score_texts' parameters and
    ScoreResult's fields, read from the code."""
    import dataclasses
    import inspect

    import tst

    params = ", ".join(
        p.name if p.default is inspect.Parameter.empty else f"{p.name}={p.default!r}"
        for p in inspect.signature(tst.score_texts).parameters.values()
    )
    fields = ", ".join(f"`{f.name}`" for f in dataclasses.fields(tst.ScoreResult))
    return [
        "## Python API",
        "",
        (
            f"`tst.__all__` lists the public names: {', '.join(f'`tst.{n}`' for n in tst.__all__)}. They are kept"
            " across patch releases (tests/test_api.py lists them); every other module path may move. `import tst`"
            " loads no torch: the API loads on first use."
        ),
        "",
        f"`tst.score_texts({params.replace(', metrics=', ', *, metrics=')})` returns a `tst.ScoreResult`.",
        "",
        (
            "It is `tst score` on texts in memory: its arguments become the command's options (the same names),"
            " parsed by the command's own parser and scored through the same request (tst.scoring.arguments:"
            " normalization, the calibration, the preloaded source embeddings, and with `config` the dataset's"
            " scoring options, word limit and NER masking), so it returns the numbers, the JSON and the signatures"
            " `tst score` prints for the same texts in files. `styles`: each source's style (0 or 1, the target"
            " 1 - style) or one for all; `references`: per sentence a reference, a list of them or None (matched on"
            " the source text); `lists`: per sentence its attribute list; `config`: config file(s) or a config dict."
            " A mistake raises `tst.io.InputError` (a ValueError) naming it."
        ),
        "",
        (
            f"`tst.ScoreResult`, frozen: {fields}. `scores`: metric key -> corpus score; `signature`: the line of the"
            " default GM ([citing.md](citing.md)); `signatures`: metric key -> its own signature; `skipped`: metric"
            " key -> why it was not computed; `warnings`: what was not scored as given; `json`: the score object"
            " `tst score` prints (intervals, variants, evaluators)."
        ),
        "",
    ]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--score-file", help="a score JSON whose variant strings fill the metrics table")
    args = ap.parse_args(argv)
    variants = {}
    if args.score_file:
        metrics = json.loads(Path(args.score_file).read_text())["metrics"]
        variants = {k: v.get("variant", "") for k, v in metrics.items() if isinstance(v, dict)}
    sys.stdout.write(reference(variants))


if __name__ == "__main__":
    main()
