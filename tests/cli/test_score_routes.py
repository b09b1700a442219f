"""One scoring route: `tst score` on the files a workflow run scored gives the numbers of the run's score files, for
every system the run scores (ours at their last checkpoint, the references, the sanity baselines), and the numbers
of its tables for the GM, which the report derives; the same text cased, detokenized and curly-quoted scores the
same. On the suite's shared tiny run (tests/conftest.py finished_run)."""

import contextlib
import csv
import io
import json
import math
import os
import re
import shlex
from pathlib import Path

import pytest
import yaml

from tst import layout, names, rule_inputs, stages
from tst.cli import main
from tst.io import write_lines

DATASET = "demo"
REL = 1e-6  # relative difference allowed between the two routes
# and absolute, for scores near 0: the encoders compute in fp32 (epsilon 1.2e-7 at 1), and MKL's sums may run in
# another order in another process (its results depend on the memory alignment of the arrays), so a content
# score of 5e-4 moved by 9e-10 between the workflow's job and this process
ABS = 1e-8


def scored_runs(config: dict) -> list[tuple[str, str, bool]]:
    """(system, checkpoint, external) of every system the run scores on the test split: ours at their last
    checkpoint, the others (references, baselines, published systems) at `final`."""
    last = stages.test_checkpoints(config)[-1]
    runs = rule_inputs.report_runs(config, DATASET, stages.our_runs(config), [("test", names.FINAL)])
    out = []
    for system, split, ckpt in runs:
        external = names.parse_system(system) is None
        if split == "test" and (external or ckpt == last):
            out.append((system, ckpt, external))
    return out


def cli_args(config: dict, system: str, ckpt: str, external: bool) -> list[str]:
    """The `tst score` command line for the files the workflow's score job of (system, test, ckpt) reads, at the
    run's precision (the tiny config's fp32; without it `tst score` runs auto, bf16 on a CPU with bf16 in hardware,
    where the run's MiniLM ran in fp32)."""
    inputs = rule_inputs.score_inputs(config, DATASET, system, [("test", ckpt)], external)
    args = ["--dataset-dir", layout.root(DATASET), "--system", system, "--checkpoint", ckpt]
    args += ["--precision", config["evaluators"]["precision"]]
    args += ["--sources", *inputs["sources"], "--outputs", *inputs["outputs"]]
    for option in ("references", "lists", "lists_text"):
        if inputs.get(option):
            args += [f"--{option.replace('_', '-')}", *inputs[option]]
    return args


def tst_score(run: Path, args: list[str]) -> dict:
    """`tst score` with these arguments in the folder `run`: the command's own main (tst.cli.main: its parser,
    checks and printing) in this process, without a Python start per call (tests/test_quick_start.py runs the
    installed `tst` command); the JSON it prints."""
    out = io.StringIO()
    cwd = os.getcwd()
    os.chdir(run)
    try:
        with contextlib.redirect_stdout(out):
            main(["score", *args])
    except SystemExit as e:  # a refused command line or file: tst.cli.checks.fail
        raise AssertionError(f"tst score {shlex.join(args)} exited with {e.code}") from e
    finally:
        os.chdir(cwd)
    return json.loads(out.getvalue())


def same(a, b) -> bool:
    return a == b or (
        isinstance(a, float) and isinstance(b, float) and math.isclose(a, b, rel_tol=REL, abs_tol=ABS)
    )


def differences(cli: dict, workflow: dict) -> list[str]:
    """Every metric of the workflow's score file against the CLI's (score, variant, per-metric counts), the
    skipped metrics and the coverage counts: what differs."""
    out = []
    for key, m in workflow["metrics"].items():
        c = cli["metrics"].get(key)
        if c is None:
            out.append(f"{key}: not computed by tst score ({cli['skipped'].get(key)})")
            continue
        if not same(c["score"], m["score"]):
            out.append(f"{key}: tst score {c['score']!r}, workflow {m['score']!r}")
        if c["variant"] != m["variant"]:
            out.append(f"{key}: variant {c['variant']!r} != {m['variant']!r}")
    if cli["skipped"].keys() != workflow["skipped"].keys():
        out.append(f"skipped {sorted(cli['skipped'])} != {sorted(workflow['skipped'])}")
    for count in ("n_sentences", "n_empty", "n_with_reference", "n_no_usable_words", "evaluators"):
        if cli[count] != workflow[count]:
            out.append(f"{count}: {cli[count]!r} != {workflow[count]!r}")
    return out


