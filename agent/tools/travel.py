"""The LangChain tools bound to the model, built around one :class:`TravelDesk`.

The user id reaches every tool from the run context (``runtime: ToolRuntime`` is injected by
the graph's ToolNode and hidden from the schema the model sees), never from an argument the
model fills: a model cannot book, read or cancel on someone else's behalf. A tool that cannot
serve its arguments answers with the reason as its result (``handle_tool_error``), so the model
can correct itself and the run goes on.
"""

from __future__ import annotations

from langchain_core.tools import BaseTool, tool
from langgraph.prebuilt import ToolRuntime

from agent.context import Context, Conversation, resolve_context
from agent.tools.desk import TravelDesk


def build_travel_tools(desk: TravelDesk) -> list[BaseTool]:
    """Every travel tool, bound to ``desk``."""

    def caller(runtime: ToolRuntime[Context]) -> Conversation:
        return resolve_context(runtime.context, runtime.config)

    @tool(parse_docstring=True)
    def list_destinations(country: str | None = None) -> str:
        """List the cities this assistant can book travel to, with their airport codes.

        Args:
            country: only cities in this country (optional).
        """
        return desk.list_destinations(country)

    @tool(parse_docstring=True)
    def search_flights(origin: str, destination: str, date: str, cabin: str = "economy") -> str:
        """Search flights for one day; returns the cheapest offers with their ids.

        Args:
            origin: departure city name or IATA code, e.g. "Berlin" or "BER".
            destination: arrival city name or IATA code.
            date: departure date, YYYY-MM-DD.
            cabin: economy, premium_economy, business or first.
        """
        return desk.search_flights(origin, destination, date, cabin)

    @tool(parse_docstring=True)
    def book_flight(
        offer_id: str,
        runtime: ToolRuntime[Context],
        passengers: int = 1,
        idempotency_key: str | None = None,
    ) -> str:
        """Book a flight offer returned by search_flights.

        Args:
            offer_id: the offer id (FL-…) from search_flights.
            passengers: number of passengers, 1 to 9.
            idempotency_key: optional; repeating a key returns the first booking instead of
                booking again.
        """
        return desk.book_flight(
            caller(runtime),
            offer_id=offer_id,
            passengers=passengers,
            idempotency_key=idempotency_key,
        )

    @tool(parse_docstring=True)
    def search_hotels(
        city: str, check_in: str, check_out: str, max_price_per_night: float | None = None
    ) -> str:
        """Search hotels in a city for a stay; returns the cheapest with ids and prices.

        Args:
            city: city name or IATA code.
            check_in: YYYY-MM-DD.
            check_out: YYYY-MM-DD, after check_in.
            max_price_per_night: optional upper limit in EUR.
        """
        return desk.search_hotels(city, check_in, check_out, max_price_per_night)

    @tool(parse_docstring=True)
    def book_hotel(
        hotel_id: str,
        check_in: str,
        check_out: str,
        runtime: ToolRuntime[Context],
        rooms: int = 1,
        idempotency_key: str | None = None,
    ) -> str:
        """Book rooms in a hotel returned by search_hotels.

        Args:
            hotel_id: the hotel id (HT-…) from search_hotels.
            check_in: YYYY-MM-DD.
            check_out: YYYY-MM-DD, after check_in.
            rooms: number of rooms, 1 to 9.
            idempotency_key: optional; repeating a key returns the first booking.
        """
        return desk.book_hotel(
            caller(runtime),
            hotel_id=hotel_id,
            check_in=check_in,
            check_out=check_out,
            rooms=rooms,
            idempotency_key=idempotency_key,
        )

    @tool(parse_docstring=True)
    def search_cars(city: str, pick_up: str, drop_off: str, car_class: str | None = None) -> str:
        """Search rental cars in a city; returns the cheapest offers with ids and prices.

        Args:
            city: city name or IATA code.
            pick_up: YYYY-MM-DD.
            drop_off: YYYY-MM-DD, after pick_up.
            car_class: optional: economy, compact, midsize, suv, luxury or van.
        """
        return desk.search_cars(city, pick_up, drop_off, car_class)

    @tool(parse_docstring=True)
    def rent_car(
        offer_id: str,
        pick_up: str,
        drop_off: str,
        runtime: ToolRuntime[Context],
        idempotency_key: str | None = None,
    ) -> str:
        """Rent a car offer returned by search_cars.

        Args:
            offer_id: the offer id (CR-…) from search_cars.
            pick_up: YYYY-MM-DD.
            drop_off: YYYY-MM-DD, after pick_up.
            idempotency_key: optional; repeating a key returns the first booking.
        """
        return desk.rent_car(
            caller(runtime),
            offer_id=offer_id,
            pick_up=pick_up,
            drop_off=drop_off,
            idempotency_key=idempotency_key,
        )

    @tool(parse_docstring=True)
    def get_booking(booking_id: str, runtime: ToolRuntime[Context]) -> str:
        """Show one of the user's bookings.

        Args:
            booking_id: the booking id (BK-…).
        """
        return desk.get_booking(caller(runtime).user_id, booking_id)

    @tool
    def list_my_bookings(runtime: ToolRuntime[Context]) -> str:
        """List all of the user's bookings."""
        return desk.list_my_bookings(caller(runtime).user_id)

    @tool(parse_docstring=True)
    def cancel_booking(booking_id: str, runtime: ToolRuntime[Context]) -> str:
        """Cancel one of the user's bookings.

        Args:
            booking_id: the booking id (BK-…).
        """
        return desk.cancel_booking(caller(runtime).user_id, booking_id)

    tools: list[BaseTool] = [
        list_destinations,
        search_flights,
        book_flight,
        search_hotels,
        book_hotel,
        search_cars,
        rent_car,
        get_booking,
        list_my_bookings,
        cancel_booking,
    ]
    for each in tools:
        each.handle_tool_error = True  # ToolInputError → the message is the tool's result
    return tools
