"""The embedded travel inventory: cities, flights, hotels and rental cars, all deterministic.

Nothing is stored: every offer is computed from its inputs (route, date, city) with a stable
hash, so a search gives the same answer on every machine and every run, and an offer id is
enough to rebuild the offer at booking time. Only availability changes, as bookings (in
:mod:`agent.tools.bookings`) consume seats, rooms and cars.
"""

from __future__ import annotations

import difflib
import hashlib
import math
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from agent.errors import ToolInputError


@dataclass(frozen=True)
class City:
    """A served city and its main airport."""

    iata: str
    name: str
    country: str
    latitude: float
    longitude: float
    cost_factor: float  # local price level, 1.0 = average


CITIES: tuple[City, ...] = (
    City("AMS", "Amsterdam", "Netherlands", 52.31, 4.76, 1.15),
    City("ATH", "Athens", "Greece", 37.94, 23.94, 0.85),
    City("BCN", "Barcelona", "Spain", 41.30, 2.08, 1.0),
    City("BER", "Berlin", "Germany", 52.36, 13.50, 1.0),
    City("BKK", "Bangkok", "Thailand", 13.69, 100.75, 0.6),
    City("BOS", "Boston", "United States", 42.36, -71.01, 1.3),
    City("CDG", "Paris", "France", 49.01, 2.55, 1.25),
    City("CPH", "Copenhagen", "Denmark", 55.62, 12.65, 1.3),
    City("DEL", "Delhi", "India", 28.56, 77.10, 0.5),
    City("DUB", "Dublin", "Ireland", 53.42, -6.27, 1.2),
    City("DXB", "Dubai", "United Arab Emirates", 25.25, 55.36, 1.2),
    City("FCO", "Rome", "Italy", 41.80, 12.25, 1.05),
    City("GRU", "Sao Paulo", "Brazil", -23.43, -46.47, 0.8),
    City("HKG", "Hong Kong", "China", 22.31, 113.91, 1.25),
    City("HND", "Tokyo", "Japan", 35.55, 139.78, 1.2),
    City("IST", "Istanbul", "Turkey", 41.26, 28.74, 0.75),
    City("JFK", "New York", "United States", 40.64, -73.78, 1.45),
    City("LAX", "Los Angeles", "United States", 33.94, -118.41, 1.3),
    City("LHR", "London", "United Kingdom", 51.47, -0.45, 1.4),
    City("LIS", "Lisbon", "Portugal", 38.77, -9.13, 0.9),
    City("MAD", "Madrid", "Spain", 40.49, -3.57, 0.95),
    City("MEX", "Mexico City", "Mexico", 19.44, -99.07, 0.7),
    City("MUC", "Munich", "Germany", 48.35, 11.79, 1.15),
    City("OSL", "Oslo", "Norway", 60.19, 11.10, 1.35),
    City("PRG", "Prague", "Czechia", 50.10, 14.26, 0.8),
    City("SFO", "San Francisco", "United States", 37.62, -122.38, 1.45),
    City("SIN", "Singapore", "Singapore", 1.36, 103.99, 1.2),
    City("SYD", "Sydney", "Australia", -33.94, 151.18, 1.2),
    City("VIE", "Vienna", "Austria", 48.11, 16.57, 1.05),
    City("WAW", "Warsaw", "Poland", 52.17, 20.97, 0.75),
    City("YYZ", "Toronto", "Canada", 43.68, -79.63, 1.15),
    City("ZRH", "Zurich", "Switzerland", 47.46, 8.55, 1.5),
)
CURRENCY = "EUR"
BOOKING_HORIZON_DAYS = 365
MAX_STAY_DAYS = 30
CABINS = ("economy", "premium_economy", "business", "first")
CAR_CLASSES = ("economy", "compact", "midsize", "suv", "luxury", "van")
_CABIN_PRICE = {"economy": 1.0, "premium_economy": 1.7, "business": 3.6, "first": 6.0}
_CAR_DAY_PRICE = {"economy": 32, "compact": 39, "midsize": 48, "suv": 66, "luxury": 110, "van": 84}
_AIRLINES = (
    ("LH", "Lufthansa"), ("AF", "Air France"), ("KL", "KLM"), ("BA", "British Airways"),
    ("IB", "Iberia"), ("SK", "SAS"), ("UA", "United"), ("DL", "Delta"), ("EK", "Emirates"),
    ("SQ", "Singapore Airlines"), ("TK", "Turkish Airlines"), ("LX", "Swiss"),
)  # fmt: skip
_HOTEL_NAMES = (
    "Grand Hotel", "Hotel Central", "Budget Inn", "Harbour View", "Old Town Suites",
    "Airport Lodge",
)  # fmt: skip
_HOTEL_FEATURES = (
    "free wifi", "breakfast included", "pool", "gym", "spa", "quiet rooms", "city view",
    "pet friendly", "airport shuttle", "rooms away from the elevator",
)  # fmt: skip
_CAR_PROVIDERS = ("Sixt", "Hertz", "Avis", "Europcar", "Enterprise")
_CAR_MODELS = {
    "economy": ("Fiat 500", "VW Polo"), "compact": ("VW Golf", "Ford Focus"),
    "midsize": ("Skoda Octavia", "Toyota Camry"), "suv": ("VW Tiguan", "Toyota RAV4"),
    "luxury": ("BMW 5 Series", "Mercedes E-Class"), "van": ("VW Transporter", "Ford Tourneo"),
}  # fmt: skip


