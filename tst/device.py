"""Where tensors go: the device asked for, else CUDA when present, else CPU."""

import torch


def pick_device(name: str | None = None) -> torch.device:
    """'cpu' / 'cuda' / 'cuda:1' when given, else CUDA when present."""
    if name:
        return torch.device(name)
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")
