"""The travel desk: what each tool does, as plain methods that take the caller's identity.

The LangChain tools in :mod:`agent.tools.travel` are thin wrappers that inject the user from
the run context and call these methods; keeping the logic here lets it be tested without a
graph. Every method returns compact, model-friendly text (a few options with ids and prices),
and every bad input raises :class:`ToolInputError` with a message the model can act on.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import date, timedelta

from agent.context import Conversation
from agent.errors import ToolInputError
from agent.tools.bookings import Booking, BookingRequest, BookingStore
from agent.tools.inventory import (
    BOOKING_HORIZON_DAYS,
    CABINS,
    CAR_CLASSES,
    CURRENCY,
    MAX_STAY_DAYS,
    Inventory,
)

MAX_RESULTS = 5
MAX_PARTY = 9


class TravelDesk:
    """Searches, bookings and cancellations over the inventory and the bookings table."""

    def __init__(
        self, inventory: Inventory, bookings: BookingStore, today: Callable[[], date] = date.today
    ) -> None:
        self.inventory = inventory
        self.bookings = bookings
        self.today = today

    # -- discovery ---------------------------------------------------------------------------
    def list_destinations(self, country: str | None = None) -> str:
        cities = [
            c for c in self.inventory.cities if not country or c.country.lower() == country.lower()
        ]
        if not cities:
            return f"No served cities in {country!r}."
        return "Served cities: " + ", ".join(f"{c.name} ({c.iata})" for c in cities)

    # -- flights -----------------------------------------------------------------------------
    def search_flights(self, origin: str, destination: str, day: str, cabin: str) -> str:
        from_city, to_city = self.inventory.city(origin), self.inventory.city(destination)
        travel_day = self._future_day("date", day)
        cabin = _choice("cabin", cabin, CABINS)
        offers = self.inventory.flights(from_city, to_city, travel_day, cabin)
        lines = [
            f"Flights {from_city.iata}→{to_city.iata} on {travel_day} ({cabin}), cheapest first:"
        ]
        for offer in sorted(offers, key=lambda o: o.price)[:MAX_RESULTS]:
            left = offer.seats - self.bookings.used(
                offer.offer_id, travel_day, travel_day + timedelta(days=1)
            )
            lines.append(
                f"- {offer.offer_id}: {offer.airline} {offer.flight_number}, "
                f"{offer.departure:%H:%M}→{offer.arrival:%H:%M}, {CURRENCY} {offer.price} per "
                f"passenger, {_left(left, 'seat')}"
            )
        return "\n".join(lines)

    def book_flight(
        self,
        who: Conversation,
        *,
        offer_id: str,
        passengers: int = 1,
        idempotency_key: str | None = None,
    ) -> str:
        offer = self.inventory.flight_offer(offer_id)
        day = offer.departure.date()
        self._check_not_past("flight date", day)
        passengers = _count("passengers", passengers)
        summary = (
            f"{offer.airline} {offer.flight_number} {offer.origin}→{offer.destination} on "
            f"{day} {offer.departure:%H:%M}, {offer.cabin}, {passengers} passenger(s)"
        )
        return self._book(
            BookingRequest(
                user_id=who.user_id,
                conversation_id=who.conversation_id,
                kind="flight",
                offer_id=offer.offer_id,
                start_date=day,
                end_date=day + timedelta(days=1),
                quantity=passengers,
                total_price=offer.price * passengers,
                currency=CURRENCY,
                summary=summary,
                capacity=offer.seats,
                idempotency_key=idempotency_key or "",
            )
        )

    # -- hotels ------------------------------------------------------------------------------
    def search_hotels(
        self, city: str, check_in: str, check_out: str, max_price_per_night: float | None
    ) -> str:
        where = self.inventory.city(city)
        start, end = self._stay("check_in", check_in, "check_out", check_out)
        if max_price_per_night is not None and max_price_per_night <= 0:
            raise ToolInputError(
                f"max_price_per_night must be a positive amount, not {max_price_per_night}"
            )
        hotels = [
            h
            for h in self.inventory.hotels(where)
            if max_price_per_night is None or h.price_per_night <= max_price_per_night
        ]
        nights = (end - start).days
        if not hotels:
            return (
                f"No hotels in {where.name} at or under {CURRENCY} {max_price_per_night} a night."
            )
        lines = [f"Hotels in {where.name}, {start} to {end} ({nights} nights), cheapest first:"]
        for hotel in sorted(hotels, key=lambda h: h.price_per_night)[:MAX_RESULTS]:
            left = hotel.rooms - self.bookings.used(hotel.hotel_id, start, end)
            features = ", ".join(hotel.features) or "no listed features"
            lines.append(
                f"- {hotel.hotel_id}: {hotel.name} ({hotel.stars}★), {CURRENCY} "
                f"{hotel.price_per_night}/night ({CURRENCY} {hotel.price_per_night * nights} "
                f"total), {features}; {_left(left, 'room')}"
            )
        return "\n".join(lines)

    def book_hotel(
        self,
        who: Conversation,
        *,
        hotel_id: str,
        check_in: str,
        check_out: str,
        rooms: int = 1,
        idempotency_key: str | None = None,
    ) -> str:
        hotel = self.inventory.hotel(hotel_id)
        start, end = self._stay("check_in", check_in, "check_out", check_out)
        rooms = _count("rooms", rooms)
        nights = (end - start).days
        return self._book(
            BookingRequest(
                user_id=who.user_id,
                conversation_id=who.conversation_id,
                kind="hotel",
                offer_id=hotel.hotel_id,
                start_date=start,
                end_date=end,
                quantity=rooms,
                total_price=hotel.price_per_night * nights * rooms,
                currency=CURRENCY,
                summary=f"{hotel.name}, {start} to {end} ({nights} nights), {rooms} room(s)",
                capacity=hotel.rooms,
                idempotency_key=idempotency_key or "",
            )
        )

    # -- cars --------------------------------------------------------------------------------
    def search_cars(self, city: str, pick_up: str, drop_off: str, car_class: str | None) -> str:
        where = self.inventory.city(city)
        start, end = self._stay("pick_up", pick_up, "drop_off", drop_off)
        kind = _choice("car_class", car_class, CAR_CLASSES) if car_class else None
        days = (end - start).days
        lines = [
            f"Rental cars in {where.name}, {start} to {end} ({days} days)"
            + (f", class {kind}" if kind else "")
            + ", cheapest first:"
        ]
        offers = sorted(self.inventory.cars(where, kind), key=lambda o: o.price_per_day)
        for offer in offers[:MAX_RESULTS]:
            left = offer.fleet - self.bookings.used(offer.offer_id, start, end)
            lines.append(
                f"- {offer.offer_id}: {offer.provider} {offer.model} ({offer.car_class}), "
                f"{CURRENCY} {offer.price_per_day}/day ({CURRENCY} {offer.price_per_day * days} "
                f"total), {_left(left, 'car')}"
            )
        return "\n".join(lines)

    def rent_car(
        self,
        who: Conversation,
        *,
        offer_id: str,
        pick_up: str,
        drop_off: str,
        idempotency_key: str | None = None,
    ) -> str:
        offer = self.inventory.car_offer(offer_id)
        start, end = self._stay("pick_up", pick_up, "drop_off", drop_off)
        days = (end - start).days
        return self._book(
            BookingRequest(
                user_id=who.user_id,
                conversation_id=who.conversation_id,
                kind="car",
                offer_id=offer.offer_id,
                start_date=start,
                end_date=end,
                quantity=1,
                total_price=offer.price_per_day * days,
                currency=CURRENCY,
                summary=(
                    f"{offer.provider} {offer.model} ({offer.car_class}) in {offer.city}, "
                    f"{start} to {end} ({days} days)"
                ),
                capacity=offer.fleet,
                idempotency_key=idempotency_key or "",
            )
        )

    # -- bookings ----------------------------------------------------------------------------
    def get_booking(self, user_id: str, booking_id: str) -> str:
        booking = self.bookings.get(user_id, booking_id)
        if booking is None:
            raise ToolInputError(f"no booking {booking_id!r} found")
        return describe_booking(booking)

    def list_my_bookings(self, user_id: str) -> str:
        bookings = self.bookings.list(user_id)
        if not bookings:
            return "You have no bookings."
        return "Your bookings:\n" + "\n".join(f"- {describe_booking(b)}" for b in bookings)

    def cancel_booking(self, user_id: str, booking_id: str) -> str:
        booking = self.bookings.cancel(user_id, booking_id)
        if booking is None:
            raise ToolInputError(f"no booking {booking_id!r} found")
        return f"Cancelled: {describe_booking(booking)}"

    # -- shared checks -----------------------------------------------------------------------
    def _book(self, request: BookingRequest) -> str:
        if not request.idempotency_key:
            # A retried request in the same conversation is the same booking, not a second one.
            request = _with_default_key(request)
        booking, created = self.bookings.create(request)
        prefix = "Booked" if created else "Already booked (same request, not booked twice)"
        return f"{prefix}: {describe_booking(booking)}"

    def _future_day(self, name: str, text: str) -> date:
        day = _parse_day(name, text)
        self._check_not_past(name, day)
        if day > self.today() + timedelta(days=BOOKING_HORIZON_DAYS):
            raise ToolInputError(
                f"{name}: {day} is too far ahead; bookings open {BOOKING_HORIZON_DAYS} days ahead"
            )
        return day

    def _check_not_past(self, name: str, day: date) -> None:
        if day < self.today():
            raise ToolInputError(f"{name}: {day} is in the past (today is {self.today()})")

    def _stay(self, start_name: str, start: str, end_name: str, end: str) -> tuple[date, date]:
        first, last = self._future_day(start_name, start), _parse_day(end_name, end)
        if last <= first:
            raise ToolInputError(f"{end_name} ({last}) must be after {start_name} ({first})")
        if (last - first).days > MAX_STAY_DAYS:
            raise ToolInputError(f"{start_name} to {end_name} is over {MAX_STAY_DAYS} days")
        return first, last


def describe_booking(booking: Booking) -> str:
    return (
        f"{booking.booking_id} [{booking.status}] {booking.kind}: {booking.summary}; "
        f"{booking.currency} {booking.total_price} total"
    )


def _with_default_key(request: BookingRequest) -> BookingRequest:
    parts = (
        request.conversation_id,
        request.offer_id,
        request.start_date,
        request.end_date,
        request.quantity,
    )
    key = "auto:" + hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest()[:32]
    return BookingRequest(**{**request.__dict__, "idempotency_key": key})


def _parse_day(name: str, text: str) -> date:
    try:
        return date.fromisoformat(str(text).strip())
    except ValueError:
        raise ToolInputError(f"{name}: {text!r} is not a date; use YYYY-MM-DD") from None


def _choice(name: str, value: str, allowed: tuple[str, ...]) -> str:
    normalised = value.strip().lower().replace(" ", "_").replace("-", "_")
    if normalised not in allowed:
        raise ToolInputError(f"{name}: {value!r} is not one of {', '.join(allowed)}")
    return normalised


def _count(name: str, value: int) -> int:
    if not 1 <= value <= MAX_PARTY:
        raise ToolInputError(f"{name} must be from 1 to {MAX_PARTY}, not {value}")
    return value


def _left(left: int, unit: str) -> str:
    return "sold out" if left <= 0 else f"{left} {unit}{'s' if left != 1 else ''} left"
