"""The workflow's decisions as plain functions: names, checkpoint labels, variants, settings, the code hash."""

import ast
import os
import re

import pytest
import yaml

from tst import names, rule_inputs, stages, variants
from tst.codehash import code_hash, modules_of
from tst.config import ConfigError, check_config


def test_names_and_labels():
    assert names.checkpoint_labels(2) == ["ep0.5", "ep1.0", "ep1.5", "ep2.0"]
    for bad in (0, 0.5, 1.5, True):
        with pytest.raises(ValueError, match="whole number"):
            names.checkpoint_labels(bad)
    # transfer.checkpoints_per_epoch: k evenly spaced checkpoints per epoch, labels exact where one decimal is not
    assert names.checkpoint_labels(2, 8)[:3] == ["ep0.125", "ep0.25", "ep0.375"]
    assert len(names.checkpoint_labels(2, 8)) == 16 and names.checkpoint_labels(2, 8)[7::8] == [
        "ep1.0",
        "ep2.0",
    ]
    assert names.checkpoint_labels(1, 3) == ["ep0.333", "ep0.667", "ep1.0"]
    assert names.checkpoint_labels(2, 1) == ["ep1.0", "ep2.0"]
    for bad in (0, 1.5, True):
        with pytest.raises(ValueError, match="checkpoints_per_epoch"):
            names.checkpoint_labels(1, bad)
    # checkpoint j of k after update ceil(j * 313 / 8) of a 313-update epoch (Yelp CPU, batch 64), by hand:
    # 39.125, 78.25, 117.375, 156.5, 195.625, 234.75, 273.875, 313; k = 2 keeps the half at ceil(313 / 2) = 157
    assert names.checkpoint_steps(313, 8) == dict(
        zip([40, 79, 118, 157, 196, 235, 274, 313], [j / 8 for j in range(1, 9)])
    )
    assert names.checkpoint_steps(313, 2) == {157: 0.5, 313: 1.0}
    assert names.checkpoint_steps(1, 2) == {1: 1.0}  # fewer updates than checkpoints: the later one is kept
    assert names.parse_checkpoint("ep0.125") == 0.125
    assert names.system_name("M0", "3") == "M0.seed3" and names.parse_system("M0.seed3") == ("M0", 3)
    assert names.parse_system("rule_base") is None and names.parse_system("M2_attr.seed10") == ("M2_attr", 10)
    assert names.parse_checkpoint("ep1.5") == 1.5 and names.parse_checkpoint("final") is None
    assert [
        n
        for n in ("M0", "multi_decoder", "a-b.c", "x$(touch y)", "../x", "a/b", "de.*mo", ".x", "a..b", "")
        if names.is_safe_name(n)
    ] == ["M0", "multi_decoder", "a-b.c"]
    assert names.alternatives(["a.b", "c"]) == r"a\.b|c" and names.alternatives([]) == "(?!)"
    assert names.naturalness_file("M0.seed1", "nn") == "naturalness/M0.seed1.nn.pt"


def test_variants_need_what_their_terms_need():
    m5 = {"model": "cross_aligned", "lambda_para": 0.2, "lambda_cyc": 5, "lambda_lm": 0.001}
    assert variants.needs(m5) == ["paraphrase", "lm"]
    assert variants.needs({"model": "multi_decoder"}) == []
    assert variants.resolve({"lambda_cyc": 5}) == {
        "model": "cross_aligned",
        **variants.LAMBDAS,
        "lambda_cyc": 5.0,
    }
    assert variants.problems({"model": "style_embedding", "lambda_adv2": 1}) == [
        "lambda_adv2 (the WGAN-GP discriminators D' of P&G eq. 7) needs model cross_aligned"
    ]
    assert "model 'gpt' is not one of" in variants.problems({"model": "gpt"})[0]
    assert "unknown variant keys ['lambda_xyz']" in variants.problems({"lambda_xyz": 1})[0]


