"""The travel tools the model can call. The run_tools node executes them."""

from __future__ import annotations

from langchain_core.tools import BaseTool, tool

from agent.tools.inventory import CITIES


@tool
def list_destinations(country: str | None = None) -> str:
    """List the cities this assistant can book travel to, with their airport codes.

    Args:
        country: only cities in this country (optional).
    """
    cities = [c for c in CITIES if country is None or c.country.lower() == country.lower()]
    if not cities:
        return f"No served cities in {country!r}."
    return "Served cities: " + ", ".join(f"{c.name} ({c.iata})" for c in cities)


def travel_tools() -> list[BaseTool]:
    """Every tool bound to the model."""
    return [list_destinations]
