"""tst.config_files without Snakemake: its merge is Snakemake's update_config and its schema check refuses what
snakemake.utils.validate refuses, key for key (both compared here where Snakemake is installed); a config file
that holds no mapping is refused naming the file; the module runs where Snakemake cannot be imported."""

import copy
import subprocess
import sys

import pytest
import yaml

from tst.config_files import check_schema, merge_configs, read_configs

# merges whose result turns on how a mapping meets a value that is none, and the reverse
EDGE_CASES = [
    [{"a": {"b": 1, "c": [1, 2]}, "d": None, "e": 3}, {"a": {"c": [3]}, "d": {"x": 1}}, {"e": None}],
    [{"a": [1, 2]}, {"a": {"b": 1}}],  # a mapping over a list: the list goes
    [
        {"a": [1, 2]},
        {"a": {}},
    ],  # an empty mapping over a list: the list stays (update_config's loop never runs)
    [{"a": None}, {"a": {}}],
    [{"a": {"b": {"c": 1}}}, {"a": {"b": 5}}, {"a": {"b": {"d": 2}}}],  # a scalar between two mappings
    [{"a": {"b": 1}}, {"a": 7}],
    [{}, None, {"x": {"y": {"z": [1]}}}],
    [None],
]


def snakemake_merge(configs):
    from snakemake.utils import update_config

    out = {}
    for c in copy.deepcopy(configs):
        update_config(out, c or {})
    return out


def shipped_stacks(repo_root) -> list[list[dict]]:
    """config.yaml with each overlay of configs/ over it, and Yelp with its two scale overlays."""
    load = lambda name: yaml.safe_load((repo_root / name).read_text())
    stacks = [["config.yaml", f"configs/{p.name}"] for p in sorted((repo_root / "configs").glob("*.yaml"))]
    stacks += [
        ["config.yaml", "configs/yelp.yaml", f"configs/{o}"] for o in ("scores_only.yaml", "yelp_cpu.yaml")
    ]
    return [[load(n) for n in names] for names in stacks]


def test_the_merge_is_snakemakes_update_config(repo_root):
    pytest.importorskip("snakemake")
    stacks = shipped_stacks(repo_root) + EDGE_CASES
    assert len(stacks) >= 20
    for configs in stacks:
        before = copy.deepcopy(configs)
        assert merge_configs(configs) == snakemake_merge(configs), configs[-1]
        assert configs == before  # the inputs are left as they are


def test_the_merge_by_hand():
    assert merge_configs(EDGE_CASES[0]) == {"a": {"b": 1, "c": [3]}, "d": {"x": 1}, "e": None}
    assert merge_configs(EDGE_CASES[1]) == {"a": {"b": 1}}
    assert merge_configs(EDGE_CASES[2]) == {"a": [1, 2]}
    assert merge_configs(EDGE_CASES[4]) == {"a": {"b": {"d": 2}}}
    # the merged config shares no list with its inputs: changing it changes no file's config
    base = {"a": {"c": [1, 2]}}
    merged = merge_configs([base])
    merged["a"]["c"].append(3)
    assert base == {"a": {"c": [1, 2]}}


# overlays over config.yaml: (the overlay, the key named, words of the message); each one the schema refuses
REFUSED = [
    (
        {"score": {"max_wrds": 5}},
        "score",
        "Additional properties are not allowed ('max_wrds' was unexpected)",
    ),
    ({"transfer": {"epochs": 0}}, "transfer.epochs", "0 is less than the minimum of 1"),
    ({"transfer": {"run_variants": ["M0", 3]}}, "transfer.run_variants.1", "3 is not of type 'string'"),
    ({"typo_key": 1}, "(top level)", "('typo_key' was unexpected)"),
    ({"datasets": {"demo": {"styles": "neg"}}}, "datasets.demo.styles", "'neg' is not of type 'array'"),
]