def test_a_variant_may_set_its_own_warm_up():
    transfer = {"cyc_start": 1.5, "cyc_ramp": 1.5, "lr": 0.001}
    m2w = {"lambda_cyc": 5, "cyc_start": 0.25, "cyc_ramp": 0.25}
    assert variants.settings_read(transfer, m2w) == {"cyc_start": 0.25, "cyc_ramp": 0.25, "lr": 0.001}
    assert variants.settings_read(transfer, {"lambda_cyc": 5}) == transfer
    # a variant without the cyclic term never reads the warm-up, its own or the section's
    assert variants.settings_read(transfer, {"cyc_start": 0.25}) == {"lr": 0.001}
    assert variants.cycle_off_until(transfer, m2w) == 0.25
    assert variants.cycle_off_until(transfer, {"lambda_cyc": 5}) == 1.5
    assert variants.resolve(m2w) == {
        "model": "cross_aligned",
        **variants.LAMBDAS,
        "lambda_cyc": 5.0,
        "cyc_start": 0.25,
        "cyc_ramp": 0.25,
    }
    assert variants.Variant.of(m2w).as_dict() == variants.resolve({"lambda_cyc": 5})  # not its identity
    cfg = {
        "transfer": {
            **transfer,
            "variants": {"M2w": m2w, "M2": {"lambda_cyc": 5}},
            "run_variants": ["M2w", "M2"],
        }
    }
    assert stages.transfer_settings(cfg, stages.lookup_tables(cfg)["variants"]["M2w"])["cyc_start"] == 0.25
    assert stages.cycle_warmups(cfg) == {"M2w": 0.25, "M2": 1.5}


def test_settings_of_the_default_config(repo_root):
    cfg = yaml.safe_load((repo_root / "config.yaml").read_text())
    check_config(cfg)
    runs = stages.our_runs(cfg)
    epochs = cfg["transfer"]["epochs"]
    assert (
        len(runs) == 2 * (2 * epochs)
        and runs[0] == ("dev", "ep0.5")
        and runs[-1] == ("test", f"ep{epochs}.0")
    )
    # demo: its own references, and every sanity baseline
    assert stages.external_systems(cfg, "demo") == [
        "source",
        "reference",
        "random_target",
        "nearest_target",
        "fixed_target",
        "shuffled",
        "empty",
        "tail_clause",
        "tail_sentence",
    ]
    assert stages.our_models(cfg, "demo") == [(v, 1) for v in cfg["transfer"]["run_variants"]]
    cfg["transfer"]["datasets"] = []
    assert stages.our_models(cfg, "demo") == []
    assert stages.score_options(cfg) == {
        "cp_lexicon": "vader",
        "cp_seed": 0,
        "sbert": True,
        "pp_count_eos": False,
        "precision": "auto",  # evaluators.precision: the MiniLM's at scoring
    }
    cfg["evaluators"]["precision"] = "fp32"
    assert stages.score_options(cfg)["precision"] == "fp32"
    assert "variants" not in stages.transfer_settings(cfg) and "lr" in stages.transfer_settings(cfg)
    assert stages.naturalness_source(cfg, "M0.seed1") == ("dev", f"ep{epochs}.0")
    assert stages.naturalness_source(cfg, "mit") == ("test", "final")
    assert stages.lookup_tables(cfg)["variants"]["multi_decoder"]["model"] == "multi_decoder"


def test_data_paths_are_named_by_their_real_path(tmp_path):
    (tmp_path / "real").mkdir()
    os.symlink(tmp_path / "real", tmp_path / "link")
    assert rule_inputs.data_file(tmp_path / "link", "a.txt") == rule_inputs.data_file(
        tmp_path / "real", "a.txt"
    )


def _package(root, files: dict):
    pkg = root / "tst"
    for rel, text in files.items():
        (pkg / rel).parent.mkdir(parents=True, exist_ok=True)
        (pkg / rel).write_text(text)
    return pkg


def test_code_hash_follows_imports_and_only_content(tmp_path):
    pkg = _package(
        tmp_path,
        {
            "__init__.py": "",
            "m/__init__.py": "",
            "m/a.py": "from tst.m.b import f\n",
            "m/b.py": "def f():\n    import tst.c\n",
            "c.py": "X = 1\n",
            "unrelated.py": "",
        },
    )
    script = tmp_path / "s.py"
    script.write_text("from tst.m.a import f\n")
    assert set(modules_of(script, pkg)) == {
        "tst",
        "tst.m",
        "tst.m.a",
        "tst.m.b",
        "tst.c",
    }  # function-level too
    before = code_hash.__wrapped__(script, pkg)
    os.utime(pkg / "c.py", (1, 1))  # a touch
    (pkg / "unrelated.py").write_text("Y = 2\n")  # a module the script never imports
    assert code_hash.__wrapped__(script, pkg) == before
    (pkg / "c.py").write_text("X = 2\n")  # code the script runs, three imports away
    edited = code_hash.__wrapped__(script, pkg)
    assert edited != before
    (tmp_path / "moved").mkdir()
    pkg.rename(tmp_path / "moved" / "tst")  # the same files elsewhere (a moved clone)
    assert code_hash.__wrapped__(script, tmp_path / "moved" / "tst") == edited


