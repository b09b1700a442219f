"""What a metric that runs out of memory raises and how its skip reason reads; giving the memory back."""

from __future__ import annotations

import gc

# What a failed allocation says: torch's CPU allocator raises a plain RuntimeError ("DefaultCPUAllocator:
# can't allocate memory: you tried to allocate N bytes"), CUDA a torch.OutOfMemoryError ("CUDA out of
# memory"), and a C++ kernel whose own allocation fails a RuntimeError "std::bad_alloc" (seen in the GRU under
# an address-space limit). With no memory left even the allocator's message may be cut short: the GRU raised
# RuntimeError("[enforce fail a") under a 2.2 GB limit (an enforce message always closes its "[file:line]").
OOM_MESSAGES = (
    "can't allocate memory",
    "not enough memory",
    "out of memory",
    "std::bad_alloc",
    "alloc_cpu.cpp",
)


def is_out_of_memory(error: BaseException) -> bool:
    """An allocation that failed: MemoryError (Python, numpy), torch.OutOfMemoryError (CUDA), or torch's CPU
    allocator's RuntimeError. (The kernel's OOM killer raises nothing: it kills the process.)"""
    import torch

    if isinstance(error, (MemoryError, torch.OutOfMemoryError)):
        return True
    if not isinstance(error, RuntimeError):
        return False
    message = str(error)
    return any(m in message for m in OOM_MESSAGES) or (
        message.startswith("[enforce fail") and "]" not in message
    )


def free_memory() -> None:
    """Give back what a failed computation left: unreachable tensors, and CUDA's cached blocks."""
    import torch

    gc.collect()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()


def out_of_memory_reason(error: BaseException) -> str:
    """The skip reason of a metric that ran out of memory (is_out_of_memory)."""
    first = (str(error).strip().splitlines() or [""])[0][:200]
    return (
        f"out of memory ({type(error).__name__}: {first}); the other metrics were scored. Free memory, or "
        f"cut long lines shorter (tst score --max-words, config score.max_words)"
    )
