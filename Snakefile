# TST pipeline: prepare corpora -> pretrain evaluators -> attributes -> train transfer models -> score -> report.
# Default run: the embedded demo corpus (config.yaml). Real corpora: --configfile configs/<dataset>.yaml
from snakemake.utils import min_version

from tst.snakemake_checksums import hash_inputs_once
from tst.snakemake_scheduler import exit_without_waiting

min_version("9.0")


configfile: "config.yaml"


report: "report/workflow.rst"


include: "rules/common.smk"
include: "rules/data.smk"
include: "rules/evaluators.smk"
include: "rules/attributes.smk"
include: "rules/transfer.smk"
include: "rules/score.smk"
include: "rules/human.smk"
include: "rules/validity.smk"
include: "rules/report.smk"


# the config's jobs_per_gpu for every job this run starts (tst.gpus reads it from the environment)
gpus.hand_to_jobs(config["jobs_per_gpu"])
# a finished job's metadata records: each input hashed once, not once per output (tst.snakemake_checksums)
hash_inputs_once()
# a finished run exits at once, not after its last re-plan timer (tst.snakemake_scheduler)
exit_without_waiting()


onstart:
    # a run (not a dry run) with a download pending and its host (the mirror, when set) out of reach stops here,
    # before any job
    check_reachable(
        {
            **{
                data_file(DATA_DIR, p): fetch_url(u, p, MIRROR)
                for p, u in DOWNLOADS.items()
            },
            **GLOVE_DOWNLOAD,
        }
    )
    # a training job of an earlier (killed) run that still runs holds its lock: stop before any job, so that
    # Snakemake deletes none of the files it is writing (tst.joblock.refuse_live_jobs)
    joblock.refuse_live_jobs(joblock.training_locks(DATASETS))


# Where the leaderboard, the tables, the plots and the report command are, the baselines skipped and the
# warnings of the numbers (tst.afterrun).
onsuccess:
    print(
        afterrun.message(
            DATASETS,
            workflow.overwrite_configfiles or [],
            afterrun.notes(config, DATASETS),
        )
    )


rule all:
    default_target: True
    input:
        all_targets(),
