"""What the report of a dataset holds: its tables, each written in every format, and its plots.

A light module: the workflow plans the report's jobs from these names without importing pandas or matplotlib
(tst.report.build, which makes them, does)."""

# The human references as a system: `reference` (the dataset's own references) or a configured `human` system.
# BLEU against the references would score them against themselves; the landing page names them once.
REFERENCE_SYSTEMS = ("human", "reference")

TABLE_FORMATS = (
    "csv",
    "md",
    "tex",
    "html",
)  # csv (tidy data), md, tex (booktabs), html (shown in the report)
TABLES = [
    "leaderboard",
    "pang_gimpel",
    "bleu_ref",
    "metrics_all",
    "metric_vs_human",
    "aggregation",
    "validity",
    "content_separation",
    "word_order",
]
PLOT_FORMATS = ("png", "svg")  # tst.report.figure.save_figure writes both
PLOTS = [
    "tradeoff_leaderboard",
    "trajectories",
    "robust",
    "tradeoff_ts_cp",
    "tradeoff_sti_wmd",
    "tradeoff_nat_sti",
]

# What each table and plot shows, in a few words: the second label of its row in the report's menu, so a reader
# finds a table by what it holds rather than by its file name.
TITLES = {
    "leaderboard": "every system, headline metrics, 95% intervals",
    "pang_gimpel": "Pang & Gimpel Tables 2/3 (Acc, Sim, PP, GM)",
    "bleu_ref": "Pang & Gimpel Table 6 (BLEU by Acc)",
    "metrics_all": "every system under every metric",
    "metric_vs_human": "metrics' correlation with human ratings",
    "aggregation": "GM's agreement with human preferences",
    "validity": "baselines below every real system?",
    "content_separation": "content metrics on true vs shuffled pairs",
    "word_order": "GMs under word-order damage",
    "trajectories": "Sim, error rate and PP over training",
    "robust": "best Acc and content per naturalness bin",
    "tradeoff_leaderboard": "every system, Style against Content",
    "tradeoff_ts_cp": "transfer strength vs content (Fu et al.)",
    "tradeoff_sti_wmd": "style intensity vs WMD (Mir et al.)",
    "tradeoff_nat_sti": "naturalness vs style intensity (Mir et al.)",
}
