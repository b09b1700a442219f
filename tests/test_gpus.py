"""GPU slots (tst.gpus), with a simulated GPU count: concurrent jobs get different GPUs (or, with several jobs
per GPU, different (GPU, slot) pairs), a released or dead job's slot is taken again, SLURM's assignment is used
as given, and pick_device asks for a slot."""

import logging
import os
import signal
import subprocess
import sys
import textwrap

import pytest
import torch

from tst import gpus
from tst.device import pick_device
from tst.gpus import acquire_slot, gpu_ids, job_gpu, jobs_per_gpu, slot_order, under_slurm

HOLD = textwrap.dedent(
    """
    import sys, time
    from tst import gpus
    env = {"TST_JOBS_PER_GPU": sys.argv[3]}
    print(gpus.job_gpu(int(sys.argv[2]), env=env, lock_dir=sys.argv[1]), *list(gpus._HELD.values())[0][:2],
          flush=True)
    time.sleep(60)
    """
)


def holder(lock_dir, count=3, per_gpu=1):
    """A separate process that takes a GPU slot and keeps it; -> (process, its GPU index)."""
    p, gpu, _ = slot_holder(lock_dir, count, per_gpu)
    return p, gpu


def slot_holder(lock_dir, count, per_gpu):
    """A separate process that takes a GPU slot and keeps it; -> (process, its GPU index, its slot)."""
    p = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(lock_dir), str(count), str(per_gpu)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    gpu, same, slot = map(int, p.stdout.readline().split())
    assert same == gpu
    return p, gpu, slot


@pytest.fixture(autouse=True)
def fresh_pool(monkeypatch):
    """Each test starts holding no slot; the slots job_gpu took in it are released at its end."""
    monkeypatch.setattr(gpus, "_HELD", {})
    yield
    for *_, fd in gpus._HELD.values():
        os.close(fd)


def test_concurrent_jobs_get_different_gpus_and_a_released_one_is_reused(tmp_path):
    ids = ["0", "1", "2"]
    a, b = acquire_slot(ids, tmp_path), acquire_slot(ids, tmp_path)
    assert (a[0], b[0]) == (0, 1)  # each takes the first free GPU
    c = acquire_slot(ids, tmp_path)
    assert c[0] == 2 and acquire_slot(ids, tmp_path) is None  # three GPUs, three jobs: none left
    os.close(b[2])
    d = acquire_slot(ids, tmp_path)
    assert d[:2] == (1, 0)  # the released GPU
    for fd in (a[2], c[2], d[2]):
        os.close(fd)


def test_jobs_in_other_processes_get_other_gpus_and_a_dead_jobs_gpu_is_taken_again(tmp_path):
    p1, g1 = holder(tmp_path)
    p2, g2 = holder(tmp_path)
    try:
        assert {g1, g2} == {0, 1}
        p1.send_signal(signal.SIGKILL)  # killed: no cleanup runs, the kernel drops its lock
        p1.wait()
        assert (tmp_path / "gpu-0.lock").exists() or (tmp_path / "gpu-1.lock").exists()  # the file stays
        got = acquire_slot(["0", "1", "2"], tmp_path)
        assert got[0] == g1  # the dead job's GPU, before the never-used third one
        os.close(got[2])
    finally:
        for p in (p1, p2):
            p.kill()
            p.wait()
            p.stdout.close()


def test_a_job_keeps_its_gpu_and_shares_one_when_all_are_taken(tmp_path, monkeypatch):
    first = job_gpu(2, env={}, lock_dir=tmp_path)
    assert job_gpu(2, env={}, lock_dir=tmp_path) == first  # the same process asks again: the same GPU
    other = acquire_slot(gpu_ids(2, {}), tmp_path)
    assert other[0] == 1 - first
    mine = gpus._HELD.copy()
    gpus._HELD.clear()  # as a third process: both GPUs held
    assert job_gpu(2, env={}, lock_dir=tmp_path) == os.getpid() % 2
    gpus._HELD.update(mine)
    os.close(other[2])


def test_slurm_and_a_single_gpu_need_no_slot(tmp_path):
    slurm = {"SLURM_JOB_ID": "42", "CUDA_VISIBLE_DEVICES": "3"}
    assert under_slurm(slurm) and not under_slurm({"SLURM_JOB_ID": "42"}) and not under_slurm({})
    assert job_gpu(1, env={}, lock_dir=tmp_path) == 0
    assert job_gpu(2, env={"SLURM_JOB_ID": "42", "CUDA_VISIBLE_DEVICES": "3,5"}, lock_dir=tmp_path) == 0
    assert not list(tmp_path.iterdir())  # no lock was taken


