"""One module per metric; each returns a MetricResult (corpus score + per-sentence scores)."""
