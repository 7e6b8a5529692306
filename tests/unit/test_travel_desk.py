"""The travel desk: searches, bookings, ownership, idempotency and every bad input."""

from __future__ import annotations

import re
import threading
from datetime import date, timedelta
from typing import Any

import pytest

from agent.context import Conversation
from agent.errors import ToolInputError
from agent.tools import Inventory, TravelDesk
from tests.conftest import days_ahead

ALICE = Conversation("alice", "conv-a")
BOB = Conversation("bob", "conv-b")


def offer_ids(text: str, prefix: str) -> list[str]:
    return re.findall(rf"\b{prefix}-[A-Za-z0-9_-]+", text)


def first_available(text: str, prefix: str) -> str:
    for line in text.splitlines():
        if line.startswith("- ") and "sold out" not in line:
            return offer_ids(line, prefix)[0]
    raise AssertionError(f"nothing available in:\n{text}")


# -- searches --------------------------------------------------------------------------------
def test_flight_search_lists_the_cheapest_offers_with_ids_and_prices(desk: TravelDesk) -> None:
    text = desk.search_flights("Berlin", "cdg", days_ahead(30), "economy")
    assert text.startswith(f"Flights BER→CDG on {days_ahead(30)} (economy)")
    prices = [int(p) for p in re.findall(r"EUR (\d+) per passenger", text)]
    assert 3 <= len(prices) <= 5 and prices == sorted(prices)
    assert all(i.endswith("-economy") for i in offer_ids(text, "FL"))


def test_searches_are_deterministic(desk: TravelDesk) -> None:
    first = desk.search_hotels("Lisbon", days_ahead(10), days_ahead(12), None)
    assert first == desk.search_hotels("LIS", days_ahead(10), days_ahead(12), None)


def test_business_class_costs_more_than_economy(desk: TravelDesk) -> None:
    def cheapest(cabin: str) -> int:
        text = desk.search_flights("LHR", "JFK", days_ahead(20), cabin)
        return min(int(p) for p in re.findall(r"EUR (\d+)", text))

    assert cheapest("business") > cheapest("premium economy") > cheapest("economy")


def test_hotel_search_honours_the_price_limit(desk: TravelDesk) -> None:
    text = desk.search_hotels("Berlin", days_ahead(5), days_ahead(8), 150)
    nightly = [int(p) for p in re.findall(r"EUR (\d+)/night", text)]
    assert nightly and max(nightly) <= 150
    assert "(3 nights)" in text


def test_car_search_filters_by_class(desk: TravelDesk) -> None:
    text = desk.search_cars("Berlin", days_ahead(5), days_ahead(8), "Economy")
    assert offer_ids(text, "CR") and all("-economy-" in i for i in offer_ids(text, "CR"))


# -- bad input -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda d: d.search_flights("Berln", "CDG", days_ahead(3), "economy"), "mean berlin"),
        (lambda d: d.search_flights("XXX", "CDG", days_ahead(3), "economy"), "unknown city"),
        (lambda d: d.search_flights("BER", "BER", days_ahead(3), "economy"), "same city"),
        (lambda d: d.search_flights("BER", "CDG", "15/01/2027", "economy"), "use YYYY-MM-DD"),
        (lambda d: d.search_flights("BER", "CDG", days_ahead(-1), "economy"), "in the past"),
        (lambda d: d.search_flights("BER", "CDG", days_ahead(400), "economy"), "too far ahead"),
        (lambda d: d.search_flights("BER", "CDG", days_ahead(3), "cargo"), "cabin: 'cargo'"),
        (
            lambda d: d.search_hotels("Berlin", days_ahead(5), days_ahead(3), None),
            "check_out",
        ),
        (lambda d: d.search_hotels("Berlin", days_ahead(5), days_ahead(5), None), "after"),
        (lambda d: d.search_hotels("Berlin", days_ahead(1), days_ahead(3), -20), "positive"),
        (lambda d: d.search_hotels("Berlin", days_ahead(1), days_ahead(60), None), "over 30 days"),
        (lambda d: d.search_cars("Berlin", days_ahead(1), days_ahead(3), "tank"), "car_class"),
        (lambda d: d.book_flight(ALICE, offer_id="FL-nope"), "not a flight offer id"),
        (lambda d: d.book_hotel(ALICE, hotel_id="HT-BER-99", check_in=days_ahead(1),
                                check_out=days_ahead(2)), "no hotel"),
        (lambda d: d.rent_car(ALICE, offer_id="CR-BER-tank-1", pick_up=days_ahead(1),
                              drop_off=days_ahead(2)), "no rental car offer"),
    ],
)  # fmt: skip
def test_bad_input_is_a_tool_error_the_model_can_read(
    call: object, message: str, desk: TravelDesk
) -> None:
    with pytest.raises(ToolInputError, match=message):
        call(desk)  # type: ignore[operator]


def test_a_sold_out_offer_cannot_be_booked(desk: TravelDesk) -> None:
    inventory = Inventory()
    day = date.today() + timedelta(days=40)
    sold_out = next(
        offer
        for origin in inventory.cities[:6]
        for destination in inventory.cities[6:12]
        for offer in inventory.flights(origin, destination, day, "economy")
        if offer.seats == 0
    )
    with pytest.raises(ToolInputError, match="sold out"):
        desk.book_flight(ALICE, offer_id=sold_out.offer_id)


