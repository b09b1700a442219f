"""tst.data.sources: the default data folder, inside the clone the package runs from, else the current folder."""

from pathlib import Path

from tst.data import sources


def test_the_default_data_folder_is_the_clones_else_the_current_folders(repo_root, monkeypatch, tmp_path):
    monkeypatch.delenv("TST_DATA_DIR", raising=False)
    assert sources.REPO == repo_root  # the folder above the package holds the Snakefile: a clone
    assert sources.resolve_data_dir() == repo_root / "data"
    # an installed wheel: no clone above the package, data/ where the command runs
    monkeypatch.chdir(tmp_path)
    assert sources.resolve_data_dir(None, repo=None).resolve() == tmp_path / "data"
    monkeypatch.setenv("TST_DATA_DIR", str(tmp_path / "elsewhere"))
    assert sources.resolve_data_dir(None, repo=None) == tmp_path / "elsewhere"
    assert sources.resolve_data_dir("given", repo=None) == Path("given")
