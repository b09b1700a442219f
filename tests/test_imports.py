"""tst.imports.unimportable: a module cannot be imported inside the block, and imports as usual after it;
tst.imports.stand_in: inside the block a module imports as an empty one, and as itself after it."""

import sys
from pathlib import Path

import pytest

from tst.imports import stand_in, unimportable


def test_unimportable_blocks_inside_the_block_only(tmp_path, monkeypatch):
    (tmp_path / "tst_probe_module.py").write_text("VALUE = 7\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with unimportable("tst_probe_module"), pytest.raises(ImportError):
        import tst_probe_module
    import tst_probe_module

    assert tst_probe_module.VALUE == 7
    with unimportable("tst_probe_module"):  # already imported: left as it is
        assert sys.modules["tst_probe_module"] is tst_probe_module


def test_stand_in_gives_an_empty_module_inside_the_block_only(tmp_path, monkeypatch):
    (tmp_path / "tst_probe_stood.py").write_text("VALUE = 7\nraise SystemExit('ran')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with stand_in("tst_probe_stood"):
        import tst_probe_stood

        assert not hasattr(tst_probe_stood, "VALUE")  # its code never ran
    assert "tst_probe_stood" not in sys.modules
    (tmp_path / "tst_probe_stood.py").write_text("VALUE = 7\n")
    import tst_probe_stood

    assert tst_probe_stood.VALUE == 7
    with stand_in("tst_probe_stood"):  # already imported: left as it is
        assert sys.modules["tst_probe_stood"] is tst_probe_stood


HEAVY = ("sklearn", "scipy", "scipy.stats", "scipy.sparse", "pandas")
NLTK_USES = """
import json, sys
{pre}
before = sorted(m for m in {heavy} if m in sys.modules)
{load}
from nltk.stem import PorterStemmer
from nltk.tokenize import TreebankWordTokenizer, word_tokenize
from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

hyp, ref = "the food was not good at all .".split(), "the food was good at all .".split()
print(json.dumps({
    "stems": [PorterStemmer().stem(w) for w in ("running", "happily", "generously", "caresses")],
    "words": word_tokenize("don't stop, it's $3.50!", preserve_line=True),
    "treebank": TreebankWordTokenizer().tokenize("they're (here)."),
    "bleu": [sentence_bleu([ref], hyp), sentence_bleu([ref], hyp, smoothing_function=SmoothingFunction().method1)],
    "before": before,
    "loaded": sorted(m for m in {heavy} if m in sys.modules),
}))
"""


@pytest.mark.parametrize("pre", ["", "import scipy.optimize"])
def test_load_nltk_skips_scikit_learn_and_scipy_and_changes_no_result(pre):
    """What the project uses of nltk (Porter stems, word_tokenize, the Treebank tokenizer, sentence BLEU with and
    without smoothing) gives the same values whether nltk was imported by load_nltk or as usual, in new
    processes; load_nltk's leaves scikit-learn, SciPy and pandas unimported, a plain import of nltk loads them.
    With SciPy already imported (pre, as a score job's scikit-learn does), load_nltk still adds none of them."""
    import json
    import subprocess

    def run(load):
        out = subprocess.run(
            [
                sys.executable,
                "-c",
                NLTK_USES.replace("{pre}", pre).replace("{heavy}", repr(HEAVY)).replace("{load}", load),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)

    light, plain = run("from tst.imports import load_nltk; load_nltk()"), run("import nltk")
    assert light.pop("loaded") == light.pop("before") == plain.pop("before")
    assert plain.pop("loaded") == sorted(HEAVY)
    assert light == plain
    assert plain["stems"] == ["run", "happili", "gener", "caress"]  # Porter's steps by hand
    # n-gram precisions by hand: 7/8 words ("not" is not in the reference), 5/7 bigrams, 3/6 trigrams, 1/5 4-grams
    # ("good at all ."); the output is longer than the reference, so no brevity penalty
    assert plain["bleu"][0] == pytest.approx((7 / 8 * 5 / 7 * 3 / 6 * 1 / 5) ** 0.25)


# ---- the import graph of the tst package: no circles, no import that runs back up ----


def import_graph(package_dir: Path) -> dict[str, set[str]]:
    """Module -> the tst modules it imports (module level and inside functions), read from the source as
    tst.codehash reads it; a `from tst.x import name` names module tst.x.name when that is a module, else tst.x."""
    from tst.codehash import _imported, _module_file

    graph = {}
    for path in sorted(package_dir.rglob("*.py")):
        parts = path.relative_to(package_dir.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        targets = set()
        for imported in _imported(path):
            while _module_file(imported, package_dir) is None:  # a symbol: its module
                imported = imported.rpartition(".")[0]
            targets.add(imported)
        graph[name] = targets - {name, package_dir.name}
    return graph


def room(module: str) -> str:
    """A module's room: its top-level module or subpackage (tst.layout, tst.models, tst.metrics...)."""
    return ".".join(module.split(".")[:2])


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan), each sorted: the import circles."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while not component or component[-1] != v:
                component.append(stack.pop())
                on_stack.discard(component[-1])
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def rooms(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The graph between rooms: a circle here is an import that runs back up (a lower room importing a higher)."""
    out: dict[str, set[str]] = {}
    for a, targets in graph.items():
        out.setdefault(room(a), set()).update(room(b) for b in targets if room(b) != room(a))
    return out


def test_the_cycle_finder_sees_a_planted_circle_and_a_room_running_back_up(tmp_path):
    """On a planted package: a -> b -> a inside one room is a circle of modules; low.x -> high.y with
    high.z -> low.w is no circle of modules but a circle of rooms (low <-> high)."""
    pkg = tmp_path / "tst"
    for sub in ("low", "high"):
        (pkg / sub).mkdir(parents=True)
        (pkg / sub / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from tst import b\n")
    (pkg / "b.py").write_text("def f():\n    from tst.a import VALUE\n")  # inside a function: counted
    (pkg / "low" / "x.py").write_text("import tst.high.y\n")
    (pkg / "high" / "y.py").write_text("X = 1\n")
    (pkg / "high" / "z.py").write_text("from tst.low.w import helper\n")  # a symbol: its module
    (pkg / "low" / "w.py").write_text("def helper():\n    pass\n")
    graph = import_graph(pkg)
    assert graph["tst.low.x"] == {"tst.high.y"} and graph["tst.high.z"] == {"tst.low.w"}
    assert circles(graph) == [["tst.a", "tst.b"]]
    assert circles(rooms(graph)) == [["tst.a", "tst.b"], ["tst.high", "tst.low"]]


def test_no_import_circles_and_none_that_runs_back_up():
    """The tst modules import one another without a circle, and so do their rooms (top-level modules and
    subpackages): each room only imports rooms below it."""
    import tst

    graph = import_graph(Path(tst.__file__).parent)
    assert len(graph) > 100  # every module read
    assert circles(graph) == []
    assert circles(rooms(graph)) == []
