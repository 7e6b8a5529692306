"""What ``langgraph.json`` points at when the agent runs under ``langgraph dev`` or a server."""
