"""Ways to game the default GM, as a researcher or an adversary would try them: the gaming battery that
tests/test_gaming.py runs on the suite's tiny run and bench/gaming_battery.py on any run (the demo, Yelp).

Each attack takes one style's test sources and an honest system's outputs for them (and, where it needs them, the
target style's training sentences or the honest system's per-sentence joint scores) and returns outputs:

  tail_clause, tail_sentence   the source joined to a target-style sentence (tst.baselines)
  tails_for_failures           the honest outputs, those with joint 0 replaced by tail_clause's
  copy_for_failures            the honest outputs, those with joint 0 replaced by their sources
  shuffled_outputs             the honest outputs' words in a random order (tst.baselines.shuffled)
  fixed_target                 one generic target-style sentence for every source (tst.baselines)
  empty                        an empty line
  zzqx                         one nonsense token, "zzqx", for every source
  antonym_swap                 the source with each word of ANTONYMS replaced by its opposite

An attack must not raise the honest system's GM, and must score below every honest system.
"""

from __future__ import annotations

from tst import baselines

# common sentiment words and their opposites, both ways (the swap a rule-based "transfer" makes blindly)
_PAIRS = [
    ("good", "bad"),
    ("great", "terrible"),
    ("best", "worst"),
    ("love", "hate"),
    ("loved", "hated"),
    ("delicious", "disgusting"),
    ("friendly", "rude"),
    ("amazing", "awful"),
    ("excellent", "horrible"),
    ("nice", "nasty"),
    ("happy", "unhappy"),
    ("recommend", "avoid"),
    ("always", "never"),
]
ANTONYMS = {a: b for a, b in _PAIRS} | {b: a for a, b in _PAIRS}

ATTACKS = (
    "tail_clause",
    "tail_sentence",
    "tails_for_failures",
    "copy_for_failures",
    "shuffled_outputs",
    "fixed_target",
    "empty",
    "zzqx",
    "antonym_swap",
)


def antonym_swap(sources: list[str]) -> list[str]:
    return [" ".join(ANTONYMS.get(w, w) for w in s.split()) for s in sources]


def replace_failures(outputs: list[str], joint: list[float], replacements: list[str]) -> list[str]:
    """outputs with each one whose per-sentence joint score is 0 replaced by the replacement at its line."""
    if not (len(outputs) == len(joint) == len(replacements)):
        raise ValueError(
            f"{len(outputs)} outputs, {len(joint)} joint scores, {len(replacements)} replacements"
        )
    return [r if j == 0 else o for o, j, r in zip(outputs, joint, replacements)]


def attack(
    name: str,
    sources: list[str],
    outputs: list[str],
    target_train: list[str],
    joint: list[float] | None = None,
    seed: int = 0,
    style: int = 0,
) -> list[str]:
    """The outputs of attack `name` (one of ATTACKS) for one style's sources (target = 1 - style)."""
    if name in ("tail_clause", "tail_sentence", "fixed_target"):
        return baselines.make(name, sources, style, seed, target_train=target_train)
    if name == "tails_for_failures":
        return replace_failures(outputs, joint, baselines.tail_clause(sources, target_train))
    if name == "copy_for_failures":
        return replace_failures(outputs, joint, sources)
    if name == "shuffled_outputs":
        return baselines.shuffled(outputs, seed, style)
    if name == "empty":
        return baselines.empty(sources)
    if name == "zzqx":
        return ["zzqx"] * len(sources)
    if name == "antonym_swap":
        return antonym_swap(sources)
    raise ValueError(f"unknown attack {name!r}; known: {', '.join(ATTACKS)}")


def run_battery(
    results: str,
    dataset: str,
    honest: str,
    workdir,
    attacks=ATTACKS,
    precision: str = "fp32",
) -> dict:
    """Each attack on `honest`'s test outputs in a finished run, scored as `tst score` scores them
    (tst.api.score_texts, which goes through the command's own parser and request; the default GM and its inputs)
    against the run's evaluators and calibration: {attack: {"gm", "joint", "style", "content", "acceptability"}},
    and "honest": the honest system's own outputs scored the same way (its per-sentence joint scores, which pick
    its failures, come from its score file). Each attack's outputs are written to workdir/<attack>.<style>.txt.
    precision: the MiniLM models' (fp32: an output's score does not depend on the others). `results` is the folder
    that holds `results/<dataset>` (the run's working directory)."""
    from pathlib import Path

    import pandas as pd

    from tst import layout
    from tst.api import score_texts
    from tst.io import read_lines, write_lines

    root, work = Path(results), Path(workdir)
    work.mkdir(parents=True, exist_ok=True)
    ckpt = "final"
    keys = ("gm", "joint", "style", "content", "acceptability")
    tsv = pd.read_csv(
        root / layout.score(dataset, honest, "test", ckpt, "tsv"), sep="\t", keep_default_na=False
    )
    out = {}
    sources = [read_lines(root / layout.sources(dataset, honest, "test", ckpt, s)) for s in (0, 1)]
    outputs = [read_lines(root / layout.outputs(dataset, honest, "test", ckpt, s)) for s in (0, 1)]
    train = [
        read_lines(root / layout.text(dataset, "train", 1 - s, raw=True)) for s in (0, 1)
    ]  # target style's
    joint = tsv["joint"].astype(float).tolist()
    joints = [joint[: len(outputs[0])], joint[len(outputs[0]) :]]
    styles = [0] * len(sources[0]) + [1] * len(sources[1])
    for name in ("honest", *attacks):  # the honest outputs themselves through the same route first
        made = []
        for s in (0, 1):
            made.append(
                outputs[s]
                if name == "honest"
                else attack(name, sources[s], outputs[s], train[s], joints[s], 0, s)
            )
            write_lines(work / f"{name}.{s}.txt", made[-1])
        # fp32: in bf16 an output's MiniLM reading shifts with the other outputs it is batched with, so replacing
        # some outputs would move the others' scores by ~1e-4 of the GM
        got = score_texts(
            [*sources[0], *sources[1]],
            [*made[0], *made[1]],
            styles,
            root / layout.root(dataset),
            metrics=[*keys, "sbert_all_minilm_l6_v2"],
            precision=precision,
            ci=False,
        )
        out[name] = {k: got.scores.get(k) for k in keys}
    return out