def table_rows(run: Path, table: str) -> dict[tuple[str, str], dict]:
    """(system, checkpoint) -> row of results/demo/tables/{table}.csv."""
    with open(run / layout.root(DATASET) / "tables" / f"{table}.csv", newline="", encoding="utf-8") as f:
        return {(r["system"], r["checkpoint"]): r for r in csv.DictReader(f)}


@pytest.mark.slow
def test_tst_score_gives_the_workflows_numbers_for_every_system_the_run_scores(finished_run):
    config = yaml.safe_load((finished_run / "config.yaml").read_text())
    runs = scored_runs(config)
    systems = {s for s, _, _ in runs}
    # ours at the last checkpoint, the references and every sanity baseline the run builds
    assert {"M0.seed1", "M2.seed1", "reference", "source", "shuffled", "empty"} <= systems
    assert {s for s, _, ext in runs if not ext} == {"M0.seed1", "M2.seed1"}
    assert {c for s, c, ext in runs if not ext} == {stages.test_checkpoints(config)[-1]}
    leaderboard = table_rows(finished_run, "leaderboard")
    compared_gm = 0
    for system, ckpt, external in runs:
        workflow = json.loads((finished_run / layout.score(DATASET, system, "test", ckpt)).read_text())
        cli = tst_score(finished_run, cli_args(config, system, ckpt, external))
        assert cli["normalization"][
            "applied"
        ]  # the default: normalizing the workflow's files changes nothing
        assert differences(cli, workflow) == [], system
        assert len(workflow["metrics"]) >= 25 and workflow["metrics"]["pp_joint"]["score"] > 1
        # the GM the report derives from the stored scores (calibrated on the baselines, and P&G's)
        row = leaderboard.get((system, ckpt))
        if row is not None:
            for key in ("gm", "gm_pg"):
                assert same(cli["metrics"][key]["score"], float(row[key])), (system, key)
            compared_gm += 1
    assert compared_gm >= 7  # the references and the baselines (ours are on it at their selected checkpoint)


def written_as_people_write(tokenized: str) -> str:
    """A tokenized line as a person or an LLM writes it: detokenized (NLTK's Treebank detokenizer), capitalized,
    apostrophes and quotes curly, NER placeholders in lower case."""
    from nltk.tokenize.treebank import TreebankWordDetokenizer
    from test_score_normalize import curly_quoted

    text = TreebankWordDetokenizer().detokenize(tokenized.split())
    text = curly_quoted(text[:1].upper() + text[1:])
    return text.replace("-PERSON-", "-person-").replace("-LOCATION-", "-Location-")


@pytest.mark.slow
def test_cased_detokenized_curly_quoted_text_scores_as_the_tokenized_text(finished_run, tmp_path):
    """M0's test sources and transfers, the transfers with a negation and a quotation worked in (PTB tokens:
    was n't, `` ... ''), once tokenized as the corpus, once as people write them (cased, detokenized, curly
    quotes, placeholders in another case): every metric the same."""
    config = yaml.safe_load((finished_run / "config.yaml").read_text())
    ckpt = stages.test_checkpoints(config)[-1]
    args = cli_args(config, "M0.seed1", ckpt, False)
    tokenized, written = {}, {}
    for option in ("--sources", "--outputs"):
        at = args.index(option)
        for style, path in enumerate(args[at + 1 : at + 3]):
            lines = (finished_run / path).read_text().splitlines()
            for i, line in enumerate(lines):
                words = line.split()
                if option == "--outputs" and i % 3 == 0 and len(words) > 2:  # a quoted word
                    words[1:2] = ["``", words[1], "''"]
                if option == "--outputs" and i % 3 == 1:  # a negation, as PTB writes it
                    words = ["it", "was", "n't", "so", ":", *words]
                lines[i] = " ".join(words)
            name = f"{option[2:]}.{style}.txt"
            tokenized[path], written[path] = tmp_path / "tokenized" / name, tmp_path / "written" / name
            write_lines(tokenized[path], lines)
            write_lines(written[path], [written_as_people_write(line) for line in lines])
    text = "".join(p.read_text() for p in written.values())
    assert all(s in text for s in ("’", "“", "”", "-person-", "-Location-", "wasn’t"))
    assert "n't" not in text and "``" not in text and "-PERSON-" not in text
    scores = [tst_score(finished_run, [str(files.get(a, a)) for a in args]) for files in (tokenized, written)]
    assert scores[0]["n_with_reference"] == scores[0]["n_sentences"]  # the sources still match the references
    assert scores[0]["metrics"].keys() == scores[1]["metrics"].keys()
    assert len(scores[0]["metrics"]) >= 25
    for key, m in scores[0]["metrics"].items():
        assert same(scores[1]["metrics"][key]["score"], m["score"]), key
    assert scores[1]["units"] == scores[0]["units"]  # the same tokens read, the same unknown ones


