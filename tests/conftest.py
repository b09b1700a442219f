"""Shared fixtures: where the real data lives (skip with a reason when it is absent)."""

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def shared_data_path() -> Path | None:
    """$TST_DATA_DIR, else ../shared/data beside the repository, else None."""
    env = os.environ.get("TST_DATA_DIR")
    if env:
        return Path(env) if Path(env).is_dir() else None
    default = REPO.parent / "shared" / "data"
    return default if default.is_dir() else None


@pytest.fixture(scope="session")
def shared_data() -> Path:
    path = shared_data_path()
    if path is None:
        pytest.skip("real data not found: set TST_DATA_DIR or place it at ../shared/data")
    return path


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO
