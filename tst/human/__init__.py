"""Human judgments: parsing crowd ratings, preference pairs, metric-vs-human correlation."""
