"""What the report of a dataset holds: its tables, each written in every format, and its plots.

A light module: the workflow plans the report's jobs from these names without importing pandas or matplotlib
(tst.report.build, which makes them, does)."""

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
PLOTS = ["trajectories", "robust", "tradeoff_ts_cp", "tradeoff_sti_wmd", "tradeoff_nat_sti"]
