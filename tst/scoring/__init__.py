"""Scoring one system's transfers: the request, built and checked once, and the rooms that carry it out.

- request: ScoreRequest, what is scored and how (files, options, thresholds, normalization, limits), frozen
  and checked once; built by a workflow rule from its params (scripts/score.py), or
- arguments: from `tst score`'s arguments, every default resolved and every file it reads checked once.
- read: the input files read under one policy (encoding, control characters, lines cut to max_words, the
  normalization), aligned into lists.
- evaluator_files: the dataset's evaluator files, each loaded once.
- compute: every metric of the registry (tst.metrics.registry) on the aligned lists (score_system).
- memory: what an allocation that failed looks like, and giving the memory back.
- write: the score JSON and TSV, the warnings on what was not scored as given, the text table.
- run: score(request): read, compute, write.
"""
