# Scores (Pang & Gimpel 2019, Fu et al. 2018, Mir et al. 2019, Yu et al. 2021): one job per system scores
# all its runs (every checkpoint on dev and test for ours, test.final for external systems) with
# every metric of tst.metrics.registry, loading each evaluator once. One JSON + TSV per run.
# GM (gm: calibrated on the baselines, rule gm_calibration; gm_pg: Pang & Gimpel with score.gm_t) is derived in the
# report from the stored corpus scores, so changing the thresholds reloads no evaluator.
# Scored text is word level; on BPE datasets the classifiers and LMs (trained on pieces) read it encoded
# with the dataset's bpe.model (input bpe; tst.scoring.evaluator_files.Evaluators).
# params.options = tst.stages.score_options (cp_lexicon, cp_seed, sbert, pp_count_eos, extra_metrics, and
# the dataset's references release, named in the ref-BLEU variants): changing one reruns the scores.
# Lines longer than params.max_words tokens are cut and counted (n_truncated; tst.stages.score_max_words).
# Each score file ends with its signature (tst.signature); params.tst_version reruns the scores when the package
# version changes (the code hash covers the rest); params.normalize: the dataset's `normalize:` block, which the
# score files record (`normalization`) as the way their text was normalized when prepared.


rule score_ours:
    input:
        unpack(score_inputs),
        bpe=bpe_model,
    output:
        json=[layout.score(system=layout.OURS, split=sp, ckpt=c) for sp, c in OUR_RUNS],
        tsv=[
            layout.score(system=layout.OURS, split=sp, ckpt=c, ext="tsv")
            for sp, c in OUR_RUNS
        ],
    log:
        "logs/score/{dataset}/{variant}.seed{seed}.log",
    benchmark:
        "benchmarks/score/{dataset}/{variant}.seed{seed}.tsv"
    priority: 5  # the longest score jobs (every checkpoint): first, so none is left to run alone at the end
    conda:
        env("score")
    params:
        runs=OUR_RUNS,
        options=lookup(dpath="score/{dataset}", within=TABLE),
        max_words=lambda w: stages.score_max_words(config, w.dataset),
        code=code("score.py"),
        tst_version=signature.version(),  # in each score file's signature
        normalize=lambda w: stages.corpus_settings(config, w.dataset).get("normalize"),
    script:
        "../scripts/score.py"


rule score_external:
    input:
        unpack(score_inputs),
        bpe=bpe_model,
    output:
        json=layout.score(split="test", ckpt=names.FINAL),
        tsv=layout.score(split="test", ckpt=names.FINAL, ext="tsv"),
    log:
        "logs/score/{dataset}/{system}.log",
    benchmark:
        "benchmarks/score/{dataset}/{system}.tsv"
    conda:
        env("score")
    params:
        runs=EXTERNAL_RUNS,
        options=lookup(dpath="score/{dataset}", within=TABLE),
        max_words=lambda w: stages.score_max_words(config, w.dataset),
        code=code("score.py"),
        tst_version=signature.version(),  # in each score file's signature
        normalize=lambda w: stages.corpus_settings(config, w.dataset).get("normalize"),
    script:
        "../scripts/score.py"
