"""``make services``: start PostgreSQL, Redis Stack and the MongoDB stand-in for manual use.

Prints the URLs to export, then keeps the servers running until Ctrl-C (or SIGTERM), and
stops every one of them on the way out.
"""

from __future__ import annotations

import signal
import sys
import threading
from contextlib import ExitStack, suppress

from tests.services.servers import mongo_standin, postgres_database, redis_stack


def main() -> int:
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    with ExitStack() as stack:
        postgres = stack.enter_context(postgres_database())
        redis = stack.enter_context(redis_stack())
        mongo = stack.enter_context(mongo_standin())
        print("# services are up; Ctrl-C stops them. Use one of:")
        print(f"export AGENT_CHECKPOINTER_URL='{postgres}'")
        print(f"export AGENT_CHECKPOINTER_URL='{redis}'")
        print(f"export AGENT_MEMORY_STORE_URL='{mongo}'  # MongoDB stand-in (mongoeco)")
        sys.stdout.flush()
        with suppress(KeyboardInterrupt):
            stop.wait()
    print("# services stopped", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