def test_slots_are_named_by_the_physical_gpu():
    assert gpu_ids(3, {}) == ["0", "1", "2"]
    assert gpu_ids(2, {"CUDA_VISIBLE_DEVICES": "2,3"}) == ["2", "3"]
    assert gpu_ids(1, {"CUDA_VISIBLE_DEVICES": "GPU-8f1e/a:b"}) == ["GPU-8f1e_a_b"]
    assert gpu_ids(2, {"CUDA_VISIBLE_DEVICES": "1"}) == ["0", "1"]  # a list that does not match: indices


def test_pick_device_asks_for_a_slot_when_cuda_has_several_gpus(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 4)
    monkeypatch.setattr(gpus, "job_gpu", lambda count: {4: 2}[count])
    assert pick_device() == torch.device("cuda:2") and pick_device("cuda") == torch.device("cuda:2")
    assert pick_device("cuda:1") == torch.device("cuda:1") and pick_device("cpu") == torch.device("cpu")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert pick_device() == torch.device("cpu")


@pytest.mark.parametrize("count", [0, 1])
def test_no_lock_folder_without_a_choice(tmp_path, count):
    assert job_gpu(count, env={}, lock_dir=tmp_path / "slots") == 0
    assert not (tmp_path / "slots").exists()


def test_the_lock_folder_is_made_for_every_user(tmp_path):
    job_gpu(2, env={}, lock_dir=tmp_path / "slots")
    assert (tmp_path / "slots").stat().st_mode & 0o7777 == 0o1777


def test_jobs_per_gpu_is_read_from_the_environment_the_workflow_sets():
    env = {}
    gpus.hand_to_jobs(3, env)
    assert env == {"TST_JOBS_PER_GPU": "3"} and jobs_per_gpu(env) == 3


def test_jobs_per_gpu_is_read_from_the_environment():
    assert jobs_per_gpu({}) == 1 and jobs_per_gpu({"TST_JOBS_PER_GPU": ""}) == 1
    assert jobs_per_gpu({"TST_JOBS_PER_GPU": " 3 "}) == 3
    for bad in ("0", "-1", "1.5", "two"):
        with pytest.raises(ValueError, match="TST_JOBS_PER_GPU"):
            jobs_per_gpu({"TST_JOBS_PER_GPU": bad})


def test_slots_spread_over_the_gpus_before_a_gpu_runs_two():
    assert slot_order(2, 3) == [(0, 0), (1, 0), (0, 1), (1, 1), (0, 2), (1, 2)]
    assert slot_order(3, 1) == [(0, 0), (1, 0), (2, 0)]


def test_two_gpus_three_slots_six_jobs_get_distinct_slots_a_seventh_shares(tmp_path, caplog):
    """2 GPUs x 3 jobs per GPU: six processes hold six different (GPU, slot) pairs, three on each GPU; a
    seventh job finds every slot held and shares a GPU (by process id) with a warning; a killed job's slot is
    the next one taken."""
    procs = []
    try:
        for _ in range(6):
            p, gpu, slot = slot_holder(tmp_path, 2, 3)
            procs.append((p, gpu, slot))
        pairs = [(g, k) for _, g, k in procs]
        assert pairs == [(0, 0), (1, 0), (0, 1), (1, 1), (0, 2), (1, 2)]  # taken in slot_order
        assert sorted(p.name for p in tmp_path.iterdir()) == [
            "gpu-0.1.lock",
            "gpu-0.2.lock",
            "gpu-0.lock",
            "gpu-1.1.lock",
            "gpu-1.2.lock",
            "gpu-1.lock",
        ]
        env = {"TST_JOBS_PER_GPU": "3"}
        assert acquire_slot(gpu_ids(2, {}), tmp_path, 3) is None
        with caplog.at_level(logging.WARNING, logger="tst.gpus"):
            assert job_gpu(2, env=env, lock_dir=tmp_path) == os.getpid() % 2
        assert "all 6 slots (2 GPUs x 3 jobs per GPU) are taken" in caplog.text
        assert gpus._HELD == {}  # sharing holds no slot
        killed = procs[3]  # GPU 1, slot 1
        killed[0].send_signal(signal.SIGKILL)
        killed[0].wait()
        assert job_gpu(2, env=env, lock_dir=tmp_path) == 1
        assert [v[:2] for v in gpus._HELD.values()] == [(1, 1)]
    finally:
        for p, *_ in procs:
            p.kill()
            p.wait()
            p.stdout.close()


def test_one_job_per_gpu_and_several_agree_on_the_first_slot(tmp_path):
    """A run with one job per GPU and a run with two share the pool: both name slot 0 gpu-<id>.lock."""
    one = acquire_slot(["0", "1"], tmp_path, 1)
    assert one[:2] == (0, 0)
    two = acquire_slot(["0", "1"], tmp_path, 2)
    assert two[:2] == (1, 0)  # GPU 0's first slot is the other run's
    three = acquire_slot(["0", "1"], tmp_path, 2)
    assert three[:2] == (0, 1)
    assert acquire_slot(["0", "1"], tmp_path, 1) is None  # one job per GPU: both GPUs' first slots held
    for got in (one, two, three):
        os.close(got[2])