def test_code_hash_parses_each_module_text_once(tmp_path):
    """Scripts that share modules: each distinct file text is parsed once (the workflow hashes ~25 scripts at
    every start); an edited module is parsed anew, and the hash follows the edit."""
    from tst.codehash import _imports_in

    pkg = _package(tmp_path, {"__init__.py": "", "shared.py": "import tst.leaf\n", "leaf.py": "X = 1\n"})
    scripts = []
    for name in ("one", "two"):
        scripts.append(tmp_path / f"{name}.py")
        scripts[-1].write_text(f"import tst.shared  # {name}\n")
    _imports_in.cache_clear()
    for script in scripts:
        assert set(modules_of(script, pkg)) == {"tst", "tst.shared", "tst.leaf"}
    # 2 scripts + tst/__init__, shared, leaf: 5 texts parsed; the second script's 3 modules came from the cache
    assert (_imports_in.cache_info().misses, _imports_in.cache_info().hits) == (5, 3)
    before = code_hash.__wrapped__(scripts[0], pkg)
    (pkg / "leaf.py").write_text("import tst.extra\n")
    (pkg / "extra.py").write_text("")
    assert set(modules_of(scripts[0], pkg)) == {"tst", "tst.shared", "tst.leaf", "tst.extra"}
    assert code_hash.__wrapped__(scripts[0], pkg) != before


def test_defaults_read_yaml_as_safe_load_does(repo_root):
    """tst.defaults reads YAML with libyaml's safe loader where PyYAML has it (the PyPI wheels do): every YAML
    file of the clone gives the same data as the pure-Python yaml.safe_load."""
    from tst import defaults

    assert defaults._LOADER is (yaml.CSafeLoader if yaml.__with_libyaml__ else yaml.SafeLoader)
    files = [repo_root / "config.yaml", *sorted((repo_root / "configs").glob("*.yaml"))]
    files += sorted((repo_root / "schemas").glob("*.yaml")) + sorted((repo_root / "profiles").rglob("*.yaml"))
    assert len(files) > 15
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert yaml.load(text, Loader=defaults._LOADER) == yaml.safe_load(text), path


def test_dataset_settings_reach_only_the_jobs_that_read_them(repo_root):
    """A dataset's own cp_lexicon replaces score.cp_lexicon for that dataset only; preparation and system
    import see only the corpus keys, so a new system, human ratings or a scoring option reruns no
    preparation (and no training)."""
    cfg = yaml.safe_load((repo_root / "config.yaml").read_text())
    for name in ("literature", "paper_news"):
        cfg = {
            **cfg,
            "datasets": {
                **cfg["datasets"],
                **yaml.safe_load((repo_root / "configs" / f"{name}.yaml").read_text())["datasets"],
            },
        }
    assert stages.score_options(cfg, "demo")["cp_lexicon"] == "vader"  # review-like demo: the score default
    assert stages.score_options(cfg, "paper_news")["cp_lexicon"] == "none"  # Fu: no filter off review data
    assert stages.score_options(cfg, "literature") == {
        "cp_lexicon": "none",
        "cp_seed": 0,
        "sbert": True,
        "pp_count_eos": False,
        "precision": "auto",
    }
    tables = stages.lookup_tables(cfg)
    assert (
        tables["score"]["paper_news"]["cp_lexicon"] == "none"
        and tables["score"]["demo"]["cp_lexicon"] == "vader"
    )

    demo = cfg["datasets"]["demo"]
    before = stages.corpus_settings(cfg, "demo")
    assert before == {k: demo[k] for k in stages.CORPUS_KEYS if k in demo}
    more = {
        **demo,
        "systems": {"x": {"file": "x.{style}"}},
        "human_systems": ["x"],
        "cp_lexicon": "none",
        "vocab": {"min_count": 5},
        "human_aggregate": {"columns": ["acc"]},
    }
    assert stages.corpus_settings({"datasets": {"demo": more}}, "demo") == before
    changed = {**demo, "length": {"min_words": 2, "max_words": 15}}
    assert stages.corpus_settings({"datasets": {"demo": changed}}, "demo") != before


