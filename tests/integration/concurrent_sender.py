"""Run as a process by the concurrency test: N threads send to one conversation at once.

Usage: python -m tests.integration.concurrent_sender URL DATA_DIR CONVERSATION PREFIX COUNT
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path

from agent.app import TravelAgent
from agent.settings import Settings


def main(url: str, data_dir: str, conversation: str, prefix: str, count: int) -> int:
    settings = Settings(
        model="offline",
        checkpointer_url=url,
        data_dir=Path(data_dir),
        long_term_memory=False,
        max_messages=1000,
        conversation_lock_timeout=120,
    )
    start = threading.Barrier(count)
    errors: list[BaseException] = []

    with TravelAgent.open(settings) as agent:

        def send(n: int) -> None:
            start.wait()  # every thread sends at the same moment
            try:
                agent.send(f"{prefix}-{n}", user_id="alice", conversation_id=conversation)
            except BaseException as exc:  # reported to the test through the exit code
                errors.append(exc)

        threads = [threading.Thread(target=send, args=(n,)) for n in range(count)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    for error in errors:
        print(f"error: {error!r}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    url, data_dir, conversation, prefix, count = sys.argv[1:6]
    sys.exit(main(url, data_dir, conversation, prefix, int(count)))