def stable_int(*parts: object) -> int:
    """A hash of the parts that is the same in every process (unlike ``hash``)."""
    digest = hashlib.sha256("|".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big")


@dataclass(frozen=True)
class FlightOffer:
    offer_id: str
    airline: str
    flight_number: str
    origin: str
    destination: str
    departure: datetime
    arrival: datetime
    cabin: str
    price: int
    seats: int  # capacity in this cabin before bookings


@dataclass(frozen=True)
class Hotel:
    hotel_id: str
    name: str
    city: str
    stars: int
    price_per_night: int
    features: tuple[str, ...]
    rooms: int  # rooms per night before bookings


@dataclass(frozen=True)
class CarOffer:
    offer_id: str
    provider: str
    model: str
    city: str
    car_class: str
    price_per_day: int
    fleet: int  # cars per day before bookings


class Inventory:
    """Look-ups and validation over the deterministic inventory."""

    def __init__(self, cities: tuple[City, ...] = CITIES) -> None:
        self.cities = cities
        self._by_code = {c.iata: c for c in cities}
        self._by_name = {c.name.lower(): c for c in cities}

    # -- cities ------------------------------------------------------------------------------
    def city(self, text: str) -> City:
        """A city by IATA code or name (any case); unknown ones get the closest suggestions."""
        key = text.strip()
        found = self._by_code.get(key.upper()) or self._by_name.get(key.lower())
        if found:
            return found
        names = [*self._by_name, *(code.lower() for code in self._by_code)]
        close = difflib.get_close_matches(key.lower(), names, n=3, cutoff=0.6)
        hint = f" Did you mean {', '.join(close)}?" if close else ""
        raise ToolInputError(
            f"unknown city or airport code {text!r}.{hint} Call list_destinations for the "
            "served cities."
        )

    # -- flights -----------------------------------------------------------------------------
    def flights(self, origin: City, destination: City, day: date, cabin: str) -> list[FlightOffer]:
        if origin == destination:
            raise ToolInputError("origin and destination are the same city")
        distance = _distance_km(origin, destination)
        minutes = int(45 + distance / 780 * 60)
        count = 3 + stable_int(origin.iata, destination.iata, day) % 3
        offers = []
        for n in range(count):
            seed = stable_int(origin.iata, destination.iata, day, n)
            code, airline = _AIRLINES[seed % len(_AIRLINES)]
            number = f"{code}{100 + seed % 900}"
            departure = datetime.combine(day, time(6 + n * 3 + seed % 3, (seed >> 8) % 12 * 5))
            base = 40 + distance * 0.075 * (0.8 + (seed >> 16) % 50 / 100)
            seats = 0 if (seed >> 24) % 9 == 0 else 1 + (seed >> 32) % 9
            offers.append(
                FlightOffer(
                    offer_id=f"FL-{origin.iata}-{destination.iata}-{day:%Y%m%d}-{number}-{cabin}",
                    airline=airline,
                    flight_number=number,
                    origin=origin.iata,
                    destination=destination.iata,
                    departure=departure,
                    arrival=departure + timedelta(minutes=minutes),
                    cabin=cabin,
                    price=round(base * _CABIN_PRICE[cabin]),
                    seats=seats,
                )
            )
        return offers

    def flight_offer(self, offer_id: str) -> FlightOffer:
        """Rebuild a flight offer from its id, or fail naming the id."""
        parts = offer_id.strip().split("-")
        if len(parts) != 6 or parts[0] != "FL":
            raise ToolInputError(
                f"{offer_id!r} is not a flight offer id (FL-…) from search_flights"
            )
        _, origin, destination, day_text, number, cabin = parts
        try:
            day = datetime.strptime(day_text, "%Y%m%d").date()
            found = self.flights(self.city(origin), self.city(destination), day, cabin)
        except (ValueError, KeyError, ToolInputError):
            found = []
        for offer in found:
            if offer.flight_number == number:
                return offer
        raise ToolInputError(f"no flight offer {offer_id!r}; search again with search_flights")

    # -- hotels ------------------------------------------------------------------------------
    def hotels(self, city: City) -> list[Hotel]:
        hotels = []
        for n, name in enumerate(_HOTEL_NAMES):
            seed = stable_int("hotel", city.iata, n)
            stars = 2 + seed % 4
            price = round((35 + stars * 28 + (seed >> 8) % 40) * city.cost_factor)
            picks = [f for i, f in enumerate(_HOTEL_FEATURES) if (seed >> (16 + i)) & 1]
            rooms = 0 if (seed >> 40) % 7 == 0 else 1 + (seed >> 44) % 6
            hotels.append(
                Hotel(
                    hotel_id=f"HT-{city.iata}-{n + 1}",
                    name=f"{name} {city.name}",
                    city=city.iata,
                    stars=stars,
                    price_per_night=price,
                    features=tuple(picks),
                    rooms=rooms,
                )
            )
        return hotels

    def hotel(self, hotel_id: str) -> Hotel:
        parts = hotel_id.strip().split("-")
        if len(parts) == 3 and parts[0] == "HT" and parts[1] in self._by_code:
            for hotel in self.hotels(self._by_code[parts[1]]):
                if hotel.hotel_id == hotel_id.strip():
                    return hotel
        raise ToolInputError(f"no hotel {hotel_id!r}; use an id (HT-…) from search_hotels")

    # -- cars --------------------------------------------------------------------------------
    def cars(self, city: City, car_class: str | None) -> list[CarOffer]:
        classes = CAR_CLASSES if car_class is None else (car_class,)
        offers = []
        for kind in classes:
            for n in range(2):
                seed = stable_int("car", city.iata, kind, n)
                fleet = 0 if (seed >> 20) % 8 == 0 else 1 + (seed >> 24) % 4
                offers.append(
                    CarOffer(
                        offer_id=f"CR-{city.iata}-{kind}-{n + 1}",
                        provider=_CAR_PROVIDERS[seed % len(_CAR_PROVIDERS)],
                        model=_CAR_MODELS[kind][n],
                        city=city.iata,
                        car_class=kind,
                        price_per_day=round(
                            _CAR_DAY_PRICE[kind] * city.cost_factor * (0.9 + (seed >> 8) % 25 / 100)
                        ),
                        fleet=fleet,
                    )
                )
        return offers

    def car_offer(self, offer_id: str) -> CarOffer:
        parts = offer_id.strip().split("-")
        known = len(parts) == 4 and parts[0] == "CR" and parts[1] in self._by_code
        if known and parts[2] in CAR_CLASSES:
            for offer in self.cars(self._by_code[parts[1]], parts[2]):
                if offer.offer_id == offer_id.strip():
                    return offer
        raise ToolInputError(f"no rental car offer {offer_id!r}; use an id (CR-…) from search_cars")


def _distance_km(a: City, b: City) -> float:
    """Great-circle distance between two airports."""
    lat1, lon1, lat2, lon2 = map(math.radians, (a.latitude, a.longitude, b.latitude, b.longitude))
    h = (
        math.sin((lat2 - lat1) / 2) ** 2
        + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    )
    return 2 * 6371 * math.asin(math.sqrt(h))
