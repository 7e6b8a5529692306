"""The bookings table: who booked what, kept in SQLite in the data directory.

Every query that reads or changes a booking is scoped by its owner, so another user's booking
is indistinguishable from one that does not exist. Creating a booking checks availability and
inserts in one ``BEGIN IMMEDIATE`` transaction, which serialises writers across threads and
processes, so two concurrent bookings can neither oversell the last seat nor both succeed under
one idempotency key.
"""

from __future__ import annotations

import sqlite3
import uuid
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from agent.errors import ToolInputError
from agent.persistence.sqlite_files import SqliteFile

_MIGRATIONS = {
    1: """
    CREATE TABLE IF NOT EXISTS bookings (
        booking_id      TEXT PRIMARY KEY,
        user_id         TEXT NOT NULL,
        conversation_id TEXT NOT NULL,
        kind            TEXT NOT NULL CHECK (kind IN ('flight', 'hotel', 'car')),
        offer_id        TEXT NOT NULL,
        start_date      TEXT NOT NULL,
        end_date        TEXT NOT NULL,
        quantity        INTEGER NOT NULL CHECK (quantity > 0),
        total_price     INTEGER NOT NULL CHECK (total_price >= 0),
        currency        TEXT NOT NULL,
        summary         TEXT NOT NULL,
        status          TEXT NOT NULL CHECK (status IN ('confirmed', 'cancelled')),
        idempotency_key TEXT NOT NULL,
        created_at      TEXT NOT NULL,
        cancelled_at    TEXT
    );
    CREATE UNIQUE INDEX IF NOT EXISTS bookings_owner_key ON bookings (user_id, idempotency_key);
    CREATE INDEX IF NOT EXISTS bookings_offer ON bookings (offer_id, status);
    CREATE INDEX IF NOT EXISTS bookings_owner ON bookings (user_id, created_at);
    """,
}


@dataclass(frozen=True)
class Booking:
    booking_id: str
    user_id: str
    conversation_id: str
    kind: str
    offer_id: str
    start_date: date
    end_date: date
    quantity: int
    total_price: int
    currency: str
    summary: str
    status: str
    created_at: str


@dataclass(frozen=True)
class BookingRequest:
    """Everything needed to book one offer; ``capacity`` is the offer's per-day supply."""

    user_id: str
    conversation_id: str
    kind: str
    offer_id: str
    start_date: date
    end_date: date  # exclusive: a flight uses (day, day + 1)
    quantity: int
    total_price: int
    currency: str
    summary: str
    capacity: int
    idempotency_key: str


