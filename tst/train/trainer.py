"""Training loop of Pang & Gimpel (2019) §4.6: alternate (1) discriminator updates on L_adv / L_adv' and
(2) an encoder/generator update on
    L_total = l_rec L_rec + l_para L_para + l_cyc L_cyc + l_lm L_lang - l_adv (L_adv0 + L_adv1)
              - l_adv2 2^-ep (L_adv'0 + L_adv'1)
(one update and its loss terms: tst.train.step).
Fu et al.'s models (a variant's model: multi_decoder | style_embedding) use the same loop: the
"discriminator" is the MLP style classifier on the content c (eq. 8) and L_adv is the encoder's negative
entropy (eq. 9), so l_rec L_gen + l_adv L_adv2 is their eq. 11 / 12; cyc, para and lm can be added as well.
checkpoints_per_epoch times per epoch (default 2: every half epoch): a checkpoint (tst.train.checkpoint) and
greedy dev transfers. Rerun: resumes from the last
one when it was trained with the same settings, variant, data and vocabulary (`epochs` may grow), else starts
afresh. train_files: the same from files (the workflow's entry point)."""

from __future__ import annotations

import csv
import logging
import time
from pathlib import Path

import torch

from tst.codehash import code_hash
from tst.data.paraphrase import load_paraphrases
from tst.defaults import default
from tst.device import allow_tf32, pick_device, use_bf16
from tst.io import read_jsonl, read_sentences, sha256_of, write_json
from tst.joblock import job_lock
from tst.metrics.distinct import distinct
from tst.models import losses as L
from tst.models.registry import build_model
from tst.names import checkpoint_steps, epoch_label, per_epoch, whole_epochs
from tst.optim import Adam, adam_options, apply_adam_options
from tst.progress import Progress
from tst.train import checkpoint
from tst.train.batching import epoch_plan, pad_batch, steps_per_epoch
from tst.train.graph_step import GraphedStep, use_cuda_graph
from tst.train.step import TERMS, plain_step
from tst.train.transfer import per_style, transfer_sentences, unmasked_path, write_transfers
from tst.variants import NEEDS, Variant, needs, problems
from tst.vocab import Vocab

log = logging.getLogger(__name__)

# The training settings' defaults: config.yaml's `transfer:` values (tst.defaults; each is explained there), for
# code that trains without the config; the workflow passes every key. The papers' sizes and training lengths are
# configs/paper_dimensions.yaml's. The model is not a setting: each variant names its own (tst.variants).
SETTINGS = [
    "emb_dim",
    "style_dim",
    "content_dim",
    "dropout",
    "disc_widths",
    "disc_filters",
    "disc2_widths",
    "batch_size",
    "epochs",
    "checkpoints_per_epoch",
    "lr",
    "betas",
    "grad_clip",
    "grad_clip_scope",
    "reverse_encoder",
    "disc_negative_slope",
    "embedding_init",
    "gamma_init",
    "gamma_decay",
    "gamma_min",
    "soft_decoding",
    "cyc_start",
    "cyc_ramp",
    "cyc_dropout",
    "adv_threshold",
    "gp_xi",
    "adv2_decay",
    "adv2_first_epoch",
    "gp_at",
    "cls_hidden",
    "para_batch_size",
    "lm_norm",
    "dev_batch_size",
    "decode_extra",
    "precision",
    "compile",
    "cuda_graph",
]
DEFAULTS = {key: default("transfer", key) for key in SETTINGS}
# The training code (this module and every tst module it imports, tst.codehash): part of the run signature, so
# checkpoints written by other code are never resumed from.
TRAINING_CODE = code_hash(Path(__file__))
# Written at the checkpoint rows only: the effective lambda_cyc is on every row.
DIAGNOSTICS = ["dev_distinct", "z_probe"]

# What each extra input of tst.variants.NEEDS is, for the error when a variant needs it and it is missing.
INPUTS = {
    "paraphrase": "same-style paraphrase pairs (eq. 5)",
    "lm": "the two frozen style language models (eq. 6)",
    "attributes": "the attribute lists of the training sentences (Yu et al. §5.2)",
}


def with_defaults(settings: dict) -> dict:
    """The training settings over DEFAULTS; a `model` key is refused (it belongs in the variant)."""
    if "model" in settings:
        raise ValueError(
            f"transfer setting model: {settings['model']!r} is no longer a setting: name the "
            "model in each variant instead, e.g. {model: multi_decoder, lambda_adv: 1}"
        )
    cfg = {**DEFAULTS, **settings}
    cfg["epochs"] = whole_epochs(cfg["epochs"])  # the same rule as the schema and tst.config
    cfg["checkpoints_per_epoch"] = per_epoch(cfg["checkpoints_per_epoch"])
    return cfg


