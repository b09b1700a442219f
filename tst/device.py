"""Where tensors go and in which precision: the device asked for, else a GPU of this machine that no other job
holds (tst.gpus), else CPU; bf16 autocast where `precision` asks for it, fp32 with TF32 matmuls on CUDA
otherwise (docs/gpu.md)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import torch

PRECISIONS = ("auto", "bf16", "fp32")
# CPU flags (Linux /proc/cpuinfo) of bf16 arithmetic in hardware: AVX512-BF16 (Intel Cooper Lake+, AMD Zen 4+)
# and AMX-BF16 (Intel Sapphire Rapids+). Without them oneDNN emulates bf16, slower than fp32.
CPU_BF16_FLAGS = ("avx512_bf16", "amx_bf16")


def pick_device(name: str | None = None) -> torch.device:
    """'cpu' / 'cuda:1' when given; else (None or 'cuda') CUDA when present, on the GPU tst.gpus.job_gpu gives
    this process (a free one of the machine, or the one SLURM assigned), else CPU."""
    import torch  # here, not at the top: tst.metrics.base reads PRECISIONS without importing torch

    if name and name != "cuda":
        return torch.device(name)
    if not torch.cuda.is_available():
        return torch.device(name or "cpu")  # 'cuda' without CUDA: torch's own error where it is used
    from tst.gpus import job_gpu

    return torch.device(f"cuda:{job_gpu(torch.cuda.device_count())}")


def cpu_flags(cpuinfo: str | Path = "/proc/cpuinfo") -> set[str]:
    """The CPU's feature flags as the kernel reports them (the first `flags` line); empty where unreadable."""
    try:
        text = Path(cpuinfo).read_text()
    except OSError:
        return set()
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "flags":
            return set(value.split())
    return set()


def cpu_has_bf16(cpuinfo: str | Path = "/proc/cpuinfo") -> bool:
    """bf16 is computed in hardware on this CPU (one of CPU_BF16_FLAGS)."""
    return bool(cpu_flags(cpuinfo) & set(CPU_BF16_FLAGS))


def use_bf16(precision: str, device: torch.device, cpu_auto: bool = False, cuda_auto: bool = False) -> bool:
    """Mixed precision (bf16 autocast; parameters, losses and optimizer state stay fp32) for `precision` on
    `device`: bf16 always, fp32 never; auto only where the caller measured bf16 faster: on CUDA when cuda_auto,
    on a CPU with bf16 in hardware (cpu_has_bf16) when cpu_auto. Each flag is its caller's measured choice
    (bench/bench_evaluators.py, bench_transfer.py, bench/gpu_check.sh). On an H100 bf16 was slower for every
    model measured (transfer models 1.06-1.18x, the GRU LM, the CNN: docs/gpu.md), so no caller sets cuda_auto:
    auto is fp32 with TF32 matmuls there (allow_tf32)."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, not {precision!r}")
    if precision != "auto":
        return precision == "bf16"
    if device.type == "cuda":
        return cuda_auto
    return cpu_auto and device.type == "cpu" and cpu_has_bf16()


def allow_tf32(device: torch.device) -> None:
    """fp32 matmuls and convolutions on CUDA in TF32 (Ampere and newer; 10-bit mantissa products, fp32
    accumulation), as `precision: auto` and fp32 train there; nothing on a CPU. Process-wide torch flags."""
    import torch

    if device.type == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True
