"""Per-job resources of the training rules (tst.resources) and the node-size check of cluster runs."""

from types import SimpleNamespace

import pytest
import yaml

from tst.config import ConfigError
from tst.config_files import merge_configs
from tst.resources import check_fits_node, job_resources, node_size, oversized

MEM_32000_ON_16000 = (
    "transfer.resources.mem_mb asks 32000 MB per job, more than one submission may: 16000 MB "
    "(the profile's `resources: mem_mb`, or --resources mem_mb=N)"
)

THREADS_4_ON_2 = (
    "evaluators.threads asks 4 CPUs per job, more than one submission may: 2 CPUs "
    "(the profile's `cores`, or --cores N)"
)
GPU_1_ON_0 = (
    "transfer.resources.gpu asks 1 GPUs per job, more than one submission may: 0 GPUs "
    "(the profile's `resources: gpu`, or --resources gpu=N)"
)


def load(repo_root, *names):
    return merge_configs([yaml.safe_load((repo_root / name).read_text()) for name in names])


def profile_node(repo_root):
    """The node size profiles/slurm states: its `cores` and `resources`."""
    slurm = yaml.safe_load((repo_root / "profiles" / "slurm" / "config.yaml").read_text())
    return {"cores": slurm["cores"], **slurm["resources"]}


def test_defaults_fill_what_the_config_leaves_out():
    assert job_resources({}, "transfer") == {"threads": 1, "gpu": 0, "mem_mb": 8000, "runtime": 240}
    assert job_resources({}, "evaluators") == {"threads": 1, "gpu": 0, "mem_mb": 4000, "runtime": 120}
    # an evaluator's threads are evaluators.threads (a transfer model's are transfer.resources.threads)
    config = {
        "evaluators": {"threads": 3, "resources": {"mem_mb": 2000}},
        "transfer": {"resources": {"gpu": 2}},
    }
    assert job_resources(config, "evaluators") == {"threads": 3, "gpu": 0, "mem_mb": 2000, "runtime": 120}
    assert job_resources(config, "transfer") == {"threads": 1, "gpu": 2, "mem_mb": 8000, "runtime": 240}


def test_the_cpu_demo_asks_no_gpu_and_paper_scale_one(repo_root):
    demo = load(repo_root, "config.yaml")
    paper = load(repo_root, "config.yaml", "configs/paper_dimensions.yaml")
    assert [job_resources(demo, s)["gpu"] for s in ("evaluators", "transfer")] == [0, 0]
    assert [job_resources(paper, s)["gpu"] for s in ("evaluators", "transfer")] == [1, 1]
    assert job_resources(paper, "transfer") == {"threads": 1, "gpu": 1, "mem_mb": 32000, "runtime": 1440}
    # the CPU overlays keep the demo's CPU resources
    for overlay in ("configs/yelp_cpu.yaml", "configs/literature_cpu.yaml"):
        cpu = load(repo_root, "config.yaml", overlay)
        assert [job_resources(cpu, s)["gpu"] for s in ("evaluators", "transfer")] == [0, 0]


def test_a_job_larger_than_the_node_is_named_with_the_setting_to_change():
    config = {"evaluators": {"threads": 4}, "transfer": {"resources": {"mem_mb": 32000, "gpu": 1}}}
    node = {"cores": 2, "mem_mb": 16000, "gpu": 0}
    assert oversized(config, node) == [
        THREADS_4_ON_2,
        MEM_32000_ON_16000,
        GPU_1_ON_0,
    ]
    # exactly the node's size fits; a limit that is not stated (None, missing) is not checked
    assert oversized(config, {"cores": 4, "mem_mb": 32000, "gpu": 1}) == []
    assert oversized(config, {"cores": None, "mem_mb": None}) == []
    with pytest.raises(
        ConfigError,
        match=r"(?s)larger than what the profile lets one submission ask for.*transfer\.resources\.mem_mb"
        r".*sinfo",
    ):
        check_fits_node(config, node)


def test_node_size_reads_numbers_or_snakemake_resources():
    assert node_size({"_cores": 2, "mem_mb": 16000}) == {"cores": 2, "mem_mb": 16000, "gpu": None}
    # Snakemake's global resources hold Resource objects with the number in .value
    limits = {"_cores": SimpleNamespace(value=None), "gpu": SimpleNamespace(value=1)}
    assert node_size(limits) == {"cores": None, "mem_mb": None, "gpu": 1}


def test_the_profile_node_fits_the_demo_but_not_paper_scale(repo_root):
    node = profile_node(repo_root)
    assert node == {"cores": 1, "mem_mb": 16000, "gpu": 1}  # a small node: the demo runs on any cluster
    check_fits_node(load(repo_root, "config.yaml"), node)  # no error
    paper = load(repo_root, "config.yaml", "configs/paper_dimensions.yaml")
    assert oversized(paper, node) == [MEM_32000_ON_16000]
    # the paper-scale limits the profile's comment names fit it
    assert oversized(paper, {"cores": 1, "mem_mb": 32000, "gpu": 1}) == []