@pytest.mark.slow
def test_equal_numbers_computed_alike_sign_alike_whatever_else_the_file_holds(finished_run):
    """M0's last test transfers scored three ways: `tst score` with every metric, `tst score` with the default
    GM and its parts only, and the workflow (its score file, which holds no GM: the report derives it). Each
    metric the three share has the same signature (and number); the line, the default GM's, is the same for
    both `tst score` outputs and the leaderboard's footnote, and the score file's lacks only t_J."""
    from tst import signature
    from tst.report.publish import split_signature

    config = yaml.safe_load((finished_run / "config.yaml").read_text())
    ckpt = stages.test_checkpoints(config)[-1]
    args = cli_args(config, "M0.seed1", ckpt, False)
    every = tst_score(finished_run, args)
    gm_parts = tst_score(finished_run, [*args, "--metrics", "gm", "style", "content", "acceptability"])
    workflow = json.loads((finished_run / layout.score(DATASET, "M0.seed1", "test", ckpt)).read_text())
    assert set(gm_parts["metrics"]) == {"style", "content", "acceptability", "joint", "gm"}
    assert len(every["metrics"]) >= 25 and "gm" not in workflow["metrics"]
    for key, m in gm_parts["metrics"].items():
        assert every["metrics"][key]["signature"] == m["signature"], key
        assert same(every["metrics"][key]["score"], m["score"]), key
    for key, m in workflow["metrics"].items():
        assert every["metrics"][key]["signature"] == m["signature"], key
    # what a signature over every metric of a file gives instead: three hashes for the same numbers
    all_variants = [{k: m["variant"] for k, m in o["metrics"].items()} for o in (every, gm_parts, workflow)]
    assert len({signature.variants_hash(v) for v in all_variants}) == 3
    line = every["signature"]["line"]
    assert gm_parts["signature"]["line"] == line and ",tJ=" in line and "|prec:" in line
    assert workflow["signature"]["line"] == re.sub(r",tJ=[^|]*", "", line)
    table = (finished_run / layout.root(DATASET) / "tables" / "leaderboard.md").read_text()
    assert split_signature(table)[0] == line
    # a signature names what its metric's numbers depend on: the MiniLM's precision for the content score, the
    # language model PP reads
    assert "|prec:" in every["metrics"]["content"]["signature"]
    assert "|prec:" not in every["metrics"]["bleu_self_corpus"]["signature"]
    assert every["metrics"]["pp_joint"]["signature"] != every["metrics"]["pp_target"]["signature"]


def rerun_scores(run: Path, overlay: dict, targets: list[str]) -> None:
    """The workflow's score jobs of `targets` (and the source embeddings they preload) run again in the run folder
    `run` with `overlay` merged into its config; the evaluators as trained (a change of evaluators.precision
    would retrain them: their settings' change is not a trigger here)."""
    from conftest import snakemake

    from tst.config_files import merge_configs

    config = merge_configs([yaml.safe_load((run / "config.yaml").read_text()), overlay])
    (run / "config.yaml").write_text(yaml.safe_dump(config))
    rules = ["embed_sources", "score_ours", "score_external"]
    snakemake(
        run,
        Path(__file__).resolve().parents[2],
        "--rerun-triggers",
        "mtime",
        "--forcerun",
        *rules,
        "--",
        *targets,
    )


