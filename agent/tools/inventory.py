"""The embedded travel inventory: cities the assistant serves, with their IATA codes.

Deterministic and shipped with the package, so searches give the same answer on every machine.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class City:
    """A served city and its main airport."""

    iata: str
    name: str
    country: str


CITIES: tuple[City, ...] = (
    City("AMS", "Amsterdam", "Netherlands"),
    City("ATH", "Athens", "Greece"),
    City("BCN", "Barcelona", "Spain"),
    City("BER", "Berlin", "Germany"),
    City("BKK", "Bangkok", "Thailand"),
    City("BOS", "Boston", "United States"),
    City("CDG", "Paris", "France"),
    City("CPH", "Copenhagen", "Denmark"),
    City("DEL", "Delhi", "India"),
    City("DUB", "Dublin", "Ireland"),
    City("DXB", "Dubai", "United Arab Emirates"),
    City("FCO", "Rome", "Italy"),
    City("GRU", "Sao Paulo", "Brazil"),
    City("HKG", "Hong Kong", "China"),
    City("HND", "Tokyo", "Japan"),
    City("IST", "Istanbul", "Turkey"),
    City("JFK", "New York", "United States"),
    City("LHR", "London", "United Kingdom"),
    City("LAX", "Los Angeles", "United States"),
    City("LIS", "Lisbon", "Portugal"),
    City("MAD", "Madrid", "Spain"),
    City("MEX", "Mexico City", "Mexico"),
    City("MUC", "Munich", "Germany"),
    City("OSL", "Oslo", "Norway"),
    City("PRG", "Prague", "Czechia"),
    City("SFO", "San Francisco", "United States"),
    City("SIN", "Singapore", "Singapore"),
    City("SYD", "Sydney", "Australia"),
    City("VIE", "Vienna", "Austria"),
    City("WAW", "Warsaw", "Poland"),
    City("YYZ", "Toronto", "Canada"),
    City("ZRH", "Zurich", "Switzerland"),
)
