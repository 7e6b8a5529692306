"""The retrieval benchmark's data: ten frequent travellers a year into using the assistant.

Each user has about forty memories — a profile (name, home airport, seat, diet, budget…), a
trip history (places visited and what they thought of them, cars rented there), upcoming trips
with their booking references, loyalty programmes with their numbers, favourite hotels, and
facts no question needs. That shape is the point: a real user accumulates many memories of the
*same kind* that differ only in a place, a code or a number (five trips, three bookings, two
programmes), and a search has to pick the right one among look-alikes, not just the one memory
about bookings. Every user's memories are also distractors for the others, since a search must
stay inside its user.

Questions are asked the way people ask, never in the memory's words: about half share no
content word with the memory they need ("Pick a good place for me to sit on the plane" for
"User prefers aisle seats on flights"); the rest name something the memory also names — a
city, an airline, a hotel, a booking reference or a membership number. Whether a question
shares a word is computed, not declared. Built from templates with a fixed seed, so every run
measures the same set.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from agent.long_term.stores.base import words

SEED = 20261130
QUESTIONS_PER_USER = 12
# Short follow-ups ("Which car did I drive there?") name their subject only in the message
# before them, as in any conversation; the retriever gets that message as context.
FOLLOW_UPS_PER_USER = 3
OPENING_MESSAGE = "Hi! I have a few questions about my travel plans."
FIRST_NAMES = ("Priya", "Mateo", "Aiko", "Lena", "Omar", "Chloe", "Tomasz", "Ingrid", "Kwame",
               "Sofia")  # fmt: skip
CITIES = (("Lisbon", "LIS"), ("Berlin", "BER"), ("Toronto", "YYZ"), ("Madrid", "MAD"),
          ("Oslo", "OSL"), ("Vienna", "VIE"), ("Dublin", "DUB"), ("Prague", "PRG"),
          ("Zurich", "ZRH"), ("Athens", "ATH"), ("Warsaw", "WAW"), ("Boston", "BOS"))  # fmt: skip
PLACES = ("Kyoto", "Marrakesh", "Reykjavik", "Hanoi", "Lima", "Cape Town", "Istanbul",
          "Buenos Aires", "Seoul", "Naples", "Tbilisi", "Oaxaca", "Bali", "Cusco", "Porto",
          "Edinburgh", "Havana", "Nairobi", "Montreal", "Krakow", "Seville", "Bruges", "Hobart",
          "Valparaiso", "Luang Prabang", "Tallinn", "Zanzibar", "Queenstown", "Florence",
          "Chiang Mai")  # fmt: skip
SEATS = ("aisle", "window", "exit-row")
DIETS = ("vegetarian", "vegan", "gluten-free", "pescatarian", "lactose intolerant", "halal")
HOTELS = ("boutique", "budget", "five-star", "family-run", "design", "beachfront")
CARS = ("economy", "compact", "SUV", "electric", "convertible", "minivan")
PROGRAMS = (("Lufthansa", "Miles & More"), ("Air France", "Flying Blue"),
            ("British Airways", "Executive Club"), ("Iberia", "Iberia Plus"),
            ("SAS", "EuroBonus"), ("Turkish Airlines", "Miles&Smiles"))  # fmt: skip
ALLERGENS = ("peanuts", "shellfish", "penicillin", "latex", "bee stings", "sesame")
PASSPORTS = ("Canadian", "Indian", "Brazilian", "German", "Japanese", "Nigerian", "Polish")
COMPANIONS = ("their two children", "their partner", "a guide dog", "their elderly mother",
              "a colleague from work")  # fmt: skip
MONTHS = ("March", "May", "July", "September", "October", "December")
YEARS = (2021, 2022, 2023, 2024, 2025)
LANGUAGES = ("Portuguese", "Hindi", "Spanish", "Swahili", "Korean", "Finnish")
JOBS = ("nurse", "architect", "software engineer", "teacher", "photographer", "chef")
PETS = ("cat", "parrot", "golden retriever", "rabbit")
HOBBIES = ("bird watching", "marathon running", "jazz concerts", "scuba diving", "chess")
HOTEL_NAMES = ("Sacher", "Adlon", "Lutetia", "Savoy", "Bristol", "Imperial", "Danieli",
               "Metropole", "Excelsior", "Belvedere")  # fmt: skip
DISLIKES = ("red-eye flights", "long layovers", "crowded beaches", "tour buses")
# what a traveller thought of a past trip, and a question about it that avoids its words
TRIP_OPINIONS = (
    ("loved the street food", "Where did I eat really well on a past holiday?"),
    ("found the hotel too noisy to sleep", "On which trip did I hardly get any rest at night?"),
    ("got sunburnt on the first day", "Where did I burn my skin badly?"),
    ("thought the museums were overrated", "Which city's galleries disappointed me?"),
    ("enjoyed hiking in the hills", "Where did I go walking in the mountains?"),
    ("lost their luggage on arrival", "On which journey did the airline misplace my bags?"),
)
CODE_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
# Real messages are seldom one clean question: some carry small talk around it, which dilutes
# a sentence embedding while the words that matter stay findable.
CHATTY_SHARE = 0.4
OPENERS = (
    "Morning! I'm at the office and only have a minute between meetings, so quickly:",
    "Sorry to bother you again, the kids are running around and I keep losing my train of "
    "thought, but",
    "Okay, before I forget, and while I'm still sitting on this slow train,",
    "Right, my manager just approved the expense report for last quarter, so now",
    "I've been going back and forth on this all evening with a cup of tea, and",
)
CLOSERS = (
    "Thanks, you've been a great help with all of this planning so far.",
    "No rush, I'll check back after lunch once the weather clears up.",
    "I'll read your answer on my phone later tonight.",
    "Let me know if you need anything else from my side to sort it out.",
    "",
)


@dataclass(frozen=True)
class Memory:
    user_id: str
    key: str
    content: str
    memory_type: str


@dataclass(frozen=True)
class Question:
    user_id: str
    text: str
    needs: str  # the key of the memory that answers it
    kind: str  # "paraphrase", "shared-word" or "follow-up"
    previous: str = ""  # the user's message before it: what a follow-up refers to, or else
    # the question asked before, which a short standalone question must not be confused by


@dataclass(frozen=True)
class _Fact:
    content: str
    memory_type: str
    question: str | None  # None: a distractor no question needs


def build() -> tuple[list[Memory], list[Question]]:
    rng = random.Random(SEED)
    memories: list[Memory] = []
    questions: list[Question] = []
    for index, first in enumerate(FIRST_NAMES):
        user = f"user-{index:02d}"
        facts, follow_ups = _user_facts(rng, first, index)
        for key, fact in facts.items():
            memories.append(Memory(user, key, fact.content, fact.memory_type))
        answerable = sorted(key for key, fact in facts.items() if fact.question)
        previous = OPENING_MESSAGE  # the standalone questions are asked one after another
        for key in rng.sample(answerable, QUESTIONS_PER_USER):
            text = facts[key].question or ""
            if rng.random() < CHATTY_SHARE:
                text = f"{rng.choice(OPENERS)} {text[0].lower()}{text[1:]} {rng.choice(CLOSERS)}"
                text = text.strip()
            shares = bool(set(words(text)) & set(words(facts[key].content)))
            kind = "shared-word" if shares else "paraphrase"
            questions.append(Question(user, text, key, kind, previous))
            previous = text
        for key in rng.sample(sorted(follow_ups), FOLLOW_UPS_PER_USER):
            previous, text = follow_ups[key]
            questions.append(Question(user, text, key, "follow-up", previous))
    return memories, questions


def _user_facts(
    rng: random.Random, first: str, index: int
) -> tuple[dict[str, _Fact], dict[str, tuple[str, str]]]:
    """The user's memories by key, and follow-ups (previous message, question) by the key of
    the memory each needs."""
    home, home_code = CITIES[index]
    # light and heavy travellers: 3 to 18 past trips, 1 to 5 booked ones
    trips, bookings = rng.randint(3, 18), rng.randint(1, 5)
    visited = rng.sample(PLACES, trips + bookings)
    past, upcoming = visited[:trips], visited[trips:]
    follow_ups: dict[str, tuple[str, str]] = {}
    facts = {
        "name": _Fact(f"User's name is {first}", "SEMANTIC",
                      "How should the booking confirmation address me?"),
        "home": _Fact(f"User's home airport is {home} ({home_code})", "SEMANTIC",
                      "Where will my outbound flight depart from?"),
        "seat": _Fact(f"User prefers {rng.choice(SEATS)} seats on flights", "EPISODIC",
                      "Pick a good place for me to sit on the plane."),
        "diet": _Fact(f"User is {rng.choice(DIETS)}", "SEMANTIC",
                      "Is there anything I can't eat from the in-flight menu?"),
        "hotel_style": _Fact(f"User prefers {rng.choice(HOTELS)} hotels", "EPISODIC",
                             "What kind of place to stay suits me best?"),
        "car": _Fact(f"User prefers {rng.choice(CARS)} cars when renting", "EPISODIC",
                     "Which vehicle category should I reserve at the counter?"),
        "allergy": _Fact(f"User is allergic to {rng.choice(ALLERGENS)}", "SEMANTIC",
                         "Any medical issues the airline should know about me?"),
        "passport": _Fact(f"User holds a {rng.choice(PASSPORTS)} passport", "SEMANTIC",
                          "Do I need a visa, given my nationality?"),
        "companion": _Fact(f"User usually travels with {rng.choice(COMPANIONS)}", "EPISODIC",
                           "Who normally comes along on my trips?"),
        "budget": _Fact(f"User's hotel budget is about {rng.choice((90, 120, 150, 220))} EUR "
                        "per night", "EPISODIC", "How much can I spend per night on a room?"),
    }  # fmt: skip
    opinions = rng.sample(TRIP_OPINIONS, len(TRIP_OPINIONS))
    for number, place in enumerate(past):
        year = rng.choice(YEARS)
        if number < len(opinions):  # what they thought of a trip, asked about without its words
            opinion, question = opinions[number]
            facts[f"visited:{place}"] = _Fact(
                f"User visited {place} in {year} and {opinion}", "EPISODIC", question
            )
        else:
            facts[f"visited:{place}"] = _Fact(f"User visited {place} in {year}", "EPISODIC", None)
        facts[f"rented:{place}"] = _Fact(
            f"User rented a {rng.choice(CARS)} car in {place}", "EPISODIC", None
        )
        follow_ups[f"rented:{place}"] = (f"How was my trip to {place} again?",
                                         "Which car did I drive there?")  # fmt: skip
    for place in upcoming:
        code = "".join(rng.choice(CODE_LETTERS) for _ in range(6))
        facts[f"plan:{place}"] = _Fact(
            f"User plans a trip to {place} in {rng.choice(MONTHS)}", "EPISODIC",
            f"When am I going to {place}?",
        )  # fmt: skip
        facts[f"reference:{place}"] = _Fact(
            f"User's booking reference for the {place} trip is {code}", "SEMANTIC",
            rng.choice((f"Can you look up {code} for me?",
                        f"What's the confirmation code for my {place} booking?")),
        )  # fmt: skip
        follow_ups[f"reference:{place}"] = (f"When am I going to {place}?", "And the booking code?")
    for airline, programme in rng.sample(PROGRAMS, 2):
        member = f"{rng.randint(100, 999)}{rng.randint(100000, 999999)}"
        facts[f"loyalty:{programme}"] = _Fact(
            f"User's {airline} {programme} membership number is {member}", "SEMANTIC",
            rng.choice((f"Whose account is {member}?",
                        f"Which number do I give to collect points when flying {airline}?")),
        )  # fmt: skip
        follow_ups[f"loyalty:{programme}"] = (
            f"Book me on the {airline} flight to {rng.choice(PLACES)}, please.",
            "Which number should I give them?",
        )
    for city, name in zip(rng.sample(CITIES, 2), rng.sample(HOTEL_NAMES, 2), strict=True):
        facts[f"favourite_hotel:{name}"] = _Fact(
            f"User's favourite hotel in {city[0]} is the Hotel {name}", "EPISODIC",
            f"Is the Hotel {name} available next week?",
        )  # fmt: skip
        follow_ups[f"favourite_hotel:{name}"] = (f"I need a room in {city[0]} next month.",
                                                 "Where do I like to stay?")  # fmt: skip
    facts.update({
        "language": _Fact(f"User speaks {rng.choice(LANGUAGES)}", "SEMANTIC", None),
        "job": _Fact(f"User works as a {rng.choice(JOBS)}", "SEMANTIC", None),
        "pet": _Fact(f"User has a {rng.choice(PETS)} at home", "SEMANTIC", None),
        "hobby": _Fact(f"User enjoys {rng.choice(HOBBIES)}", "EPISODIC", None),
        "dislike": _Fact(f"User dislikes {rng.choice(DISLIKES)}", "EPISODIC", None),
        "birthday": _Fact(f"User's birthday is in {rng.choice(MONTHS)}", "SEMANTIC", None),
        "departures": _Fact("User prefers morning departures", "EPISODIC", None),
        "insurance": _Fact("User always buys travel insurance", "EPISODIC", None),
        "phone": _Fact("User wants booking updates by text message", "EPISODIC", None),
    })  # fmt: skip
    return facts, follow_ups


LOOKUP_BOOKINGS = 60
LOOKUP_QUESTIONS = 40
LOOKUP_TEMPLATES = ("Can you look up {code} for me?", "Is {code} still confirmed?",
                    "I got an email about {code}, what is it for?",
                    "Please cancel {code}, plans changed.")  # fmt: skip


def build_lookups() -> tuple[list[Memory], list[Question]]:
    """A heavy traveller's booking history — three years of trips, sixty booking references
    in memories of one shape — and questions that quote one reference. Kept apart from the
    main set: it measures exact lookups among many look-alikes, the case a lexical index is
    for, and mixing it in would let one kind of question decide the main comparison."""
    rng = random.Random(SEED + 1)
    user = "heavy-traveller"
    memories, codes = [], []
    for number in range(LOOKUP_BOOKINGS):
        code = "".join(rng.choice(CODE_LETTERS) for _ in range(6))
        place, month = rng.choice(PLACES), rng.choice(MONTHS)
        year = 2024 + number // 20
        codes.append(code)
        memories.append(Memory(user, f"reference:{number}",
                               f"User's booking reference for the {month} {year} {place} trip "
                               f"is {code}", "SEMANTIC"))  # fmt: skip
    questions = [
        Question(user, rng.choice(LOOKUP_TEMPLATES).format(code=codes[n]), f"reference:{n}",
                 "shared-word")
        for n in rng.sample(range(LOOKUP_BOOKINGS), LOOKUP_QUESTIONS)
    ]  # fmt: skip
    return memories, questions
