"""The embedded demo corpus: short review-like sentences in two styles over SHARED content.

Style 0 is negative, style 1 positive. Each sentence comes from a template *group* that has negative and
positive surface forms over the same slots (dish, venue, staff, time, person, city), so for every sentence
we also know (a) a rewrite into the other style with the same content (the human-style reference) and
(b) a same-style paraphrase (another surface form of the group, same content). Deterministic in the seed.
Person names and cities are ones spaCy's small English model recognises in lowercased text.
"""

from __future__ import annotations

import random

DISHES = [
    "pizza",
    "burger",
    "pasta",
    "steak",
    "sushi",
    "salad",
    "soup",
    "tacos",
    "curry",
    "ramen",
    "fries",
    "sandwich",
    "chicken wings",
    "pancakes",
    "omelette",
    "lasagna",
    "burrito",
    "pho",
    "fish and chips",
    "cheesecake",
    "brisket",
    "dumplings",
    "pad thai",
    "nachos",
    "coffee",
    "milkshake",
    "breakfast",
    "lobster roll",
    "garlic bread",
    "ice cream",
]
VENUES = [
    "restaurant",
    "place",
    "diner",
    "cafe",
    "bar",
    "bistro",
    "pizzeria",
    "steakhouse",
    "bakery",
    "food truck",
    "buffet",
    "pub",
]
STAFF = ["server", "waiter", "waitress", "bartender", "host", "manager", "chef", "cashier"]
TIMES = [
    "ten minutes",
    "twenty minutes",
    "half an hour",
    "an hour",
    "forty minutes",
    "five minutes",
    "fifteen minutes",
    "two hours",
]
DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
MEALS = ["lunch", "dinner", "breakfast", "brunch", "night"]
PERSONS = [
    "john smith",
    "mary johnson",
    "david miller",
    "sarah wilson",
    "michael brown",
    "james taylor",
    "robert anderson",
    "linda thomas",
    "peter parker",
    "anna lee",
    "chris evans",
    "kevin white",
    "george harris",
]
CITIES = [
    "chicago",
    "boston",
    "paris",
    "london",
    "new york",
    "seattle",
    "denver",
    "dallas",
    "miami",
    "atlanta",
    "houston",
    "san francisco",
    "los angeles",
    "toronto",
    "berlin",
    "madrid",
    "tokyo",
    "las vegas",
    "philadelphia",
]
# (negative, positive) word lists; a sentence draws from its own style's list
FOOD_ADJ = (
    [
        "bland",
        "cold",
        "soggy",
        "greasy",
        "stale",
        "burnt",
        "overcooked",
        "tasteless",
        "dry",
        "salty",
        "disgusting",
        "awful",
        "terrible",
        "mediocre",
    ],
    [
        "delicious",
        "fresh",
        "tasty",
        "perfect",
        "amazing",
        "crispy",
        "flavorful",
        "excellent",
        "juicy",
        "wonderful",
        "fantastic",
        "great",
        "superb",
        "outstanding",
    ],
)
STAFF_ADJ = (
    [
        "rude",
        "slow",
        "careless",
        "unfriendly",
        "dismissive",
        "inattentive",
        "unprofessional",
        "lazy",
        "grumpy",
    ],
    ["friendly", "helpful", "attentive", "kind", "welcoming", "professional", "sweet", "polite", "cheerful"],
)
INTENS = ["really", "very", "so", "incredibly", "pretty", "quite", "super", "truly"]
SUPER = (["worst", "most disappointing", "saddest", "dirtiest"], ["best", "nicest", "finest", "coolest"])
FEEL = (["hated", "regretted", "disliked"], ["loved", "enjoyed", "adored"])
NEVER = (["never", "not"], ["definitely", "surely"])

