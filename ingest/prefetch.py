"""Making the next item on another thread while the caller uses this one.

Ingest stages chunk k+1 (DuckDB parses it, releasing the GIL) while chunk k
commits, which is mostly single-threaded work inside DuckDB.  Only one item
is made ahead, so at most two are held in memory.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from typing import TypeVar

T = TypeVar("T")


def prefetched(items: Iterator[T]) -> Iterator[T]:
    """Yield items in order, each made on a worker thread while the previous one is used.

    An exception raised while making an item is raised here, in its place.
    Closing the generator early stops the worker before it makes another item.
    """
    handoff: queue.Queue[tuple[str, object]] = queue.Queue(maxsize=1)
    may_make = threading.Semaphore(1)  # one item made ahead of the caller, no more
    stopped = threading.Event()

    def work() -> None:
        try:
            while True:
                may_make.acquire()
                if stopped.is_set():
                    return
                try:
                    item = next(items)
                except StopIteration:
                    handoff.put(("end", None))
                    return
                handoff.put(("item", item))
        except BaseException as exc:  # handed to the caller, raised there
            handoff.put(("error", exc))

    worker = threading.Thread(target=work, name="ingest-stage", daemon=True)
    worker.start()
    try:
        while True:
            kind, value = handoff.get()
            if kind == "end":
                return
            if kind == "error":
                raise value  # type: ignore[misc]
            may_make.release()
            yield value  # type: ignore[misc]
    finally:
        stopped.set()
        may_make.release()
        while worker.is_alive():
            try:
                handoff.get(timeout=0.05)
            except queue.Empty:
                pass
        worker.join()
        close = getattr(items, "close", None)
        if close is not None:
            close()  # the worker has ended: the generator is ours to close now
