"""Graph entry points named by langgraph.json."""