def check_variant(variant, **given) -> Variant:
    """The resolved variant (tst.variants.Variant; a Variant is returned as it is); ValueError when it cannot
    be trained (tst.variants.problems) or when an input it needs (tst.variants.needs: paraphrase, lm,
    attributes) is missing or empty in `given`."""
    v = Variant.of(variant)
    bad = problems(v)
    if bad:
        raise ValueError(f"transfer variant {variant}: {'; '.join(bad)}")
    term = {need: key for key, need in NEEDS.items()}
    missing = [f"{term[n]} = {v[term[n]]:g} > 0 needs {n}: {INPUTS[n]}" for n in needs(v) if not given.get(n)]
    if missing:
        raise ValueError(f"transfer variant {variant}: {'; '.join(missing)}, which was not given")
    return v


def cyc_factor(step: int, steps_per_epoch: int, start: float, ramp: float) -> float:
    """Warm-up factor of lambda_cyc for update `step` (from 1): with e = (step - 1) / steps_per_epoch the epochs
    done before it, 0 while e < start, then (e - start) / ramp capped at 1 (ramp 0: 1 from `start` on)."""
    e = (step - 1) / steps_per_epoch
    if e < start:
        return 0.0
    return 1.0 if ramp <= 0 else min(1.0, (e - start) / ramp)


COMPILE = ("auto", True, False)
# Compiled soft decoding builds one graph per (length, style) shape: Yelp's lengths (<= 16 decoding steps) x 2
# styles stay under this limit of graphs per function.
COMPILED_SHAPES = 64


def compiles(setting) -> bool:
    """Whether soft decoding runs compiled (transfer.compile): true compiles, false does not, and auto takes the
    path measured faster, the plain one on a CPU and on CUDA alike (docs/gpu.md: on an H200 the compiled path
    ran 0.89-0.99x as fast as the plain one, with CUDA graphs)."""
    if setting not in COMPILE:
        raise ValueError(f"transfer.compile must be one of auto, true, false, not {setting!r}")
    return setting is True


def compile_soft_decode(model, backend: str = "inductor") -> None:
    """model.soft_decode through torch.compile over static shapes (the backend's default mode on every device:
    CUDA graphs of it failed in training on CUDA, docs/gpu.md). The arithmetic and the random draws are the plain
    path's; fused kernels round in another order, so the losses match the plain path's within float tolerance,
    not bit for bit (tests/train/test_fast_path.py, bench/gpu_check.sh)."""
    import torch._dynamo
    import torch._inductor.config

    torch._dynamo.config.cache_size_limit = max(torch._dynamo.config.cache_size_limit, COMPILED_SHAPES)
    # dropout masks and Gumbel noise from torch's own generator, as the plain path draws them (not inductor's
    # fused random numbers): the same random stream, restored with the checkpoint's RNG state on resume
    torch._inductor.config.fallback_random = True
    model.soft_decode = torch.compile(model.soft_decode, backend=backend, dynamic=False)


def make_optimizers(model, cfg: dict, device, graphed: bool = False) -> tuple:
    """Adam for E/G and for the adversaries (§4.6), in the implementation for `device` (tst.optim.adam_options:
    fused on CUDA; graphed: capturable, for the graphed step of tst.train.graph_step)."""
    opts = adam_options(device, graphed)
    opt_g = Adam(model.generator_parameters(), lr=cfg["lr"], betas=tuple(cfg["betas"]), **opts)
    opt_d = Adam(model.discriminator_parameters(), lr=cfg["lr"], betas=tuple(cfg["betas"]), **opts)
    return opt_g, opt_d


