"""The latency measure shared by docver's agents and Syncthing: seconds from the last write of
a document in one folder to its contents in another."""

import os
import random
import time


def arrivals(source, target, edits, delay):
    """Writes `edits` documents under `source`/latency, one at a time, each after a pause of
    `delay` + 1–2 s (so each starts from an idle pair: right after an arrival a sync may be due
    anyway, which would flatter the figure), and returns the seconds each took to appear, with
    the same contents, under `target`."""
    rng = random.Random(2)
    samples = []
    for edit in range(edits):
        time.sleep(delay + 1 + rng.random())
        name = f"latency/doc{rng.randrange(20):02d}.txt"
        text = f"edit {edit} {rng.random()} {time.time()}\n"
        os.makedirs(os.path.join(source, "latency"), exist_ok=True)
        with open(os.path.join(source, name), "w") as handle:
            handle.write(text)
        written = time.perf_counter()
        while True:
            try:
                with open(os.path.join(target, name)) as handle:
                    if handle.read() == text:
                        break
            except FileNotFoundError:
                pass
            if time.perf_counter() - written > 120:
                raise RuntimeError(f"edit {edit} did not arrive within 120 s")
            time.sleep(0.005)
        samples.append(time.perf_counter() - written)
    return samples
