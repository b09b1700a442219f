"""Where tensors go: CUDA when present, CPU otherwise."""

import torch


def best_device() -> torch.device:
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")