def train(
    settings: dict,
    variant,
    vocab: Vocab,
    train_sents,
    dev_sents,
    out_dir,
    seed: int,
    paraphrase=None,
    lms=None,
    dev_entities=None,
    device=None,
    stop_after_step: int | None = None,
    progress: bool = True,
    attributes=None,
):
    """Train one variant (its model and lambdas: a tst.variants.Variant or its dict) with `settings` (over
    DEFAULTS).
    train_sents / dev_sents: [style-0 token lists, style-1 token lists];
    paraphrase: [pairs of style 0, pairs of style 1] as (u tokens, v tokens); lms: [LM_0, LM_1] frozen models
    with forward_soft; attributes: per style, (independent word lists, dependent word lists) aligned with
    train; dev_entities: per style, NER entities aligned with dev (writes unmasked copies too).
    Writes {out}/checkpoints/ep{E}.pt, {out}/transfers/dev.ep{E}.{style}.txt and {out}/losses.csv; logs the
    steps done of the total, the rate and the time left every 30 s (tst.progress; progress: a tqdm bar too,
    when stderr is a terminal). Returns the trained model."""
    cfg = with_defaults(settings)
    lam = Variant.of(check_variant(variant, paraphrase=paraphrase, lm=lms, attributes=attributes), cfg)
    device = pick_device(device)
    amp = use_bf16(cfg["precision"], device)
    if not amp:
        allow_tf32(device)
    out = Path(out_dir)
    ckpt_dir, tr_dir = out / "checkpoints", out / "transfers"
    ckpt_dir.mkdir(parents=True, exist_ok=True)
    tr_dir.mkdir(parents=True, exist_ok=True)

    torch.manual_seed(seed)
    model = build_model(lam.settings, len(vocab), lam).to(device)
    graphed = use_cuda_graph(cfg["cuda_graph"], device, model, lam)
    opt_g, opt_d = make_optimizers(model, cfg, device, graphed)
    if compiles(cfg["compile"]) and graphed:
        log.warning(
            "transfer.compile is not applied under transfer.cuda_graph: the graph holds the whole step"
        )
    elif compiles(cfg["compile"]):
        compile_soft_decode(model)
    if lms:
        for lm in lms:
            lm.to(device).eval()
            for p in lm.parameters():
                p.requires_grad_(False)
    ids = [[vocab.encode(s) for s in train_sents[t]] for t in (0, 1)]
    para_ids = (
        [[(vocab.encode(u), vocab.encode(v)) for u, v in paraphrase[t]] for t in (0, 1)]
        if lam["lambda_para"] > 0
        else None
    )
    attr_ids = None
    if lam["lambda_attr"] > 0:  # words out of the vocabulary are dropped

        def known(words):
            return [i for i in vocab.encode(words) if i != vocab.unk_id]

        attr_ids = [[(known(a), known(d)) for a, d in zip(*attributes[t])] for t in (0, 1)]
        for t in (0, 1):
            if len(attr_ids[t]) != len(ids[t]):
                raise ValueError(f"attribute lists of style {t} are not aligned with its training sentences")
    spe = steps_per_epoch(len(ids[0]), len(ids[1]), cfg["batch_size"])
    # the graphed step (transfer.cuda_graph on CUDA), else the plain one
    make_step = GraphedStep if graphed else plain_step
    step_fn = make_step(model, opt_g, opt_d, lam, cfg, device, amp, para_ids, lms)
    total_steps = cfg["epochs"] * spe

    signature = checkpoint.run_signature(cfg, lam, vocab, ids, seed, TRAINING_CODE)
    step = checkpoint.resume(ckpt_dir, signature, model, opt_g, opt_d, device)
    for opt in (opt_g, opt_d):  # a checkpoint saved on another device brings that device's Adam kernel
        apply_adam_options(opt, device, graphed)
    _backfill_dev_transfers(ckpt_dir, tr_dir, vocab, dev_sents, dev_entities, cfg, device)
    csv_path = out / "losses.csv"
    rows = []
    if step > 0 and csv_path.exists():  # keep the rows up to the checkpoint: the CSV matches a clean run
        with open(csv_path, newline="") as f:
            rows = [r for r in csv.DictReader(f) if int(r["step"]) <= step]
    at = checkpoint_steps(spe, cfg["checkpoints_per_epoch"])  # update within the epoch -> epoch fraction
    plan, plan_epoch = None, -1
    log.info(
        "%s seed %d: %d steps per epoch, %d epochs, starting at step %d",
        lam.model,
        seed,
        spe,
        cfg["epochs"],
        step,
    )
    sums, n_steps, t0 = (
        {},
        0,
        time.perf_counter(),
    )  # loss means and time per checkpoint interval, for the log only
    with (
        open(csv_path, "w", newline="") as f,
        Progress(total_steps, f"train {out}", initial=step, bar=progress) as bar,
    ):
        writer = csv.DictWriter(f, fieldnames=["step", "epoch", "gamma", "lambda_cyc"] + TERMS + DIAGNOSTICS)
        writer.writeheader()
        writer.writerows(rows)
        while step < total_steps and (stop_after_step is None or step < stop_after_step):
            epoch, local = divmod(step, spe)
            if plan_epoch != epoch:  # the plan of an epoch depends on (seed, epoch) only
                plan = epoch_plan(
                    [len(s) for s in ids[0]], [len(s) for s in ids[1]], cfg["batch_size"], seed, epoch
                )
                plan_epoch = epoch
            i0, i1 = plan[local]
            attrs = [[attr_ids[0][i] for i in i0], [attr_ids[1][i] for i in i1]] if attr_ids else None
            scale = cyc_factor(step + 1, spe, cfg["cyc_start"], cfg["cyc_ramp"])
            b0, b1 = [ids[0][i] for i in i0], [ids[1][i] for i in i1]
            terms = step_fn(b0, b1, epoch, step + 1, seed, attrs, scale)
            step += 1
            gamma = max(cfg["gamma_min"], cfg["gamma_init"] * cfg["gamma_decay"] ** epoch)
            row = {
                "step": step,
                "epoch": f"{step / spe:.4f}",
                "gamma": gamma,
                "lambda_cyc": scale * lam["lambda_cyc"],
                **{k: terms.get(k, "") for k in TERMS},
            }
            bar.update(1, rec=f"{terms['rec']:.2f}", total=f"{terms['total']:.2f}")
            for k, v in terms.items():
                sums[k] = sums.get(k, 0.0) + float(v)
            n_steps += 1
            if local + 1 in at:  # checkpoint + dev transfers (every half epoch by default)
                e = epoch + at[local + 1]
                checkpoint.save(
                    checkpoint.path_of(ckpt_dir, e), model, opt_g, opt_d, step, e, vocab, cfg, lam, signature
                )
                outs = _write_dev(model, vocab, dev_sents, dev_entities, cfg, device, tr_dir, e)
                row.update(checkpoint_diagnostics(model, vocab, dev_sents, outs, cfg, device))
                writer.writerow(row)
                f.flush()
                means = " ".join(f"{k} {v / n_steps:.3f}" for k, v in sums.items())
                diag = " ".join(
                    f"{k} {float(row[k]):.3f}" for k in DIAGNOSTICS if row.get(k) not in (None, "")
                )
                log.info(
                    "%s: step %d, mean over %d steps: %s; dev: %s; %.1f s",
                    epoch_label(e),
                    step,
                    n_steps,
                    means,
                    diag,
                    time.perf_counter() - t0,
                )
                sums, n_steps, t0 = {}, 0, time.perf_counter()
            else:
                writer.writerow(row)
    return model


