"""Which tool the offline model calls for a clear travel request, and with what arguments.

Only tools that are actually bound to the model are called, exactly as a real model can only
call the tools it was given.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

ToolIntent = tuple[str, dict[str, Any]]
_Matcher = Callable[[str, str], dict[str, Any] | None]

_LIST_DESTINATIONS = re.compile(
    r"\b(?:which|what) (?:cities|destinations|places)\b|\bwhere can (?:i|you) (?:fly|travel|go)\b",
    re.IGNORECASE,
)
_IN_COUNTRY = re.compile(r"\bin ([A-Z][A-Za-z ]+?)[?.!]*$")


def _list_destinations(question: str, memories: str) -> dict[str, Any] | None:
    if not _LIST_DESTINATIONS.search(question):
        return None
    country = _IN_COUNTRY.search(question)
    return {"country": country.group(1).strip()} if country else {}


# tool name -> matcher(question, system prompt text) -> arguments, or None if no match
_MATCHERS: dict[str, _Matcher] = {
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
