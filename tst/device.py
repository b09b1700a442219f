"""Where tensors go and in which precision: the device asked for, else CUDA when present, else CPU; bf16
autocast where `precision` asks for it."""

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
    """'cpu' / 'cuda' / 'cuda:1' when given, else CUDA when present."""
    import torch  # here, not at the top: tst.metrics.base reads PRECISIONS without importing torch

    if name:
        return torch.device(name)
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


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


def use_bf16(precision: str, device: torch.device, cpu_auto: bool = False) -> bool:
    """Mixed precision (bf16 autocast; parameters, losses and optimizer state stay fp32) for `precision` on
    `device`: bf16 always, fp32 never, auto on CUDA and, when cpu_auto, on a CPU with bf16 in hardware
    (cpu_has_bf16). cpu_auto is each caller's measured choice (bench/bench_evaluators.py, bench_transfer.py)."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, not {precision!r}")
    if precision != "auto":
        return precision == "bf16"
    return device.type == "cuda" or (cpu_auto and device.type == "cpu" and cpu_has_bf16())