_train = train  # train_files' parameter `train` (the training files) hides the function


def _write_dev(model, vocab, dev_sents, dev_entities, cfg, device, tr_dir: Path, e: float) -> list:
    """Greedy dev transfers of both styles written to tr_dir; -> [outputs of style 0, of style 1]."""
    result = []
    for t in (0, 1):
        outs = transfer_sentences(
            model, vocab, dev_sents[t], t, cfg["dev_batch_size"], device, cfg["decode_extra"]
        )
        path = tr_dir / f"dev.{epoch_label(e)}.{t}.txt"
        write_transfers(path, outs, dev_entities[t] if dev_entities else None, unmasked_path(path))
        result.append(outs)
    return result


def distinct_share(outputs) -> float:
    """tst.metrics.distinct (distinct outputs / outputs) of the token lists of both styles pooled, nan when
    there are none; collapse shows as a small share."""
    share = distinct([s for outs in outputs for s in outs]).score
    return float("nan") if share is None else share


def checkpoint_diagnostics(model, vocab, dev_sents, outputs, cfg, device) -> dict:
    """The checkpoint row's diagnostics: dev_distinct (distinct_share of the dev transfers) and z_probe
    (tst.models.losses.z_probe on the first dev_batch_size dev sentences of each style, averaged)."""
    probes = []
    for t in (0, 1):
        first = [vocab.encode(s) for s in dev_sents[t][: cfg["dev_batch_size"]]]
        if len(first) >= 2:
            probes.append(L.z_probe(model, *pad_batch(first, device=device), t))
    return {
        "dev_distinct": f"{distinct_share(outputs):.4f}",
        "z_probe": f"{sum(probes) / len(probes):.4f}" if probes else "",
    }


