"""Snakemake's record of a finished job reads each of the job's inputs once, not once per output.

At the end of every job, Snakemake 9 (`snakemake.persistence.PersistenceBase.finished`) writes one metadata
record per output file, and for each record it hashes every input below `max-checksum-file-size` again
(snakemake#4240). With the workflow profile's 4 GB limit (profiles/default/config.yaml: a touched checkpoint
reruns nothing) a score job with 32 outputs hashed the two 91 MB MiniLM checkpoints 32 times: in the demo, 21,870
hashes of 32.4 GB, ~20 s of the main process, which starts no job while it hashes (docs/performance.md).

`hash_inputs_once()` keeps, for the length of one `finished` call, the checksum of each input it has read: the
records hold the same checksums, each input read once per job. Where Snakemake's functions are not the ones this
was written for (another major version), it changes nothing."""

import contextvars
import inspect

# {(file, threshold): checksum} for the `finished` call running in this asyncio context; None outside one
_READ = contextvars.ContextVar("tst_job_input_checksums", default=None)


def hash_inputs_once() -> bool:
    """Patch Snakemake (idempotent) so that a finished job's inputs are hashed once each; True when patched (or
    already), False when this Snakemake's functions do not have the expected form, left as they are."""
    try:
        from snakemake.io import _IOFile
        from snakemake.persistence import PersistenceBase as Persistence
    except ImportError:
        return False
    if getattr(Persistence.finished, "_tst_once", False):
        return True
    checksum, finished = _IOFile.checksum, Persistence.finished
    expected = ["self", "threshold", "force", "algorithm"]
    if not (
        inspect.iscoroutinefunction(checksum)
        and inspect.iscoroutinefunction(finished)
        and list(inspect.signature(checksum).parameters) == expected
        and list(inspect.signature(finished).parameters) == ["self", "job"]
    ):
        return False

    async def checksum_once(self, threshold=None, force=False, algorithm=None):
        read = _READ.get()
        if read is None or force or algorithm is not None:
            return await checksum(self, threshold, force, algorithm)
        key = (self.file, threshold)
        if key not in read:
            read[key] = await checksum(self, threshold)
        return read[key]

    async def finished_once(self, job):
        token = _READ.set({})
        try:
            return await finished(self, job)
        finally:
            _READ.reset(token)

    finished_once._tst_once = True
    _IOFile.checksum = checksum_once
    Persistence.finished = finished_once
    return True
