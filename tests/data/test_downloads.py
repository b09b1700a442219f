"""Every dataset from an empty data folder: pinned URLs and checksums, the mirror override, downloads served for
real from 127.0.0.1 (checksum, corruption, a connection cut mid-file), the system files cut out of their
released originals, and what a dry run says for each config when the data folder is empty."""

import copy
import hashlib
import http.server
import re
import shutil
import threading
from pathlib import Path

import pytest
import yaml
from conftest import planned_jobs, snakemake

from tst import rule_inputs
from tst.config import ConfigError, check_config, check_data, without_extras
from tst.config_files import merge_configs
from tst.data.downloads import IncompleteDownload, download, fetch_extras
from tst.data.sources import (
    extracted_files,
    fetch_url,
    resolve_mirror,
    sha256_for,
    url_for,
)
from tst.data.systems import extract_outputs

REPO = Path(__file__).resolve().parents[2]
DOWNLOADED = ("yelp", "amazon", "imdb", "paper_news")  # the configs whose every file has a public URL
# Files with a pinned URL but no staged copy to take a checksum from (not read by the default yelp config).
UNSTAGED = {"yelp/shen/sentiment.train.0", "yelp/shen/sentiment.train.1"}


def load_config(*overlays: str) -> dict:
    """config.yaml with configs/<overlay> over it, merged as Snakemake merges --configfile overlays."""
    docs = [yaml.safe_load((REPO / "config.yaml").read_text())]
    docs += [yaml.safe_load((REPO / "configs" / o).read_text()) for o in overlays]
    return merge_configs(docs)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# ---- a data folder served over HTTP on 127.0.0.1 ----


