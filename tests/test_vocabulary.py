"""Where users read (README, docs/, the configs, the package, the report's captions, the tests and benchmarks), the
project speaks in the present tense of its defaults and their reasons: no work-log numbering ("stop 12", "issue 7",
"#7"), no "this stop" / "the issue", and no machine nicknames ("the EPYC"). A machine is described by its cores
and CPU flags; history lives in git and CHANGELOG.md."""

import re

from conftest import REPO

# Built from parts so that this file does not match itself.
S, I = "st" + "op", "is" + "sue"
PATTERNS = {
    "work-log step number": rf"\b{S}s? \d+",
    "issue number": rf"\b{I}s?[ -]?\d+",
    "issue reference": r"(?:^|(?<=[\s(\[]))#\d+(?=[\s),.;:\]]|$)",
    "work-log phrase": rf"\b(this {S}|the {I})\b",
    "machine nickname": r"\b(the|that|same|this)( [\w`-]+)? (EPYC|Xeon)\b",
}
WHERE = ("README.md", "CONTRIBUTING.md", "config.yaml", "docs", "configs", "tst", "report", "tests", "bench")
TEXT = {".md", ".py", ".yaml", ".yml", ".sh", ".txt", ".rst", ".html", ".css", ".js", ".cff", ".toml", ""}
SKIP = {"tests/test_vocabulary.py"}


def files():
    for top in WHERE:
        path = REPO / top
        paths = (
            [path]
            if path.is_file()
            else sorted(p for p in path.rglob("*") if p.is_file())
            if path.is_dir()
            else []
        )
        for p in paths:
            rel = p.relative_to(REPO).as_posix()
            if p.suffix in TEXT and rel not in SKIP and "__pycache__" not in rel:
                yield rel, p


def hits(text: str) -> list[tuple[int, str, str]]:
    """(line number, kind, matched text) of every work-log word in text."""
    found = []
    for n, line in enumerate(text.splitlines(), 1):
        for kind, pattern in PATTERNS.items():
            found += [
                (n, m.start(), kind, m.group(0)) for m in re.finditer(pattern, line, flags=re.IGNORECASE)
            ]
    return [(n, kind, text) for n, _, kind, text in sorted(found)]


def test_patterns_find_the_work_log_and_spare_plain_text():
    log = (
        f"Since {S} 47 the LMs (see {I} 28, {I}-11 and #51) run faster on the EPYC; {S.title()} 3: this {S}."
    )
    assert [kind for _, kind, _ in hits(log)] == [
        "work-log step number",
        "issue number",
        "issue number",
        "issue reference",
        "machine nickname",
        "work-log step number",
        "work-log phrase",
    ]
    plain = (
        "Training stops at the half epoch; colour #1f77b4, #ffffff and {color:#333;border:1px solid #999}; a 2-core AMD EPYC with avx512_bf16; "
        f"the {I}r of a license; {S}ped after 3 epochs; step 5 of 10; url#12a; &#8593;"
    )
    assert hits(plain) == []


def test_no_work_log_vocabulary_where_users_read():
    found = []
    for rel, p in files():
        try:
            text = p.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        found += [f"{rel}:{n}: {kind}: {m!r}" for n, kind, m in hits(text)]
    assert not found, (
        "work-log vocabulary (state the default and its reason in the present tense instead):\n"
        + "\n".join(found)
    )