def test_cycle_warm_up_of_each_run_variant():
    # a checkpoint at epoch <= cyc_start was trained with lambda_cyc 0 (trainer.cyc_factor: 0 while the epochs done
    # before an update are < cyc_start); variants without the cyclic term have no warm-up
    m2 = {"model": "cross_aligned", "lambda_cyc": 5}
    assert variants.cycle_off_until({"cyc_start": 1.5}, m2) == 1.5
    assert variants.cycle_off_until({}, m2) == 1.5  # config.yaml's transfer.cyc_start
    assert variants.cycle_off_until({"cyc_start": 1.5}, {"model": "cross_aligned"}) is None
    config = {
        "transfer": {
            "cyc_start": 0.25,
            "run_variants": ["M0", "M2", "multi_decoder"],
            "variants": {
                "M0": {"model": "cross_aligned"},
                "M2": m2,
                "M6": m2,
                "multi_decoder": {"model": "multi_decoder"},
            },
        }
    }
    assert stages.cycle_warmups(config) == {"M2": 0.25}  # M6 is not run
    from tst.train.trainer import cyc_factor

    # the last update of the ep1.5 checkpoint (steps_per_epoch 10: update 15) has factor 0 under cyc_start 1.5,
    # the first update after it does not
    assert cyc_factor(15, 10, 1.5, 1.5) == 0.0 and cyc_factor(17, 10, 1.5, 1.5) > 0


# ---- one default per decision: config.yaml, or the schema's `default:`, is the one home ----

WATCHED = ("epochs", "min_count", "cp_lexicon", "cp_seed", "sbert", "pp_count_eos", "tolerance", "target_acc")
# Literal defaults of watched keys the code may still write, each for a reason: the signature defaults of
# library functions whose config key has no value for that evaluator (a vocabulary, the naturalness nn
# classifier's min_count) or that is always passed; word2vec's own epochs.
ALLOWED = {
    ("tst/evaluators/embeddings.py", "epochs"),
    ("tst/vocab.py", "min_count"),
    ("tst/evaluators/naturalness.py", "min_count"),
    ("tst/evaluators/style_lexicon.py", "min_count"),
    ("tst/evaluators/content_mask.py", "min_count"),
}


def _literal(node) -> bool:
    try:
        return ast.literal_eval(node) is not None
    except (ValueError, TypeError, SyntaxError):
        return False


def literal_defaults(source: str) -> set[str]:
    """Watched keys given a literal default in Python source: a dict entry `"key": literal`, a
    `.get("key", literal)` fallback, or a parameter `key=literal`."""
    found = set()
    for n in ast.walk(ast.parse(source)):
        if isinstance(n, ast.Dict):
            found |= {
                k.value for k, v in zip(n.keys, n.values) if isinstance(k, ast.Constant) and _literal(v)
            }
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "get":
            if len(n.args) == 2 and isinstance(n.args[0], ast.Constant) and _literal(n.args[1]):
                found.add(n.args[0].value)
        elif isinstance(n, ast.FunctionDef):
            a = n.args
            pairs = [
                *zip(a.args[len(a.args) - len(a.defaults) :], a.defaults),
                *zip(a.kwonlyargs, a.kw_defaults),
            ]
            found |= {arg.arg for arg, d in pairs if d is not None and _literal(d)}
    return found & set(WATCHED)


def test_literal_defaults_are_found():
    code = 'D = {"epochs": 20}\ndef f(tolerance=0.02, target_acc=None):\n    return c.get("min_count", 1)\n'
    assert literal_defaults(code) == {"epochs", "tolerance", "min_count"}
    assert literal_defaults('x = c["epochs"]\ny = c.get("sbert")\nz = {"cp_seed": n}\n') == set()