def _backfill_dev_transfers(ckpt_dir, tr_dir, vocab, dev_sents, dev_entities, cfg, device) -> None:
    """Dev transfers of existing checkpoints that are missing (a workflow manager removes a killed job's
    declared outputs, but not the checkpoints it resumes from) are rewritten from those checkpoints."""
    for e, path in checkpoint.checkpoints(ckpt_dir):
        if all((tr_dir / f"dev.{epoch_label(e)}.{t}.txt").exists() for t in (0, 1)):
            continue
        with torch.random.fork_rng(devices=[]):  # building a model draws random inits: keep the run's RNG
            model, _ = checkpoint.load_for_transfer(path, device)
        _write_dev(model, vocab, dev_sents, dev_entities, cfg, device, tr_dir, e)


def train_files(
    settings: dict,
    variant,
    seed: int,
    out_dir,
    train: list,
    dev: list,
    vocab,
    min_count: int,
    paraphrase: list | None = None,
    lm: list | None = None,
    attributes: list | None = None,
    dev_entities: list | None = None,
    device=None,
    threads: int | None = None,
    progress: bool = False,
    paraphrase_source: dict | None = None,
):
    """The workflow's entry point (scripts/train_transfer.py): train `variant` (tst.variants: its model and
    lambdas) for `seed` into out_dir, reading every input from files.

    settings: the config's `transfer` section minus the workflow keys (variants, run_variants, seeds,
    test_checkpoints, resources, datasets). train / dev: [style-0 file, style-1 file] of tokenized sentences;
    vocab: the dataset's `token<TAB>count` file, cut at min_count and settings' max_vocab. The inputs a
    variant needs (tst.variants.needs; ValueError naming the one not given), one file per style each:
    paraphrase (`u<TAB>v` pairs, settings' paraphrase_pairs sampled with `seed`), lm (the frozen style LMs of
    eq. 6, over the same vocabulary), attributes (attributes.jsonl aligned with train). dev_entities: NER
    entities aligned with dev (unmasked dev transfers too). Resumes from the last checkpoint in out_dir;
    writes {out_dir}/train.done.json at the end (with the paraphrase pairs' source, count and sha256 when the
    variant reads them; paraphrase_source: where they were released, tst.stages.paraphrase_source). Returns the trained model. Holds {out_dir}/train.lock
    (tst.joblock) while training: a second process training into the same folder fails at once."""
    with_defaults(settings)  # a `model` setting is refused before any file is read
    v = check_variant(variant, paraphrase=paraphrase, lm=lm, attributes=attributes)
    # one process per model folder: a second copy of this job (another snakemake run) stops here at once
    with job_lock(Path(out_dir) / "train.lock"):
        if threads:
            torch.set_num_threads(threads)
        voc = Vocab.load(vocab, min_count, settings.get("max_vocab"))
        train_sents = [read_sentences(p) for p in per_style(train, "train")]
        dev_sents = [read_sentences(p) for p in per_style(dev, "dev")]
        para = None
        if v["lambda_para"] > 0:
            n_pairs = settings.get("paraphrase_pairs")
            para = [load_paraphrases(p, n_pairs, seed) for p in per_style(paraphrase, "paraphrase")]
        lms = None
        if v["lambda_lm"] > 0:
            from tst.evaluators.language_model import load_lm

            lms = []
            for p in per_style(lm, "lm"):
                loaded = load_lm(p)
                if list(loaded.vocab.itos) != voc.itos:
                    raise ValueError(
                        f"{p}: its vocabulary differs from {vocab} (min_count {min_count}), the "
                        "vocabulary of the transfer model"
                    )
                lms.append(loaded.model)
        attrs = None
        if v["lambda_attr"] > 0:
            from tst.nlp.attributes import load_attribute_lists

            attrs = [load_attribute_lists(p, surface=True) for p in per_style(attributes, "attributes")]
        entities = [read_jsonl(p) for p in per_style(dev_entities, "dev_entities")] if dev_entities else None
        model = _train(
            settings,
            v,
            voc,
            train_sents,
            dev_sents,
            out_dir,
            seed,
            paraphrase=para,
            lms=lms,
            dev_entities=entities,
            device=device,
            progress=progress,
            attributes=attrs,
        )
        done = {"config": settings, "variant": v.as_dict(), "seed": seed}
        if para is not None:
            files = per_style(paraphrase, "paraphrase")
            done["paraphrase"] = {
                **(paraphrase_source or {}),
                "pairs": [len(p) for p in para],
                "sha256": [sha256_of(p) for p in files],
            }
        write_json(Path(out_dir) / "train.done.json", done)
        return model
