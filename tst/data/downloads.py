"""Everything that reaches the network: one file downloaded (checked, never left half-written), the optional
extras of a run fetched before any job (tst.config.check_data plans them), and the probe that the hosts of the
pending downloads accept a connection."""

from __future__ import annotations

import logging
from pathlib import Path

from tst.data.sources import fetch_url, sha256_for, url_for
from tst.progress import Progress

log = logging.getLogger(__name__)


class IncompleteDownload(ValueError):
    """The transfer ended early (connection closed, fewer bytes than announced): worth another attempt."""


def download(
    url: str | None,
    out: str | Path,
    timeout: float = 60.0,
    sha256: str | None = None,
    opener=None,
    attempts: int = 3,
) -> int:
    """Download url to out via a temporary file `<out>.part`, renamed only after the size matches the
    server's Content-Length (when it sends one) and, when given, the SHA-256 matches: a broken, partial or
    empty download never gets the final name, so it is never reused. A transfer cut short (the connection
    closed mid-file) is restarted from the first byte, up to `attempts` times in all; a wrong checksum is
    not retried. Returns the number of bytes. opener(url, timeout=...) defaults to urllib.request.urlopen
    (file:// URLs work too)."""
    import http.client

    if not url:
        raise ValueError(
            f"no download URL is configured for {out}: add it to datasets.<name>.source.urls "
            f"or place the file there by hand"
        )
    for attempt in range(1, attempts + 1):
        try:
            return _download_once(url, Path(out), timeout, sha256, opener)
        except (IncompleteDownload, http.client.IncompleteRead, ConnectionError) as e:
            if attempt == attempts:
                raise IncompleteDownload(
                    f"incomplete download of {out} from {url} after {attempts} attempts ({e}); nothing "
                    f"written to {out}; retry later or place the file there by hand"
                ) from e
    raise AssertionError("unreachable")


def _download_once(url: str, out: Path, timeout: float, sha256: str | None, opener) -> int:
    import hashlib
    import urllib.request

    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".part")
    h = hashlib.sha256()
    try:
        with (opener or urllib.request.urlopen)(url, timeout=timeout) as r, open(tmp, "wb") as f:
            expected = r.headers.get("Content-Length") if getattr(r, "headers", None) else None
            progress = Progress(int(expected) if expected else None, out.name, unit="byte")
            try:
                for block in iter(lambda: r.read(1 << 20), b""):
                    f.write(block)
                    h.update(block)
                    progress.update(len(block))
            finally:
                progress.close()
        size = tmp.stat().st_size
        if not size:
            raise ValueError(f"empty download from {url} (nothing written to {out}); check the URL and retry")
        if expected is not None and int(expected) != size:
            raise IncompleteDownload(
                f"incomplete download from {url}: {size} of {expected} bytes (nothing written to {out})"
            )
        if sha256 and h.hexdigest() != sha256.lower():
            raise ValueError(
                f"download from {url} has SHA-256 {h.hexdigest()}, expected {sha256} (nothing "
                f"written to {out}); the file changed upstream or the transfer was corrupted"
            )
        log.info(
            "downloaded %s from %s: %d bytes, sha256 %s (%s)",
            out,
            url,
            size,
            h.hexdigest(),
            "as configured" if sha256 else "no sha256 configured to check it against",
        )
        tmp.replace(out)
    finally:
        tmp.unlink(missing_ok=True)
    return size


def fetch_extras(
    pending: dict[tuple[str, str], list[str]], datasets: dict, data_dir, mirror: str | None
) -> dict:
    """Download the optional extras' missing files now (the main process of a real run, before any job):
    `pending` is tst.config.check_data's {(dataset, extra): [relative path]}, each file fetched from `mirror`
    when one is set, else from its URL, into data_dir. An extra stops at its first failed file. Returns
    {relative path: why it failed}, for check_data(failed=...) to leave those extras out."""
    failed: dict[str, str] = {}
    for files in pending.values():
        for rel in files:
            path = Path(data_dir) / rel
            if rel in failed:
                break
            if path.exists():  # fetched for an earlier extra
                continue
            source = fetch_url(url_for(datasets, rel), rel, mirror)
            try:
                download(source, path, sha256=sha256_for(datasets, rel))
            except (OSError, ValueError) as e:
                failed[rel] = f"{rel} could not be downloaded from {source} ({e})"
                break
    return failed


def check_reachable(downloads: dict[str, str], timeout: float = 10.0, connect=None) -> None:
    """Before any job: the host of every pending download ({file: url}) accepts a connection; else one
    ConfigError naming each file, its URL and the fix (internet, or the file placed there by hand).
    connect(address, timeout=...) defaults to socket.create_connection."""
    import socket
    from urllib.parse import urlsplit

    from tst.io import ConfigError

    connect = connect or socket.create_connection
    unreachable = []
    for path, url in downloads.items():
        parts = urlsplit(url)
        try:
            connect(
                (parts.hostname, parts.port or (443 if parts.scheme == "https" else 80)), timeout=timeout
            ).close()
        except OSError as e:
            unreachable.append(f"{path} <- {url} ({e})")
    if unreachable:
        raise ConfigError(
            "these files are not in place and their download host cannot be reached (no internet?), so "
            "nothing was run:\n  " + "\n  ".join(unreachable) + "\nRun with internet, or place each file "
            "at its path by hand (the corpus files under data_dir), then run again."
        )
