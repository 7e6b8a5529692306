"""``make bench``: token cost, memory overhead and retrieval quality, measured."""
