"""Rule build_style_lexicon: Mir et al.'s (2019) style lexicon, and (Pang 2019) the corpus-specific content
words that evaluators mask when evaluators.content_mask is enabled."""

import json
import logging

from tst.evaluators.content_mask import select_content_words
from tst.evaluators.style_lexicon import build_style_lexicon
from tst.io import read_sentences, write_json
from tst.logs import log_to

sm = snakemake  # noqa: F821 (set by Snakemake)
log = logging.getLogger("build_style_lexicon")
with log_to(sm.log[0]):
    cfg, ccfg = sm.params.lexicon, sm.params.content_mask
    s0, s1 = (read_sentences(p) for p in sm.input)
    lex = build_style_lexicon(s0, s1, **{k: cfg[k] for k in ("C", "sd", "min_count", "seed") if k in cfg})
    write_json(sm.output.lexicon, lex)
    if not lex["0"] or not lex["1"]:
        log.warning(
            "the style lexicon of a style is empty (Mir et al.'s selection keeps no word): wmd_masked and "
            "wmd_removed then equal wmd_unmasked for that style's words; their variant strings say so"
        )
    keys = ("min_count", "ratio", "use_vader", "max_words")
    # Pang 2019 §3: the classifier's style lexicon holds the corpus-specific names too; they are masked
    words = select_content_words(s0, s1, **{k: ccfg[k] for k in keys if k in ccfg})
    write_json(sm.output.content, {"words": words, **ccfg})
    log.info(
        json.dumps(
            {"style0_words": len(lex["0"]), "style1_words": len(lex["1"]), "content_words": len(words)}
        )
    )