# each group: (negative forms, positive forms); forms of one group share their content slots
GROUPS = [
    (
        [
            "the {dish} was {intens} {fadj} .",
            "our {dish} tasted {fadj} .",
            "honestly the {dish} was {fadj} .",
        ],
        [
            "the {dish} was {intens} {fadj} .",
            "our {dish} tasted {fadj} .",
            "honestly the {dish} was {fadj} .",
        ],
    ),
    (
        [
            "{person} , our {staff} , was {intens} {sadj} .",
            "our {staff} {person} was {sadj} to us .",
            "the {staff} , {person} , was {sadj} all night .",
        ],
        [
            "{person} , our {staff} , was {intens} {sadj} .",
            "our {staff} {person} was {sadj} to us .",
            "the {staff} , {person} , was {sadj} all night .",
        ],
    ),
    (
        [
            "this is the {super} {venue} in {city} .",
            "by far the {super} {venue} in {city} .",
            "easily the {super} {venue} we tried in {city} .",
        ],
        [
            "this is the {super} {venue} in {city} .",
            "by far the {super} {venue} in {city} .",
            "easily the {super} {venue} we tried in {city} .",
        ],
    ),
    (
        [
            "we waited {time} and the {dish} came out {fadj} .",
            "after {time} of waiting , our {dish} was {fadj} .",
            "it took {time} to get a {fadj} {dish} .",
        ],
        [
            "we waited only {time} and the {dish} came out {fadj} .",
            "after just {time} , our {dish} arrived {fadj} .",
            "it took only {time} to get a {fadj} {dish} .",
        ],
    ),
    (
        [
            "i will {never} come back to this {venue} .",
            "we will {never} return to this {venue} .",
            "i would {never} recommend this {venue} to anyone .",
        ],
        [
            "i will {never} come back to this {venue} .",
            "we will {never} return to this {venue} .",
            "i would {never} recommend this {venue} to anyone .",
        ],
    ),
    (
        [
            "we came here for {day} {meal} and {feel} it .",
            "we had {meal} here on {day} and {feel} every bite .",
            "{day} {meal} at this {venue} was a mistake .",
        ],
        [
            "we came here for {day} {meal} and {feel} it .",
            "we had {meal} here on {day} and {feel} every bite .",
            "{day} {meal} at this {venue} was a treat .",
        ],
    ),
    (
        [
            "{person} told us about the {dish} here and we {feel} it .",
            "my friend {person} took me here and we {feel} the {dish} .",
            "{person} recommended the {dish} but it was {fadj} .",
        ],
        [
            "{person} told us about the {dish} here and we {feel} it .",
            "my friend {person} took me here and we {feel} the {dish} .",
            "{person} recommended the {dish} and it was {fadj} .",
        ],
    ),
    (
        [
            "we drove from {city} for the {dish} and it was {fadj} .",
            "visiting from {city} , we found the {dish} {intens} {fadj} .",
            "the {dish} was {fadj} , not worth the trip from {city} .",
        ],
        [
            "we drove from {city} for the {dish} and it was {fadj} .",
            "visiting from {city} , we found the {dish} {intens} {fadj} .",
            "the {dish} was {fadj} , well worth the trip from {city} .",
        ],
    ),
    (
        [
            "the {staff} ignored us and the {dish} was {fadj} .",
            "the {staff} was {sadj} and the {dish} {fadj} .",
            "{sadj} {staff} , {fadj} {dish} , {intens} bad {venue} .",
        ],
        [
            "the {staff} welcomed us and the {dish} was {fadj} .",
            "the {staff} was {sadj} and the {dish} {fadj} .",
            "{sadj} {staff} , {fadj} {dish} , {intens} good {venue} .",
        ],
    ),
    (
        [
            "the prices are too high for such {fadj} {dish} .",
            "way too expensive for {fadj} {dish} .",
            "we paid a lot for {fadj} {dish} .",
        ],
        [
            "the prices are fair for such {fadj} {dish} .",
            "very reasonable prices for {fadj} {dish} .",
            "we paid little for {fadj} {dish} .",
        ],
    ),
]


def _fill(template: str, slots: dict[str, str]) -> str:
    return " ".join(template.format(**slots).split())


def _slots(rng: random.Random) -> dict[str, str]:
    """Style-independent content of one sentence."""
    return {
        "dish": rng.choice(DISHES),
        "venue": rng.choice(VENUES),
        "staff": rng.choice(STAFF),
        "time": rng.choice(TIMES),
        "day": rng.choice(DAYS),
        "meal": rng.choice(MEALS),
        "person": rng.choice(PERSONS),
        "city": rng.choice(CITIES),
        "intens": rng.choice(INTENS),
    }


def _style_words(rng: random.Random, style: int) -> dict[str, str]:
    return {
        "fadj": rng.choice(FOOD_ADJ[style]),
        "sadj": rng.choice(STAFF_ADJ[style]),
        "super": rng.choice(SUPER[style]),
        "feel": rng.choice(FEEL[style]),
        "never": rng.choice(NEVER[style]),
    }


def generate_demo(sentences_per_style: int = 3000, seed: int = 13) -> dict:
    """The demo corpus: {"styles": ["negative", "positive"], "sentences": {0: [...], 1: [...]},
    "references": {0: {sentence: rewrite}, 1: ...}, "paraphrases": {0: {sentence: paraphrase}, 1: ...}}.

    Sentences are unique within and across styles, 4-15 words, lowercased and space-tokenized.
    """
    rng = random.Random(seed)
    sentences: dict[int, list[str]] = {0: [], 1: []}
    references: dict[int, dict[str, str]] = {0: {}, 1: {}}
    paraphrases: dict[int, dict[str, str]] = {0: {}, 1: {}}
    seen: set[str] = set()
    max_tries = 200 * sentences_per_style
    for style in (0, 1):
        tries = 0
        while len(sentences[style]) < sentences_per_style:
            tries += 1
            if tries > max_tries:
                raise RuntimeError(
                    f"demo generator cannot make {sentences_per_style} unique sentences per style"
                )
            forms = GROUPS[rng.randrange(len(GROUPS))]
            k = rng.randrange(len(forms[style]))
            slots = _slots(rng)
            words = _style_words(rng, style)
            text = _fill(forms[style][k], {**slots, **words})
            if text in seen or not 4 <= len(text.split()) <= 15:
                continue
            # rewrite: the other style's form of the same group, same content, fresh style words
            ref = _fill(forms[1 - style][k], {**slots, **_style_words(rng, 1 - style)})
            # paraphrase: another form of the same style and group, same content and style words
            k2 = (k + 1 + rng.randrange(len(forms[style]) - 1)) % len(forms[style])
            para = _fill(forms[style][k2], {**slots, **words})
            seen.add(text)
            sentences[style].append(text)
            references[style][text] = ref
            paraphrases[style][text] = para
    return {
        "styles": ["negative", "positive"],
        "sentences": sentences,
        "references": references,
        "paraphrases": paraphrases,
    }
