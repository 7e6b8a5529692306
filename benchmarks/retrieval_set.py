"""The retrieval benchmark's data: 10 users x 22 memories, and 100 questions that need one
memory each, asked the way people ask rather than in the memory's words.

Built from templates with a fixed seed, so every run measures the same set. Each user has 16
answerable facts and 9 distractors (facts no question needs); every user's memories are also
distractors for every other user, since a search must stay inside its user. About half the
questions share no content word with the memory they need (pure paraphrase: "Pick a good
place for me to sit on the plane" for "User prefers aisle seats on flights"); the rest name
something the memory also names — a city, an airline, a hotel, a booking reference or a
membership number — as real questions to a travel assistant often do.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

SEED = 20261130
FIRST_NAMES = (
    "Priya",
    "Mateo",
    "Aiko",
    "Lena",
    "Omar",
    "Chloe",
    "Tomasz",
    "Ingrid",
    "Kwame",
    "Sofia",
)
CITIES = (("Lisbon", "LIS"), ("Berlin", "BER"), ("Toronto", "YYZ"), ("Madrid", "MAD"),
          ("Oslo", "OSL"), ("Vienna", "VIE"), ("Dublin", "DUB"), ("Prague", "PRG"),
          ("Zurich", "ZRH"), ("Athens", "ATH"), ("Warsaw", "WAW"), ("Boston", "BOS"))  # fmt: skip
PLACES = ("Kyoto", "Marrakesh", "Reykjavik", "Hanoi", "Lima", "Cape Town", "Istanbul",
          "Buenos Aires", "Seoul", "Naples", "Tbilisi", "Oaxaca")  # fmt: skip
SEATS = ("aisle", "window", "exit-row")
DIETS = ("vegetarian", "vegan", "gluten-free", "pescatarian", "lactose intolerant", "halal")
HOTELS = ("boutique", "budget", "five-star", "family-run", "design", "beachfront")
CARS = ("economy", "compact", "SUV", "electric", "convertible", "minivan")
PROGRAMS = ("Lufthansa Miles & More", "Air France Flying Blue", "British Airways Executive Club",
            "Iberia Plus", "SAS EuroBonus", "Turkish Miles&Smiles")  # fmt: skip
ALLERGENS = ("peanuts", "shellfish", "penicillin", "latex", "bee stings", "sesame")
PASSPORTS = ("Canadian", "Indian", "Brazilian", "German", "Japanese", "Nigerian", "Polish")
COMPANIONS = ("their two children", "their partner", "a guide dog", "their elderly mother",
              "a colleague from work")  # fmt: skip
MONTHS = ("March", "May", "July", "September", "October", "December")
LANGUAGES = ("Portuguese", "Hindi", "Spanish", "Swahili", "Korean", "Finnish")
JOBS = ("nurse", "architect", "software engineer", "teacher", "photographer", "chef")
PETS = ("cat", "parrot", "golden retriever", "rabbit")
HOBBIES = ("bird watching", "marathon running", "jazz concerts", "scuba diving", "chess")
HOTEL_NAMES = ("Sacher", "Adlon", "Lutetia", "Savoy", "Bristol", "Imperial", "Danieli")
DISLIKES = ("red-eye flights", "long layovers", "crowded beaches", "tour buses")


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
    shares_words: bool  # whether it names something the memory also names


def build() -> tuple[list[Memory], list[Question]]:
    rng = random.Random(SEED)
    memories: list[Memory] = []
    questions: list[Question] = []
    for index, first in enumerate(FIRST_NAMES):
        user = f"user-{index:02d}"
        home, home_code = CITIES[index]
        visited, upcoming = rng.sample(PLACES, 2)
        program = rng.choice(PROGRAMS)
        reference = "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(6))
        member = f"{rng.randint(100, 999)}{rng.randint(100000, 999999)}"
        hotel_name = f"Hotel {rng.choice(HOTEL_NAMES)}"
        facts = {
            "name": (f"User's name is {first}", "SEMANTIC",
                     "How should the booking confirmation address me?", False),
            "home": (f"User's home airport is {home} ({home_code})", "SEMANTIC",
                     "Where will my outbound flight depart from?", False),
            "seat": (f"User prefers {rng.choice(SEATS)} seats on flights", "EPISODIC",
                     "Pick a good place for me to sit on the plane.", False),
            "diet": (f"User is {rng.choice(DIETS)}", "SEMANTIC",
                     "Is there anything I can't eat from the in-flight menu?", False),
            "hotel": (f"User prefers {rng.choice(HOTELS)} hotels", "EPISODIC",
                      "What kind of place to stay suits me best?", False),
            "car": (f"User prefers {rng.choice(CARS)} cars when renting", "EPISODIC",
                    "Which vehicle category should I reserve at the counter?", False),
            "loyalty": (f"User is a {program} member", "SEMANTIC",
                        f"Which programme do I collect points with, {program.split()[0]}?", True),
            "allergy": (f"User is allergic to {rng.choice(ALLERGENS)}", "SEMANTIC",
                        "Any medical issues the airline should know about me?", False),
            "passport": (f"User holds a {rng.choice(PASSPORTS)} passport", "SEMANTIC",
                         "Do I need a visa, given my nationality?", False),
            "companion": (f"User usually travels with {rng.choice(COMPANIONS)}", "EPISODIC",
                          "Who normally comes along on my trips?", False),
            "budget": (f"User's hotel budget is about {rng.choice((90, 120, 150, 220))} EUR "
                       "per night", "EPISODIC", "How much can I spend per night on a room?", True),
            "visited": (f"User visited {visited} in {rng.choice((2022, 2023, 2024, 2025))} and "
                        "loved the street food", "EPISODIC",
                        f"Did I enjoy the food when I was in {visited}?", True),
            "upcoming": (f"User plans a trip to {upcoming} in {rng.choice(MONTHS)}", "EPISODIC",
                         f"When am I going to {upcoming}?", True),
            "reference": (f"User's booking reference for the {upcoming} trip is {reference}",
                          "SEMANTIC", f"Can you look up {reference} for me?", True),
            "member_number": (f"User's frequent flyer number is {member}", "SEMANTIC",
                              f"Whose account is {member}?", True),
            "favourite_hotel": (f"User's favourite hotel is the {hotel_name} in {home}",
                                "EPISODIC", f"Is the {hotel_name} available next week?", True),
        }  # fmt: skip
        distractors = {
            "language": (f"User speaks {rng.choice(LANGUAGES)}", "SEMANTIC"),
            "job": (f"User works as a {rng.choice(JOBS)}", "SEMANTIC"),
            "pet": (f"User has a {rng.choice(PETS)} at home", "SEMANTIC"),
            "hobby": (f"User enjoys {rng.choice(HOBBIES)}", "EPISODIC"),
            "dislike": (f"User dislikes {rng.choice(DISLIKES)}", "EPISODIC"),
            "birthday": (f"User's birthday is in {rng.choice(MONTHS)}", "SEMANTIC"),
            "departures": ("User prefers morning departures", "EPISODIC"),
            "insurance": ("User always buys travel insurance", "EPISODIC"),
            "phone": ("User wants booking updates by text message", "EPISODIC"),
        }
        for key, (content, kind, _, _) in facts.items():
            memories.append(Memory(user, key, content, kind))
        for key, (content, kind) in distractors.items():
            memories.append(Memory(user, key, content, kind))
        for key in rng.sample(sorted(facts), 10):
            _, _, text, shares = facts[key]
            questions.append(Question(user, text, key, shares))
    return memories, questions