def test_each_decision_has_one_default(repo_root):
    """No second literal default of a tunable in tst/ or scripts/ (beyond ALLOWED), no fallback of one in
    the rules, and Pang & Gimpel's GM thresholds written only in config.yaml (tst.metrics.gm.DEFAULT_T reads
    them)."""
    files = [*sorted((repo_root / "tst").rglob("*.py")), *sorted((repo_root / "scripts").glob("*.py"))]
    found = {(str(p.relative_to(repo_root)), key) for p in files for key in literal_defaults(p.read_text())}
    assert found - ALLOWED == set()
    rules = "\n".join(p.read_text() for p in sorted((repo_root / "rules").glob("*.smk")))
    assert not re.search(r"lookup\([^)]*default=\s*[-0-9.\"']", rules)  # a literal fallback: a second default
    assert not re.search(r"\.get\(\"gm_t\"", rules)
    thresholds = re.compile(r"63(\.0)?,\s*71(\.0)?,\s*97")
    assert [p.name for p in files if thresholds.search(p.read_text())] == []
    assert thresholds.search((repo_root / "config.yaml").read_text())
    assert not re.search(
        r"or DEFAULT_T\b", "\n".join(p.read_text() for p in files if p.parent.name == "scripts")
    )


def test_defaults_are_config_yamls(repo_root):
    """The code's defaults are config.yaml's values (the tie tolerance of the report: its 0.05)."""
    from tst.metrics.gm import DEFAULT_T
    from tst.metrics.registry import DEFAULT_OPTIONS
    from tst.report.build import settings as report_settings

    cfg = yaml.safe_load((repo_root / "config.yaml").read_text())
    assert DEFAULT_T == (63.0, 71.0, 97.0, -37.0) and list(DEFAULT_T) == cfg["score"]["gm_t"]
    assert report_settings(None)["tolerance"] == cfg["report"]["tolerance"] == 0.05
    assert {k: DEFAULT_OPTIONS[k] for k in ("cp_lexicon", "cp_seed", "sbert", "pp_count_eos")} == {
        "cp_lexicon": "vader",
        "cp_seed": 0,
        "sbert": True,
        "pp_count_eos": False,
    }
    partial = {"datasets": {"x": {"styles": ["a", "b"]}}, "transfer": {}}
    assert stages.checkpoints(partial)[-1] == f"ep{cfg['transfer']['epochs']}.0" == "ep4.0"
    assert stages.vocab_min_count(partial, "x") == 1  # the schema's default
    assert stages.vocab_min_count({"datasets": {"x": {"vocab": {"min_count": 3}}}}, "x") == 3
    assert stages.lookup_tables(partial)["vocab"] == {"x": {"min_count": 1}}


def test_training_defaults_are_config_yamls(repo_root):
    """The trainer's defaults (code that trains without the config) are config.yaml's `transfer:` values; the
    papers' sizes are configs/paper_dimensions.yaml's over them (tst.defaults.paper_transfer, the bench
    scripts)."""
    from tst.defaults import paper_transfer
    from tst.train.trainer import DEFAULTS

    transfer = yaml.safe_load((repo_root / "config.yaml").read_text())["transfer"]
    paper = yaml.safe_load((repo_root / "configs" / "paper_dimensions.yaml").read_text())["transfer"]
    assert len(DEFAULTS) == 37 and DEFAULTS == {k: transfer[k] for k in DEFAULTS}
    assert DEFAULTS["cuda_graph"] is False  # the graphed step is asked for, never a default
    assert DEFAULTS["epochs"] == 4 and DEFAULTS["lr"] == 6.0e-3  # the demo's, not the paper's 20 and 1e-4
    assert variants.CYC_WARMUP_DEFAULTS == {"cyc_start": 1.5, "cyc_ramp": 1.5}
    assert {k: transfer[k] for k in variants.CYC_WARMUP_DEFAULTS} == variants.CYC_WARMUP_DEFAULTS
    assert paper_transfer() == {**transfer, **paper}
    assert paper_transfer()["epochs"] == 20 and paper_transfer()["cls_hidden"] == 64  # config.yaml's


def _refs(node) -> list[str]:
    if isinstance(node, dict):
        return ([node["$ref"]] if "$ref" in node else []) + [r for v in node.values() for r in _refs(v)]
    return [r for v in node for r in _refs(v)] if isinstance(node, list) else []


