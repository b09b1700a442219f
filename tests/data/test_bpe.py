"""Sentencepiece BPE: trained on train only, exact round trip, placeholders kept whole."""

from tst.data.bpe import BPE, train_bpe, unbpe

TRAIN = [
    f"the {a} {n} was {b} ."
    for a in ("old", "young", "tall", "kind")
    for n in ("man", "woman", "lady")
    for b in ("here", "there", "waiting", "singing")
] + ["-PERSON- went to -LOCATION- ."]


def test_roundtrip_and_symbols(tmp_path):
    bpe = train_bpe(
        TRAIN, tmp_path / "bpe.model", vocab_size=340, user_symbols=["-PERSON-", "-LOCATION-", "<num>"]
    )
    assert (tmp_path / "bpe.model").stat().st_size > 0
    reloaded = BPE(tmp_path / "bpe.model")
    for s in TRAIN + ["the zebra , -PERSON- said , was quixotic \u00bd .", "<num> ladies waited ."]:
        pieces = reloaded.encode(s)
        assert reloaded.decode(pieces) == s  # unseen characters survive through byte fallback
        assert reloaded.decode(" ".join(pieces)) == s
    pieces = bpe.encode("-PERSON- met <num> men")
    assert "-PERSON-" in pieces and "<num>" in pieces
    assert unbpe(" ".join(bpe.encode("the old man was here ."))) == "the old man was here ."


def test_frequent_words_merge(tmp_path):
    bpe = train_bpe(TRAIN, tmp_path / "bpe.model", vocab_size=360)
    # "the" occurs in 48 of 49 training sentences: BPE must have merged it into one piece
    assert bpe.encode("the") == ["\u2581the"]
    assert len(bpe.encode("quixotic")) > 1  # never seen in train: split into pieces