def test_the_last_seats_go_once_then_the_offer_is_sold_out(desk: TravelDesk) -> None:
    day = date.today() + timedelta(days=40)
    inventory = Inventory()
    offer = next(
        o for o in inventory.flights(inventory.city("BER"), inventory.city("CDG"), day, "economy")
        if o.seats >= 2
    )  # fmt: skip
    desk.book_flight(ALICE, offer_id=offer.offer_id, passengers=offer.seats - 1)
    with pytest.raises(ToolInputError, match="only 1 left"):
        desk.book_flight(BOB, offer_id=offer.offer_id, passengers=2)
    desk.book_flight(BOB, offer_id=offer.offer_id, passengers=1)
    with pytest.raises(ToolInputError, match="sold out"):
        desk.book_flight(Conversation("carol", "c"), offer_id=offer.offer_id)


# -- ownership -------------------------------------------------------------------------------
def book_a_car(desk: TravelDesk, who: Conversation, key: str | None = None) -> str:
    offers = desk.search_cars("Berlin", days_ahead(5), days_ahead(8), None)
    text = desk.rent_car(
        who,
        offer_id=first_available(offers, "CR"),
        pick_up=days_ahead(5),
        drop_off=days_ahead(8),
        idempotency_key=key,
    )
    assert text.startswith("Booked: BK-"), text
    return offer_ids(text, "BK")[0]


def test_another_users_booking_is_not_found_exactly_like_a_missing_one(desk: TravelDesk) -> None:
    booking = book_a_car(desk, ALICE)
    with pytest.raises(ToolInputError) as theirs:
        desk.get_booking("bob", booking)
    with pytest.raises(ToolInputError) as missing:
        desk.get_booking("bob", "BK-0000000000")
    assert str(theirs.value).replace(booking, "X") == str(missing.value).replace(
        "BK-0000000000", "X"
    )
    with pytest.raises(ToolInputError, match="no booking"):
        desk.cancel_booking("bob", booking)
    assert "[confirmed]" in desk.get_booking("alice", booking)


def test_list_shows_only_the_callers_bookings(desk: TravelDesk) -> None:
    mine = book_a_car(desk, ALICE)
    theirs = book_a_car(desk, BOB)
    listing = desk.list_my_bookings("alice")
    assert mine in listing and theirs not in listing
    assert desk.list_my_bookings("carol") == "You have no bookings."


def test_cancel_marks_the_booking_cancelled_and_frees_the_car(desk: TravelDesk) -> None:
    booking = book_a_car(desk, ALICE)
    assert desk.cancel_booking("alice", booking).startswith(f"Cancelled: {booking} [cancelled]")
    assert "[cancelled]" in desk.get_booking("alice", booking)


# -- idempotency -----------------------------------------------------------------------------
def test_the_same_idempotency_key_books_once(desk: TravelDesk) -> None:
    first = book_a_car(desk, ALICE, key="retry-42")
    offers = desk.search_cars("Berlin", days_ahead(5), days_ahead(8), None)
    again = desk.rent_car(
        ALICE,
        offer_id=first_available(offers, "CR"),
        pick_up=days_ahead(5),
        drop_off=days_ahead(8),
        idempotency_key="retry-42",
    )
    assert again.startswith(f"Already booked (same request, not booked twice): {first}")
    assert desk.list_my_bookings("alice").count("BK-") == 1


def test_a_retried_request_in_the_same_conversation_books_once(desk: TravelDesk) -> None:
    hotel = first_available(desk.search_hotels("Rome", days_ahead(3), days_ahead(5), None), "HT")
    kwargs: dict[str, Any] = {"hotel_id": hotel, "check_in": days_ahead(3),
                              "check_out": days_ahead(5)}  # fmt: skip
    assert desk.book_hotel(ALICE, **kwargs).startswith("Booked")
    assert desk.book_hotel(ALICE, **kwargs).startswith("Already booked")
    assert desk.list_my_bookings("alice").count("BK-") == 1


def test_after_a_cancellation_the_same_request_books_again(desk: TravelDesk) -> None:
    booking = book_a_car(desk, ALICE, key="k")
    desk.cancel_booking("alice", booking)
    assert book_a_car(desk, ALICE, key="k") != booking


def test_concurrent_retries_of_one_booking_book_once(desk: TravelDesk) -> None:
    hotel = first_available(desk.search_hotels("Oslo", days_ahead(3), days_ahead(4), None), "HT")
    barrier = threading.Barrier(4)
    results: list[str] = []

    def book() -> None:
        barrier.wait()
        results.append(
            desk.book_hotel(
                ALICE, hotel_id=hotel, check_in=days_ahead(3), check_out=days_ahead(4),
                idempotency_key="double-click",
            )
        )  # fmt: skip

    threads = [threading.Thread(target=book) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(r.startswith("Booked") for r in results) == 1
    assert desk.list_my_bookings("alice").count("BK-") == 1
