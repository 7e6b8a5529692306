"""Which tool the offline model calls for a clear travel request, and with what arguments.

Only tools that are bound to the model are called, as a real model can only call the tools it
was given. Preferences reach the arguments the way they reach a real model: through the text
of the request — the question first, then the memories in the system prompt ("User prefers
economy cars" makes a car search ask for economy cars).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

ToolIntent = tuple[str, dict[str, Any]]
_Matcher = Callable[[str, str], dict[str, Any] | None]

_DATE = r"(\d{4}-\d{2}-\d{2})"
_PLACE = r"([A-Za-z][A-Za-z .'-]*?)"
_CABINS = {
    "premium economy": "premium_economy",
    "business": "business",
    "first class": "first",
    "economy": "economy",
}
_CAR_CLASSES = ("economy", "compact", "midsize", "suv", "luxury", "van")

_LIST_DESTINATIONS = re.compile(
    r"\b(?:which|what) (?:cities|destinations|places)\b|\bwhere can (?:i|you) (?:fly|travel|go)\b",
    re.IGNORECASE,
)
_IN_COUNTRY = re.compile(r"\bin ([A-Z][A-Za-z ]+?)[?.!]*$")
_FLIGHTS = re.compile(
    rf"\bflights?\b.*?\bfrom\s+{_PLACE}\s+to\s+{_PLACE}\s+on\s+{_DATE}", re.IGNORECASE
)
_HOTELS = re.compile(
    rf"\bhotels?\b.*?\bin\s+{_PLACE}\s+from\s+{_DATE}\s+to\s+{_DATE}", re.IGNORECASE
)
_CARS = re.compile(
    rf"\b(?:rental cars?|rent(?:al)? a car|car rentals?|cars?)\b.*?\bin\s+{_PLACE}\s+"
    rf"from\s+{_DATE}\s+to\s+{_DATE}",
    re.IGNORECASE,
)
_MAX_PRICE = re.compile(r"\b(?:under|below|at most|max(?:imum)?)\s+(?:EUR\s*|€)?(\d+)", re.I)
_BOOK_FLIGHT = re.compile(r"\bbook\b.*?\b(FL-[A-Za-z0-9_-]+)", re.IGNORECASE)
_PASSENGERS = re.compile(r"\bfor\s+(\d+)\s+(?:passengers?|people|persons?)\b", re.IGNORECASE)
_BOOK_HOTEL = re.compile(
    rf"\bbook\b.*?\b(HT-[A-Z]{{3}}-\d+)\b.*?\bfrom\s+{_DATE}\s+to\s+{_DATE}", re.IGNORECASE
)
_RENT_CAR = re.compile(
    rf"\b(?:rent|book)\b.*?\b(CR-[A-Z]{{3}}-[a-z]+-\d+)\b.*?\bfrom\s+{_DATE}\s+to\s+{_DATE}",
    re.IGNORECASE,
)
_CANCEL = re.compile(r"\bcancel\b.*?\b(BK-[A-Z0-9]+)\b", re.IGNORECASE)
_SHOW_BOOKING = re.compile(r"\b(BK-[A-Z0-9]+)\b", re.IGNORECASE)
_MY_BOOKINGS = re.compile(r"\bmy bookings\b|\bwhat (?:have i|did i) book", re.IGNORECASE)


def _preferred(options: dict[str, str], question: str, memories: str, noun: str) -> str | None:
    """An option named in the question, else one the memories say the user prefers."""
    lowered = question.lower()
    for words, value in options.items():
        if words in lowered:
            return value
    for words, value in options.items():
        pattern = rf"\bprefers?\b[^.\n]*\b{words}s?\b[^.\n]*\b(?:{noun})"
        if re.search(pattern, memories, re.IGNORECASE):
            return value
    return None


def _list_destinations(question: str, memories: str) -> dict[str, Any] | None:
    if not _LIST_DESTINATIONS.search(question):
        return None
    country = _IN_COUNTRY.search(question)
    return {"country": country.group(1).strip()} if country else {}


def _search_flights(question: str, memories: str) -> dict[str, Any] | None:
    match = _FLIGHTS.search(question)
    if match is None:
        return None
    args: dict[str, Any] = {"origin": match[1], "destination": match[2], "date": match[3]}
    cabin = _preferred(_CABINS, question, memories, "class|cabin|flights?|seats?")
    if cabin:
        args["cabin"] = cabin
    return args


def _search_hotels(question: str, memories: str) -> dict[str, Any] | None:
    match = _HOTELS.search(question)
    if match is None:
        return None
    args: dict[str, Any] = {"city": match[1], "check_in": match[2], "check_out": match[3]}
    if price := _MAX_PRICE.search(question):
        args["max_price_per_night"] = float(price[1])
    return args


def _search_cars(question: str, memories: str) -> dict[str, Any] | None:
    match = _CARS.search(question)
    if match is None or _HOTELS.search(question):
        return None
    args: dict[str, Any] = {"city": match[1], "pick_up": match[2], "drop_off": match[3]}
    car_class = _preferred({c: c for c in _CAR_CLASSES}, question, memories, "cars?|vehicles?")
    if car_class:
        args["car_class"] = car_class
    return args


def _book_flight(question: str, memories: str) -> dict[str, Any] | None:
    match = _BOOK_FLIGHT.search(question)
    if match is None:
        return None
    passengers = _PASSENGERS.search(question)
    return {"offer_id": match[1], "passengers": int(passengers[1]) if passengers else 1}


def _book_hotel(question: str, memories: str) -> dict[str, Any] | None:
    match = _BOOK_HOTEL.search(question)
    return (
        None
        if match is None
        else {"hotel_id": match[1], "check_in": match[2], "check_out": match[3]}
    )


def _rent_car(question: str, memories: str) -> dict[str, Any] | None:
    match = _RENT_CAR.search(question)
    return (
        None if match is None else {"offer_id": match[1], "pick_up": match[2], "drop_off": match[3]}
    )


def _cancel_booking(question: str, memories: str) -> dict[str, Any] | None:
    match = _CANCEL.search(question)
    return None if match is None else {"booking_id": match[1].upper()}


def _get_booking(question: str, memories: str) -> dict[str, Any] | None:
    match = _SHOW_BOOKING.search(question)
    return None if match is None else {"booking_id": match[1].upper()}


def _list_my_bookings(question: str, memories: str) -> dict[str, Any] | None:
    return {} if _MY_BOOKINGS.search(question) else None


# Most specific first: a booking request also mentions what it books.
_MATCHERS: dict[str, _Matcher] = {
    "cancel_booking": _cancel_booking,
    "book_flight": _book_flight,
    "book_hotel": _book_hotel,
    "rent_car": _rent_car,
    "get_booking": _get_booking,
    "list_my_bookings": _list_my_bookings,
    "search_flights": _search_flights,
    "search_hotels": _search_hotels,
    "search_cars": _search_cars,
    "list_destinations": _list_destinations,
}


def match_tool_intent(question: str, tool_names: set[str], system_text: str) -> ToolIntent | None:
    """The first bound tool whose intent matches the question, with its arguments."""
    for name, matcher in _MATCHERS.items():
        if name not in tool_names:
            continue
        args = matcher(question, system_text)
        if args is not None:
            return name, args
    return None