class BookingStore:
    """Bookings in one SQLite file, safe to share between threads and processes."""

    def __init__(self, path: Path) -> None:
        self._file = SqliteFile(path, "bookings", _MIGRATIONS)
        self._conn = self._file.conn
        self._lock = self._file.lock
        self._transaction = self._file.transaction

    def close(self) -> None:
        self._file.close()

    def create(self, request: BookingRequest) -> tuple[Booking, bool]:
        """Book, or return the booking this idempotency key already made (``created=False``)."""
        with self._transaction() as conn:
            existing = conn.execute(
                "SELECT * FROM bookings WHERE user_id = ? AND idempotency_key = ?",
                (request.user_id, request.idempotency_key),
            ).fetchone()
            if existing is not None:
                return _booking(existing), False
            left = request.capacity - _peak_use(
                conn, request.offer_id, request.start_date, request.end_date
            )
            if left < request.quantity:
                raise ToolInputError(
                    f"{request.offer_id} is sold out for those dates"
                    if left <= 0
                    else f"{request.offer_id} has only {left} left for those dates"
                )
            booking_id = "BK-" + uuid.uuid4().hex[:10].upper()
            conn.execute(
                "INSERT INTO bookings VALUES (?,?,?,?,?,?,?,?,?,?,?,'confirmed',?,?,NULL)",
                (
                    booking_id,
                    request.user_id,
                    request.conversation_id,
                    request.kind,
                    request.offer_id,
                    request.start_date.isoformat(),
                    request.end_date.isoformat(),
                    request.quantity,
                    request.total_price,
                    request.currency,
                    request.summary,
                    request.idempotency_key,
                    datetime.now(UTC).isoformat(timespec="seconds"),
                ),
            )
            row = conn.execute("SELECT * FROM bookings WHERE booking_id = ?", (booking_id,))
            return _booking(row.fetchone()), True

    def get(self, user_id: str, booking_id: str) -> Booking | None:
        """The user's booking, or None — also when it belongs to someone else."""
        with self._lock:
            row = self._conn.execute(
                "SELECT * FROM bookings WHERE booking_id = ? AND user_id = ?",
                (booking_id.strip().upper(), user_id),
            ).fetchone()
        return _booking(row) if row else None

    def list(self, user_id: str) -> list[Booking]:
        with self._lock:
            rows = self._conn.execute(
                "SELECT * FROM bookings WHERE user_id = ? ORDER BY created_at, booking_id",
                (user_id,),
            ).fetchall()
        return [_booking(row) for row in rows]

    def cancel(self, user_id: str, booking_id: str) -> Booking | None:
        """Cancel the user's booking; None when the user has no such booking."""
        with self._transaction() as conn:
            updated = conn.execute(
                # the key is retired so that the same request may book again later
                "UPDATE bookings SET status = 'cancelled', cancelled_at = ?, "
                "idempotency_key = idempotency_key || ':cancelled:' || booking_id "
                "WHERE booking_id = ? AND user_id = ? AND status = 'confirmed'",
                (
                    datetime.now(UTC).isoformat(timespec="seconds"),
                    booking_id.strip().upper(),
                    user_id,
                ),
            )
            if updated.rowcount == 0:
                row = conn.execute(
                    "SELECT * FROM bookings WHERE booking_id = ? AND user_id = ?",
                    (booking_id.strip().upper(), user_id),
                ).fetchone()
                return _booking(row) if row else None
            row = conn.execute(
                "SELECT * FROM bookings WHERE booking_id = ?", (booking_id.strip().upper(),)
            ).fetchone()
            return _booking(row)

    def delete_user(self, user_id: str) -> int:
        """Remove every booking of a user (forget-me); returns how many were removed."""
        with self._transaction() as conn:
            return conn.execute("DELETE FROM bookings WHERE user_id = ?", (user_id,)).rowcount

    def used(self, offer_id: str, start: date, end: date) -> int:
        """The most units of an offer booked on any day in ``[start, end)``."""
        with self._lock:
            return _peak_use(self._conn, offer_id, start, end)


def _peak_use(conn: sqlite3.Connection, offer_id: str, start: date, end: date) -> int:
    """The most units of an offer booked on any one day in ``[start, end)``."""
    rows = conn.execute(
        "SELECT start_date, end_date, quantity FROM bookings "
        "WHERE offer_id = ? AND status = 'confirmed' AND start_date < ? AND end_date > ?",
        (offer_id, end.isoformat(), start.isoformat()),
    ).fetchall()
    peak = 0
    day = start
    while day < end:
        text = day.isoformat()
        peak = max(
            peak, sum(r["quantity"] for r in rows if r["start_date"] <= text < r["end_date"])
        )
        day += timedelta(days=1)
    return peak


def _booking(row: sqlite3.Row) -> Booking:
    return Booking(
        booking_id=row["booking_id"],
        user_id=row["user_id"],
        conversation_id=row["conversation_id"],
        kind=row["kind"],
        offer_id=row["offer_id"],
        start_date=date.fromisoformat(row["start_date"]),
        end_date=date.fromisoformat(row["end_date"]),
        quantity=row["quantity"],
        total_price=row["total_price"],
        currency=row["currency"],
        summary=row["summary"],
        status=row["status"],
        created_at=row["created_at"],
    )