@pytest.mark.slow
def test_with_config_tst_score_scores_a_dataset_as_the_workflow_in_bf16_without_cp_lexicon(
    finished_run, tmp_path
):
    """The tiny run's evaluators, the dataset's cp_lexicon: none and the MiniLM in bf16 (evaluators.precision): the
    workflow's score files and `tst score --config` agree to 1e-6 on every metric, for ours (a job that scores
    every checkpoint, dev and test, with one loaded classifier) and a baseline; the sources and references are
    NER-masked as the corpus (the demo's ner block). Without --config, `tst score` filters VADER's words before CP."""
    import shutil

    run = tmp_path / "run"
    shutil.copytree(finished_run, run, symlinks=True)
    config = yaml.safe_load((run / "config.yaml").read_text())
    ckpt = stages.test_checkpoints(config)[-1]
    systems = [("M0.seed1", ckpt, False), ("shuffled", names.FINAL, True)]
    overlay = {"evaluators": {"precision": "bf16"}, "datasets": {DATASET: {"cp_lexicon": "none"}}}
    rerun_scores(run, overlay, [layout.score(DATASET, s, "test", c) for s, c, _ in systems])
    config = yaml.safe_load((run / "config.yaml").read_text())
    for system, ckpt, external in systems:
        workflow = json.loads((run / layout.score(DATASET, system, "test", ckpt)).read_text())
        assert "no words filtered" in workflow["metrics"]["cp"]["variant"]
        assert "bf16 autocast" in workflow["metrics"]["sbert_all_minilm_l6_v2"]["variant"]
        cli = tst_score(run, [*cli_args(config, system, ckpt, external), "--config", "config.yaml"])
        assert differences(cli, workflow) == [], system
        assert cli["normalization"]["ner_masked"]["of"] == "sources, references"
        assert cli["precision"] == workflow["precision"] == "bf16"
        for key, m in workflow["metrics"].items():
            assert cli["metrics"][key]["signature"] == m["signature"], (system, key)
    plain = tst_score(run, cli_args(config, "M0.seed1", systems[0][1], False))
    assert "VADER" in plain["metrics"]["cp"]["variant"]
    assert not same(plain["metrics"]["cp"]["score"], workflow_cp(run, systems[0][1]))


def workflow_cp(run: Path, ckpt: str) -> float:
    return json.loads((run / layout.score(DATASET, "M0.seed1", "test", ckpt)).read_text())["metrics"]["cp"][
        "score"
    ]


@pytest.mark.slow
def test_with_config_sources_with_their_names_score_as_the_masked_corpus(finished_run, tmp_path):
    """M0's test sources with the names the corpus masked put back (data/test.*.entities.jsonl): `tst score
    --config` masks them as prepare_data did (the demo's ner block), so they score as the workflow's masked
    sources, every metric and the references matched on them; without --config they are scored as given and
    the references, which are masked, match only the sentences without a name."""
    from tst.io import read_jsonl
    from tst.nlp.ner import unmask

    config = yaml.safe_load((finished_run / "config.yaml").read_text())
    ckpt = stages.test_checkpoints(config)[-1]
    args = cli_args(config, "M0.seed1", ckpt, False)
    at = args.index("--sources") + 1
    named = 0
    for k, style in enumerate(layout.STYLES):
        masked = (finished_run / args[at + k]).read_text().splitlines()
        entities = read_jsonl(finished_run / layout.data(DATASET, layout.entities_file("test", style)))
        raw = [" ".join(unmask(line.split(), ents)) for line, ents in zip(masked, entities, strict=True)]
        named += sum(a != b for a, b in zip(raw, masked))
        args[at + k] = str(tmp_path / f"test.{style}.txt")
        write_lines(args[at + k], raw)
    assert named >= 10
    workflow_files = cli_args(config, "M0.seed1", ckpt, False)
    masked = tst_score(finished_run, [*workflow_files, "--config", "config.yaml"])
    with_names = tst_score(finished_run, [*args, "--config", "config.yaml"])
    assert differences(with_names, masked) == []
    assert with_names["n_with_reference"] == masked["n_with_reference"] == masked["n_sentences"]
    as_given = tst_score(finished_run, args)
    assert as_given["n_with_reference"] == masked["n_sentences"] - named
