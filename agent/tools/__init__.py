"""The travel tools: an embedded inventory, a bookings table, and the tools over them."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import date
from pathlib import Path

from agent.tools.bookings import BookingStore
from agent.tools.desk import TravelDesk
from agent.tools.inventory import Inventory
from agent.tools.travel import build_travel_tools

__all__ = ["BookingStore", "Inventory", "TravelDesk", "build_travel_tools", "open_travel_desk"]


@contextmanager
def open_travel_desk(
    bookings_path: Path, today: Callable[[], date] = date.today
) -> Iterator[TravelDesk]:
    """A travel desk over the bookings file; closed on exit."""
    store = BookingStore(bookings_path)
    try:
        yield TravelDesk(Inventory(), store, today)
    finally:
        store.close()
