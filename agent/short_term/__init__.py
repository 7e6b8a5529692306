"""Short-term memory: which recent messages of a conversation are kept and resent.

The policies here decide what stays in the kept history (the checkpoint), not only what goes
into one request, so that both cost and storage stay flat however long a conversation runs.
"""

from agent.short_term.window import (
    MessageWindow,
    TokenBudget,
    WindowPolicy,
    build_window_policy,
    plan_trim,
)

__all__ = ["MessageWindow", "TokenBudget", "WindowPolicy", "build_window_policy", "plan_trim"]
