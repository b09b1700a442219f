"""tst.imports.unimportable: a module cannot be imported inside the block, and imports as usual after it."""

import sys

import pytest

from tst.imports import unimportable


def test_unimportable_blocks_inside_the_block_only(tmp_path, monkeypatch):
    (tmp_path / "tst_probe_module.py").write_text("VALUE = 7\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with unimportable("tst_probe_module"), pytest.raises(ImportError):
        import tst_probe_module
    import tst_probe_module

    assert tst_probe_module.VALUE == 7
    with unimportable("tst_probe_module"):  # already imported: left as it is
        assert sys.modules["tst_probe_module"] is tst_probe_module