@pytest.mark.parametrize("overlay,key,words", REFUSED)
def test_the_schema_check_refuses_what_snakemake_refuses_naming_the_same_key(repo_root, overlay, key, words):
    with pytest.raises(ValueError) as e:
        check_schema(overlay, "--config x.yaml")
    assert str(e.value).startswith(f"--config x.yaml: config key {key}: ")
    assert words in str(e.value) and str(e.value).endswith("(schemas/config.schema.yaml)")
    pytest.importorskip("snakemake")
    from snakemake.utils import validate
    from snakemake_interface_common.exceptions import WorkflowError

    seen = snakemake_merge([yaml.safe_load((repo_root / "config.yaml").read_text()), overlay])
    with pytest.raises(WorkflowError) as workflow:
        validate(seen, str(repo_root / "schemas" / "config.schema.yaml"), set_default=False)
    index = "".join(f"[{p}]" if p.isdigit() else f"['{p}']" for p in key.split(".") if key != "(top level)")
    assert f"On instance{index}:" in str(workflow.value)
    assert words in str(workflow.value)


def test_the_shipped_overlays_get_snakemakes_verdict(repo_root):
    """Each shipped stack: accepted by both or refused by both (an overlay meant to go over configs/yelp.yaml,
    alone over config.yaml, lacks the dataset's required keys); the dataset overlays themselves pass."""
    pytest.importorskip("snakemake")
    from snakemake.utils import validate
    from snakemake_interface_common.exceptions import WorkflowError

    verdicts = {}
    for configs in shipped_stacks(repo_root):
        try:
            check_schema(merge_configs(configs[1:]), "shipped")  # config.yaml goes under it there
            ours = None
        except ValueError as e:
            ours = str(e)
        try:
            validate(
                snakemake_merge(configs), str(repo_root / "schemas" / "config.schema.yaml"), set_default=False
            )
            theirs = None
        except WorkflowError as e:
            theirs = str(e)
        assert (ours is None) == (theirs is None), (ours, theirs)
        verdicts[len(verdicts)] = ours
    assert sum(v is None for v in verdicts.values()) >= 12  # config.yaml with each dataset and scale overlay


@pytest.mark.parametrize(
    "text,words",
    [
        ("- datasets\n- transfer\n", "it holds a YAML list (2 items), not a mapping of config keys"),
        ("just words\n", "it holds a YAML str ('just words'), not a mapping of config keys"),
        ("42\n", "it holds a YAML int ('42'), not a mapping"),
        ("", "it is empty (no YAML document, or null), not a mapping"),
        ("# only a comment\n", "it is empty (no YAML document, or null), not a mapping"),
    ],
)
def test_a_file_that_holds_no_mapping_is_refused_naming_it(tmp_path, text, words):
    good, bad = tmp_path / "good.yaml", tmp_path / "bad.yaml"
    good.write_text("transfer: {epochs: 2}\n")
    bad.write_text(text)
    with pytest.raises(ValueError) as e:
        read_configs([good, bad])
    assert str(e.value).startswith(f"--config {bad}: {words}")
    assert read_configs([good])["transfer"] == {"epochs": 2}


BLOCK_SNAKEMAKE = """
import importlib.abc, sys
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0].startswith("snakemake"):
            raise ImportError(f"{name} blocked: Snakemake is not installed")
sys.meta_path.insert(0, Block())
"""


def test_the_config_files_and_the_cli_need_no_snakemake(tmp_path, repo_root):
    """With every snakemake module unimportable: --config files read, merged and checked; tst --version."""
    (tmp_path / "overlay.yaml").write_text("transfer: {epochs: 0}\n")
    code = BLOCK_SNAKEMAKE + (
        "from tst.config_files import read_configs\n"
        f"print(read_configs([{str(repo_root / 'configs' / 'tiny.yaml')!r}])['transfer']['epochs'])\n"
        "try:\n"
        f"    read_configs([{str(tmp_path / 'overlay.yaml')!r}])\n"
        "except ValueError as e:\n"
        "    print(e)\n"
        "import snakemake\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, cwd=tmp_path
    )
    assert out.stdout.splitlines()[0] == "1"  # configs/tiny.yaml's transfer.epochs
    assert "config key transfer.epochs: 0 is less than the minimum of 1" in out.stdout.splitlines()[1]
    assert (
        out.returncode == 1 and "snakemake blocked: Snakemake is not installed" in out.stderr
    )  # the block holds
    version = subprocess.run(
        [sys.executable, "-c", BLOCK_SNAKEMAKE + "from tst.cli import main; main(['--version'])"],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
    )
    assert version.returncode == 0 and version.stdout.startswith("tst "), version.stderr[-2000:]
