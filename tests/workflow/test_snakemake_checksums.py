"""tst.snakemake_checksums: a finished job's inputs are read once each for its metadata records (Snakemake reads
them once per output), and the records hold the same checksums: sha256 of the bytes, computed here with hashlib."""

import base64
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

OUTPUTS = 6
# snakemake's command line in a Python whose hashlib.file_digest notes each file it reads (one line per read)
LAUNCHER = """
import hashlib, os, sys
digest = hashlib.file_digest
def noted(f, algorithm):
    with open(os.environ["READS"], "a") as out:
        out.write(os.path.relpath(f.name) + "\\n")
    return digest(f, algorithm)
hashlib.file_digest = noted
from snakemake.cli import main
sys.argv = ["snakemake", *sys.argv[1:]]
main()
"""


def run(folder: Path, once: bool) -> dict:
    """A job with two inputs and OUTPUTS outputs, run by Snakemake with the workflow profile's checksum limit
    (4 GB); returns {input file: times read}."""
    folder.mkdir()
    (folder / "big.bin").write_bytes(os.urandom(3_000_000))
    (folder / "small.txt").write_text("one line\n")
    patch = "from tst.snakemake_checksums import hash_inputs_once\nhash_inputs_once()\n" if once else ""
    (folder / "Snakefile").write_text(
        patch
        + f"""
rule make:
    input: "big.bin", "small.txt"
    output: expand("out{{i}}.txt", i=range({OUTPUTS}))
    shell: "for f in {{output}}; do cat {{input[1]}} > $f; done"
"""
    )
    (folder / "launch.py").write_text(LAUNCHER)
    result = subprocess.run(
        [sys.executable, "launch.py", "--cores", "1", "--max-checksum-file-size", "4GB"],
        cwd=folder,
        env={**os.environ, "READS": str(folder / "reads.txt")},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, (result.stdout + result.stderr)[-3000:]
    reads = (folder / "reads.txt").read_text().split()
    return {name: reads.count(name) for name in ("big.bin", "small.txt")}


def records(folder: Path) -> dict:
    """{output: input checksums} of Snakemake's metadata records (one file per output, named by its path in
    base64)."""
    out = {}
    for record in (folder / ".snakemake" / "metadata").iterdir():
        name = base64.b64decode(record.name.replace("@", "/")).decode()
        out[name] = json.loads(record.read_text())["input_checksums"]
    return out


def test_a_finished_jobs_inputs_are_read_once_and_recorded_with_their_sha256(tmp_path):
    plain, once = run(tmp_path / "plain", once=False), run(tmp_path / "once", once=True)
    assert plain == {"big.bin": OUTPUTS, "small.txt": OUTPUTS}  # Snakemake alone: once per output
    assert once == {"big.bin": 1, "small.txt": 1}
    for folder in (tmp_path / "plain", tmp_path / "once"):
        expected = {
            name: "sha256:" + hashlib.sha256((folder / name).read_bytes()).hexdigest()
            for name in ("big.bin", "small.txt")
        }
        got = records(folder)
        assert sorted(got) == [f"out{i}.txt" for i in range(OUTPUTS)]
        assert all(checksums == expected for checksums in got.values())


def test_a_snakemake_of_another_form_is_left_as_it_is(monkeypatch):
    from snakemake.io import _IOFile
    from snakemake.persistence import PersistenceBase

    from tst.snakemake_checksums import hash_inputs_once

    def checksum(self, threshold=None, force=False, algorithm=None):  # not a coroutine: another form
        return None

    async def finished(self, job):
        return None

    monkeypatch.setattr(_IOFile, "checksum", checksum)
    monkeypatch.setattr(PersistenceBase, "finished", finished)
    assert hash_inputs_once() is False
    assert _IOFile.checksum is checksum and PersistenceBase.finished is finished


def test_the_patch_is_made_once():
    from snakemake.io import _IOFile
    from snakemake.persistence import PersistenceBase

    from tst.snakemake_checksums import hash_inputs_once

    assert hash_inputs_once() is True
    patched = _IOFile.checksum, PersistenceBase.finished
    assert hash_inputs_once() is True
    assert (_IOFile.checksum, PersistenceBase.finished) == patched