def test_schema_defs_are_used_and_blocks_not_repeated(repo_root):
    schema = yaml.safe_load((repo_root / "schemas" / "config.schema.yaml").read_text())
    refs = _refs(schema)
    assert {r.removeprefix("#/$defs/") for r in refs} == set(schema["$defs"])
    # evaluators.cnn, lstm, naturalness.nn, and datasets.<name>.cnn, lstm
    assert refs.count("#/$defs/neural_evaluator") == 5
    # evaluators.lm and datasets.<name>.lm: the same properties as neural_evaluator (a YAML merge) + its own; it
    # restates two: max_epochs (a fraction allowed) and dropout (Pang & Gimpel's and the default, described)
    assert refs.count("#/$defs/language_model") == 2
    lm = schema["$defs"]["language_model"]["properties"]
    common = schema["$defs"]["neural_evaluator"]["properties"]
    assert common.keys() <= lm.keys()
    restated = {k for k in common if lm[k] != common[k]}
    assert restated == {"max_epochs", "dropout"}
    assert lm["max_epochs"]["type"] == "number" and lm["dropout"]["type"] == common["dropout"]["type"]

    def blocks(node):  # every object schema with its own properties
        if isinstance(node, dict):
            own = [yaml.safe_dump(node, sort_keys=True)] if len(node.get("properties", {})) > 3 else []
            return own + [b for v in node.values() for b in blocks(v)]
        return [b for v in node for b in blocks(v)] if isinstance(node, list) else []

    written = blocks(schema)
    assert len(written) == len(set(written))


def test_one_list_of_model_families(repo_root):
    """The transfer models are named once, tst.variants.FAMILIES: tst.variants.MODELS is read from it, the
    schema leaves the check to tst.config, whose message lists them."""
    from tst.variants import FAMILIES

    assert tuple(FAMILIES) == variants.MODELS == ("cross_aligned", "multi_decoder", "style_embedding")
    schema = (repo_root / "schemas" / "config.schema.yaml").read_text()
    assert "style_embedding" not in schema
    with pytest.raises(ConfigError, match=re.escape("cross_aligned | multi_decoder | style_embedding")):
        check_config({"transfer": {"model": "x"}})
    assert "model 'gpt' is not one of cross_aligned, multi_decoder, style_embedding" in variants.problems(
        {"model": "gpt"}
    )


def _names_by_whole_parse(source: str) -> frozenset[str]:
    """The tst modules a text imports, read from its whole syntax tree (the reference for codehash's reading)."""
    import ast

    from tst.codehash import _import_names

    return frozenset(_import_names(ast.parse(source)))


def test_code_hash_reads_the_imports_a_whole_parse_reads(repo_root):
    """codehash parses only the import statements of a file: the same names as its whole syntax tree, on every
    module and script of the repository and on generated forms (parenthesized lists with comments holding
    parentheses, aliases, nested imports, continuation lines, other packages, relative imports)."""
    import random

    from tst.codehash import _imports_in

    files = [*(repo_root / "tst").rglob("*.py"), *(repo_root / "scripts").glob("*.py")]
    assert len(files) > 100
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert _imports_in.__wrapped__(text, str(path)) == _names_by_whole_parse(text), path
    rng = random.Random(0)
    modules = ["tst", "tst.a", "tst.a.b", "tstx", "os", "tst_other"]
    for _ in range(300):
        lines = []
        for _ in range(rng.randint(1, 6)):
            module, names = rng.choice(modules), [f"n{rng.randint(0, 9)}" for _ in range(rng.randint(1, 4))]
            form = rng.randrange(6)
            if form == 0:
                lines.append(f"import {module}" + (" as alias" if rng.random() < 0.5 else ""))
            elif form == 1:
                lines.append(f"from {module} import {', '.join(names)}  # a note (with parentheses)")
            elif form == 2:
                lines += [
                    f"from {module} import (  # noqa: F401 (re-exported)",
                    *(f"    {n}," for n in names),
                    ")",
                ]
            elif form == 3:
                lines += [
                    "def f():",
                    "    if True:",
                    f"        from {module} import {names[0]} as x",
                    "    return 1",
                ]
            elif form == 4:
                lines += [f"from {module} import {names[0]}, \\", f"    {names[-1]}"]
            else:
                lines.append(f"from .{module.split('.')[-1]} import {names[0]}")
            lines.append(
                rng.choice(["x = (1,\n    2)", "y = 'import tst'", "pass"]) if rng.random() < 0.3 else ""
            )
        text = "\n".join(lines) + "\n"
        assert _imports_in.__wrapped__(text, "generated.py") == _names_by_whole_parse(text), text