class Server:
    """http.server in a thread serving `root`; `cut` (path -> number of requests to cut) sends the right
    Content-Length and closes the connection halfway through the body; `corrupt` serves paths with one byte
    changed. Stops at the end of the `with` block, or by itself after `limit` seconds."""

    def __init__(self, root: Path, limit: float = 600.0):
        self.root, self.cut, self.corrupt, self.requests = Path(root), {}, set(), []
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                rel = self.path.lstrip("/")
                server.requests.append(rel)
                path = server.root / rel
                if not path.is_file():
                    self.send_error(404)
                    return
                body = path.read_bytes()
                if rel in server.corrupt:
                    body = bytes([body[0] ^ 1]) + body[1:]
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if server.cut.get(rel, 0) > 0:
                    server.cut[rel] -= 1
                    self.wfile.write(body[: len(body) // 2])
                    self.wfile.flush()
                    self.close_connection = True
                    return
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.timer = threading.Timer(limit, self.httpd.shutdown)

    def __enter__(self):
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.timer.start()
        return self

    def __exit__(self, *exc):
        self.timer.cancel()
        self.httpd.shutdown()
        self.httpd.server_close()


# ---- fast checks ----


def test_every_url_is_pinned_and_every_download_has_the_sha256_of_the_released_file(shared_data):
    """Each URL of the downloadable configs names a 40-hex commit, and each file they read has a sha256 that is
    the staged copy's (the staged copies were checked byte-identical to the files at those commits)."""
    checked = 0
    for name in DOWNLOADED:
        config = load_config(f"{name}.yaml")
        datasets = {name: config["datasets"][name]}
        corpus, extras = rule_inputs.data_needs(config, name)
        for rel in dict.fromkeys([*corpus, *(f for files in extras.values() for f in files)]):
            url = url_for(datasets, rel)
            assert url and re.match(r"https://raw\.githubusercontent\.com/[^/]+/[^/]+/[0-9a-f]{40}/", url), (
                rel
            )
            if rel in UNSTAGED:
                continue
            assert sha256_for(datasets, rel) == sha256(shared_data / rel), rel
            checked += 1
    # corpus, references, systems, rated outputs and ratings: yelp 39, amazon 23, imdb 8, paper_news 2
    assert checked == 39 + 23 + 8 + 2
    assert url_for(
        {"yelp": load_config("yelp.yaml")["datasets"]["yelp"]}, "yelp/li/human_ratings/ratings-yelp.csv"
    )


def test_extraction_is_byte_identical_to_the_staged_files(shared_data):
    datasets = {"yelp": load_config("yelp.yaml")["datasets"]["yelp"]}
    made = extracted_files(datasets)
    assert sorted(made) == [f"yelp/released/{s}.{i}" for s in ("imat", "mask_infill") for i in (0, 1)]
    for rel, (original, spec) in made.items():
        out = extract_outputs((shared_data / original).read_bytes(), spec, rel)
        assert out == (shared_data / rel).read_bytes(), rel
        assert out.count(b"\n") == 500  # aligned with Li's 500 test sentences per style


def test_extract_by_prefix_or_column_by_hand():
    imat = b"src:\ta b\nca:\tc d\nours:\te f\nsrc:\tg\nours:\t\n"
    assert extract_outputs(imat, {"prefix": "ours:"}) == b"e f\n\n"  # an empty output stays a line
    assert extract_outputs(b"s1\to1\t0\ns2\to2\t0", {"column": 2}) == b"o1\no2\n"
    with pytest.raises(ValueError, match=r"imat\.0: no line starts with 'mine:'"):
        extract_outputs(imat, {"prefix": "mine:"}, "imat.0")
    with pytest.raises(ValueError, match="line 2 has 1 columns, column 2"):
        extract_outputs(b"a\tb\nc\n", {"column": 2})


def test_mirror_replaces_the_public_url_and_must_be_a_url(monkeypatch):
    monkeypatch.delenv("TST_MIRROR", raising=False)
    assert resolve_mirror(None) is None
    monkeypatch.setenv("TST_MIRROR", "http://127.0.0.1:8000/data/")
    assert resolve_mirror(None) == "http://127.0.0.1:8000/data"
    assert resolve_mirror("file:///srv/copy") == "file:///srv/copy"  # the config key wins
    assert fetch_url("https://x/y", "yelp/li/a b", "http://m") == "http://m/yelp/li/a%20b"
    assert fetch_url("https://x/y", "yelp/li/a", None) == "https://x/y"
    with pytest.raises(ValueError, match=r"\$TST_MIRROR '/srv/copy' is not a URL"):
        monkeypatch.setenv("TST_MIRROR", "/srv/copy")
        resolve_mirror(None)


def test_download_verifies_restarts_a_cut_transfer_and_rejects_corruption(shared_data, tmp_path):
    rel = "yelp/li/sentiment.test.0"
    digest = sha256(shared_data / rel)
    with Server(shared_data) as server:
        server.cut[rel] = 1  # the first transfer stops halfway: restarted from the first byte
        size = download(f"{server.url}/{rel}", tmp_path / "a", sha256=digest)
        assert size == (shared_data / rel).stat().st_size and sha256(tmp_path / "a") == digest
        assert server.requests == [rel, rel]
        server.cut[rel] = 3  # cut every time: gives up, names the file, leaves nothing behind
        with pytest.raises(
            IncompleteDownload, match=rf"incomplete download of {tmp_path / 'b'} .* 3 attempts"
        ):
            download(f"{server.url}/{rel}", tmp_path / "b", sha256=digest)
        server.corrupt.add(rel)
        with pytest.raises(ValueError, match=rf"/{rel} has SHA-256 .*expected {digest} \(nothing written to"):
            download(f"{server.url}/{rel}", tmp_path / "c", sha256=digest)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a"]


def test_progress_logs_bytes_total_and_rate_at_steady_intervals(caplog, monkeypatch):
    """A download's progress (tst.progress.Progress in bytes) off a terminal: one line per `every_s` seconds of
    the clock and one at the last byte, with the bytes so far, the total and the mean rate (2,000,000 bytes in
    10 s = 0.20 MB/s; 2,000,000 bytes left at that rate: 10 s); without a Content-Length, the bytes and the rate
    only; on a terminal a tqdm bar counts the same bytes."""
    import io

    from tst.progress import Progress, line

    now = [0.0]
    progress = Progress(4_000_000, "glove.zip", unit="byte", every_s=10, clock=lambda: now[0])
    with caplog.at_level("INFO", logger="tst.progress"):
        for t in (5, 10, 15, 20):
            now[0] = t
            progress.update(1_000_000)
    assert [r.getMessage() for r in caplog.records] == [
        "glove.zip: 2,000,000/4,000,000 bytes (50.0%), 0.20 MB/s, ETA 10s",
        "glove.zip: 4,000,000/4,000,000 bytes (100.0%), 0.20 MB/s, ETA 0s",
    ]
    assert line("x", 0, None, "byte", None) == "x: 0 bytes, rate not known yet"
    assert line("x", 4_000_000, None, "byte", 1e6) == "x: 4,000,000 bytes, 1.00 MB/s"

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.setattr("sys.stderr", Terminal())
    bar = Progress(10, "x", unit="byte")
    bar.update(4), bar.update(6)
    assert bar.bar.n == 10 and bar.done == 10
    bar.close()


def test_download_logs_the_sha256_it_got_with_or_without_a_pin(shared_data, tmp_path, caplog):
    rel = "yelp/li/sentiment.test.0"
    digest = sha256(shared_data / rel)
    with Server(shared_data) as server, caplog.at_level("INFO", logger="tst.data.downloads"):
        download(f"{server.url}/{rel}", tmp_path / "a")
        download(f"{server.url}/{rel}", tmp_path / "b", sha256=digest.upper())
    size = (shared_data / rel).stat().st_size
    assert [r.getMessage() for r in caplog.records] == [
        (
            f"downloaded {tmp_path / 'a'} from {server.url}/{rel}: {size} bytes, sha256 {digest} (no sha256 "
            "configured to check it against)"
        ),
        f"downloaded {tmp_path / 'b'} from {server.url}/{rel}: {size} bytes, sha256 {digest} (as configured)",
    ]


def test_missing_files_stop_the_run_or_leave_an_extra_out(tmp_path):
    """An empty data folder: a corpus file without URL stops with the config's reason; a released system or the
    ratings without URL is left out, with a warning naming it and the tables that lose it."""
    config = load_config("literature.yaml")
    with pytest.raises(ConfigError) as stop:
        check_data(config, tmp_path)
    message = str(stop.value)
    assert "literature/dickens.txt, literature/austen.txt are missing" in message
    assert "shentianxiao/language-style-transfer" in message and "unreleased" in message
    config = load_config("yelp.yaml")
    ds = config["datasets"]["yelp"]
    del ds["systems"]["natst"]["url"], ds["source"]["urls"]["yelp/li/human_ratings/ratings-yelp.csv"]
    found = check_data(config, tmp_path)
    warnings = found.warnings
    assert [w.split(" is left out")[0] for w in warnings] == [
        "datasets.yelp.systems.natst",
        "datasets.yelp.human_ratings",
    ]
    assert "yelp/released/natst.0 is missing" in warnings[0] and "leaderboard" in warnings[0]
    assert "metric_vs_human and aggregation" in warnings[1]
    kept = without_extras(config, found.left_out)["datasets"]["yelp"]
    assert "natst" not in kept["systems"] and "human_ratings" not in kept and "imat" in kept["systems"]
    assert "natst" in ds["systems"] and "human_ratings" in ds  # the caller's config as it was
    # the other systems' files are pending: each has a URL (a dry run plans them for the download rule)
    assert found.pending[("yelp", "systems.cbd")] == ["yelp/released/cbd.0", "yelp/released/cbd.1"]
    assert len(found.pending) == 7 + 6 - 1  # Li's seven systems, six released ones, less natst
    # in a job's own process (the main process fetched what it could), a missing extra is one that failed
    in_job = check_data(load_config("yelp.yaml"), tmp_path, job=True)
    assert len(in_job.left_out) == 7 + 6 + 1 and not in_job.pending  # Li's 7, the 6 released, the ratings
    kept = without_extras(load_config("yelp.yaml"), in_job.left_out)
    assert list(kept["datasets"]["yelp"]["systems"]) == ["human"]  # the references: a corpus file
    assert check_data(load_config("yelp.yaml"), tmp_path).warnings == []  # a dry run plans every download
    ds["source"]["urls"].pop("yelp/li/sentiment.test.{style}")
    with pytest.raises(ConfigError, match=r"yelp/li/sentiment.test.0, yelp/li/sentiment.test.1 are"):
        check_data(config, tmp_path)


def test_checking_a_config_opens_no_connection_and_leaves_the_config_as_it_was(monkeypatch, tmp_path):
    """check_config and check_data on configs/yelp.yaml with an empty data folder (every file to download): no
    socket is opened and no URL fetched, nothing is written, and the caller's dict is unchanged, nested keys
    included; the downloads are only planned."""
    import socket
    import urllib.request

    def refuse(*args, **kwargs):
        raise AssertionError(f"a check reached for the network: {args}")

    for target, name in (
        (socket, "create_connection"),
        (socket.socket, "connect"),
        (socket.socket, "connect_ex"),
        (urllib.request, "urlopen"),
    ):
        monkeypatch.setattr(target, name, refuse)
    config = load_config("yelp.yaml")
    ds = config["datasets"]["yelp"]
    del ds["systems"]["natst"]["url"]  # one extra left out, the others pending
    before = copy.deepcopy(config)
    check_config(config, tmp_path)
    found = check_data(config, tmp_path)
    assert list(found.left_out) == [("yelp", "systems.natst")] and len(found.pending) == 7 + 6 - 1 + 1
    assert check_data(config, tmp_path, job=True).left_out  # the job's view: every missing extra left out
    kept = without_extras(config, found.left_out)
    assert config == before and "natst" in config["datasets"]["yelp"]["systems"]
    assert "natst" not in kept["datasets"]["yelp"]["systems"] and kept["datasets"]["yelp"]["human_ratings"]
    assert list(tmp_path.iterdir()) == []


def test_fetch_extras_downloads_the_pending_files_and_names_each_failure(shared_data, tmp_path):
    """The main process's fetch, from a mirror on 127.0.0.1: the pending files of two systems, one corrupted.
    The good system's files arrive byte-identical; the bad one stops at its corrupted file (its second file is
    never asked for) and check_data with the failure leaves it out, the other kept."""
    config = load_config("yelp.yaml")
    datasets = config["datasets"]
    pending = {
        ("yelp", "systems.cbd"): ["yelp/released/cbd.0", "yelp/released/cbd.1"],
        ("yelp", "systems.natst"): ["yelp/released/natst.0", "yelp/released/natst.1"],
    }
    assert {k: v for k, v in check_data(config, tmp_path).pending.items() if k in pending} == pending
    with Server(shared_data) as server:
        server.corrupt.add("yelp/released/natst.0")
        failed = fetch_extras(pending, datasets, tmp_path, server.url)
    assert server.requests == ["yelp/released/cbd.0", "yelp/released/cbd.1", "yelp/released/natst.0"]
    assert list(failed) == ["yelp/released/natst.0"]
    assert failed["yelp/released/natst.0"].startswith(
        f"yelp/released/natst.0 could not be downloaded from {server.url}/yelp/released/natst.0 (download from "
    )
    for rel in pending[("yelp", "systems.cbd")]:
        assert (tmp_path / rel).read_bytes() == (shared_data / rel).read_bytes()
    assert not (tmp_path / "yelp/released/natst.0").exists()
    found = check_data(config, tmp_path, failed=failed)
    assert found.left_out[("yelp", "systems.natst")] == failed["yelp/released/natst.0"]
    assert ("yelp", "systems.cbd") not in found.left_out and ("yelp", "systems.cbd") not in found.pending


def test_a_left_out_rated_system_leaves_the_ratings_out(tmp_path):
    """The human analysis scores the rated systems (human_systems): one left out takes the ratings with it,
    even when the rated outputs (here a folder of their own) are all there to read."""
    config = load_config("yelp.yaml")
    config["datasets"]["yelp"]["human_outputs"] = "yelp/rated"
    for rel in rule_inputs.rated_files(config, "yelp"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x\n")
    assert "yelp/rated/sentiment.test.0.mit" in rule_inputs.rated_files(config, "yelp")
    failed = {"yelp/li/outputs/sentiment.test.0.mit": "yelp/li/outputs/sentiment.test.0.mit could not be had"}
    found = check_data(config, tmp_path, failed=failed)
    assert found.left_out == {
        ("yelp", "systems.mit"): "yelp/li/outputs/sentiment.test.0.mit could not be had",
        ("yelp", "human_ratings"): "the rated systems mit are left out",
    }
    assert "metric_vs_human and aggregation" in found.warnings[1]
    assert ("yelp", "human_ratings") not in check_data(config, tmp_path).left_out  # nothing failed: kept


# ---- the workflow ----


def run_snakemake(workdir: Path, data: Path, mirror: str, configs: list[str], *args):
    """snakemake *args --configfile *configs in workdir, with the data folder `data` and the mirror `mirror`."""
    shutil.copy(REPO / "config.yaml", workdir / "config.yaml")
    env = {"TST_DATA_DIR": str(data), "TST_MIRROR": mirror}
    return snakemake(workdir, REPO, *args, "--configfile", *configs, check=False, env=env)


@pytest.mark.slow
def test_yelp_downloads_end_to_end_from_a_local_mirror(shared_data, tmp_path):
    """configs/yelp.yaml from an empty data folder, its files served from the staged copy: a corrupted corpus
    file stops the run naming it, a corrupted released system is left out with a warning, a transfer cut
    mid-file is restarted; then every file is there, byte-identical, the extracted systems too."""
    data, work = tmp_path / "data", tmp_path / "work"
    work.mkdir()
    config = load_config("yelp.yaml")
    corpus, extras = rule_inputs.data_needs(config, "yelp")
    made = list(extracted_files({"yelp": config["datasets"]["yelp"]}))
    wanted = list(dict.fromkeys([*corpus, *(f for files in extras.values() for f in files), *made]))
    yelp = [str(REPO / "configs" / "yelp.yaml")]

    def missing_rule_outputs():  # the extras are fetched as the workflow starts; the rest by download rules
        return [str(data / rel) for rel in [*corpus, *made] if not (data / rel).exists()]

    with Server(shared_data) as server:
        server.corrupt |= {"yelp/li/sentiment.test.1", "yelp/released/natst.1"}
        server.cut |= {"yelp/shen/sentiment.test.1": 1, "yelp/li/human_ratings/ratings-yelp.csv": 1}
        first = run_snakemake(work, data, server.url, yelp, "--keep-going", *missing_rule_outputs())
        log = first.stdout + first.stderr
        assert first.returncode != 0, log[-3000:]
        assert re.search(r"/yelp/li/sentiment\.test\.1 has SHA-256 [0-9a-f]{64}, expected", log), log[-3000:]
        assert "datasets.yelp.systems.natst is left out: yelp/released/natst.1 could not be downloaded" in log
        assert "leaderboard" in log.split("systems.natst is left out")[1].split("\n")[0]
        assert (
            not (data / "yelp/li/sentiment.test.1").exists() and not (data / "yelp/released/natst.1").exists()
        )
        assert not list(data.rglob("*.part"))
        assert missing_rule_outputs() == [str(data / "yelp/li/sentiment.test.1")]  # the rest went on
        server.corrupt.clear()
        second = run_snakemake(work, data, server.url, yelp, *missing_rule_outputs())
        assert second.returncode == 0, (second.stdout + second.stderr)[-3000:]
    for rel in ("yelp/shen/sentiment.test.1", "yelp/li/human_ratings/ratings-yelp.csv"):
        assert server.requests.count(rel) == 2  # cut once, fetched again in full
    for rel in ("yelp/li/sentiment.test.1", "yelp/released/natst.1"):
        assert server.requests.count(rel) == 2  # rejected in the first run, fetched in the second
    assert len(server.requests) == len(set(server.requests)) + 4  # no other file fetched twice
    for rel in wanted:
        assert (data / rel).read_bytes() == (shared_data / rel).read_bytes(), rel
    assert "yelp/released/imat.0" in wanted and "yelp/li/human_ratings/ratings-yelp.csv" in wanted
    assert len(wanted) == 39 + 4  # every file is there, the four extracted system files too
    # the whole workflow now plans no download (nor extraction), and keeps every system and the ratings
    jobs = planned_jobs(run_snakemake(work, data, "", yelp, "-n").stdout)
    assert "download_data" not in jobs and "extract_system" not in jobs and jobs["human_correlation"] == 1
    assert jobs["import_system"] == 2 * 14  # Li's 7 systems, the references, 6 released systems


def header_configfiles(path: Path) -> list[str]:
    """The --configfile list of the first command in a config's header comment, else the config alone."""
    for line in path.read_text().splitlines():
        if not line.startswith("#"):
            break
        m = re.search(r"--configfile ((?:configs/\S+\.yaml ?)+)", line)
        if m:
            return m.group(1).split()
    return [f"configs/{path.name}"]


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(p.name for p in (REPO / "configs").glob("*.yaml")))
def test_every_config_from_an_empty_data_folder_plans_its_downloads_or_stops_saying_why(name, tmp_path):
    """A dry run with an empty data folder: every missing input has a download (or extract) job, or the run
    stops before any job with one message naming the files and why they cannot be downloaded."""
    data, work = tmp_path / "data", tmp_path / "work"
    data.mkdir(), work.mkdir()
    configs = [str(REPO / c) for c in header_configfiles(REPO / "configs" / name)]
    result = run_snakemake(work, data, "", configs, "-n")
    log = result.stdout + result.stderr
    assert "MissingInputException" not in log, log[-3000:]
    if result.returncode != 0:
        assert "cannot be downloaded:" in log and "Job stats" not in log, log[-3000:]
        # the one corpus without a public release, and the template of one's own corpus (its files are the user's)
        assert name.startswith(("literature", "own_dataset")), log[-3000:]
        assert ("unreleased" if name.startswith("literature") else "no download URL is configured") in log
        return
    config = load_config(*[Path(c).name for c in configs])
    if any(config["datasets"][d]["source"]["kind"] == "files" for d in config["run"]):
        assert planned_jobs(result.stdout).get("download_data", 0) > 0, result.stdout[-2000:]
