"""The generated history: which documents, devices and saves does a benchmark container hold, and
how are they written as `git fast-import` input?

The history: one save adding every document, then rounds in which each of the N devices saves on
its own branch (different documents within a round) and an integration commit joins them, as
docver does when devices sync; then every device's branch diverges (--diverge saves each, on
documents of its own) with --conflicts documents edited on two devices. Device 0's container
holds its branch at refs/heads/docver/dev0 (HEAD) and the other devices' branches at
refs/remotes/origin/docver/devN, as if fetched.

Every save is a docver-shaped commit: subject, `modified: path` body, device trailers,
`<Name> <id@docver>` authors, increasing dates.
"""

import random

EPOCH = 1_672_531_200  # 2023-01-01: generated saves are dated from here, 30 s apart


class Layout:
    """Documents under nested folders: d00/d03/doc0345.txt (100 per folder, 10 folders per top)."""

    def __init__(self, documents):
        self.count = documents
        width = max(4, len(str(documents - 1)))
        self.paths = [f"d{i // 1000:02d}/d{(i // 100) % 10:02d}/doc{i:0{width}d}.txt" for i in range(documents)]


def device_id(index):
    return f"dev{index}"


def device_name(index):
    return f"Device {index}"


class History:
    """Plans and streams a docver-shaped history into `git fast-import`."""

    ROUND_SAVES_PER_DEVICE = 25
    HOT_DOCUMENTS = 50
    HOT_SHARE = 0.10

    def __init__(self, documents, saves, devices, diverge, conflicts, seed=6):
        self.layout = Layout(documents)
        self.documents = documents
        self.devices = devices
        self.diverge = min(diverge, saves // devices)
        self.shared = saves - devices * self.diverge
        self.saves = saves
        self.rng = random.Random(seed)
        self.pool = self._line_pool(4096)
        # Often-edited documents: ~40 saves each over the shared history (for the log case).
        hot = min(self.HOT_DOCUMENTS, documents // 10, max(1, int(self.shared * self.HOT_SHARE / 40)))
        self.hot = list(range(hot))
        # Documents edited on two devices after divergence: not hot, spread over the folders.
        candidates = [d for d in range(len(self.hot), documents)]
        self.rng.shuffle(candidates)
        conflicts = min(conflicts, self.diverge * devices // 2, len(candidates) // 4)
        self.conflict_docs = sorted(candidates[:conflicts])
        exclusive = candidates[conflicts:]
        self.exclusive = [exclusive[d::devices] for d in range(devices)]
        self.log_document = self.layout.paths[self.hot[0]] if self.hot else self.layout.paths[0]
        self.mark = 0
        self.time = EPOCH
        self.revision = [0] * documents

    def _line_pool(self, size):
        letters = "abcdefghijklmnopqrstuvwxyz"
        pool = []
        for _ in range(size):
            words = []
            length = 0
            while length < 62:
                word = "".join(self.rng.choice(letters) for _ in range(self.rng.randint(2, 9)))
                words.append(word)
                length += len(word) + 1
            pool.append(" ".join(words)[:63] + "\n")
        return pool

    def _content(self, doc, device):
        self.revision[doc] += 1
        header = f"{self.layout.paths[doc]}\nrevision {self.revision[doc]} saved on {device_id(device)}\n\n"
        return (header + "".join(self.rng.choices(self.pool, k=30))).encode()

    def _next_mark(self):
        self.mark += 1
        return self.mark

    def _tick(self):
        self.time += 30
        return self.time

    @staticmethod
    def _data(payload):
        return b"data %d\n" % len(payload) + payload + b"\n"

    def _blob(self, out, payload):
        mark = self._next_mark()
        out.append(b"blob\nmark :%d\n" % mark + self._data(payload))
        return mark

    def _commit(self, out, ref, identity, message, parents, files, when=None):
        mark = self._next_mark()
        when = when or self._tick()
        head = (f"commit {ref}\nmark :{mark}\nauthor {identity} {when} +0000\n"
                f"committer {identity} {when} +0000\n").encode()
        lines = [head, self._data(message.encode())]
        if parents:
            lines.append(b"from :%d\n" % parents[0])
            for parent in parents[1:]:
                lines.append(b"merge :%d\n" % parent)
        for path, blob in files:
            lines.append(f"M 100644 :{blob} {path}\n".encode())
        out.append(b"".join(lines))
        return mark

    @staticmethod
    def _identity(device):
        return f"{device_name(device)} <{device_id(device)}@docver>"

    @staticmethod
    def _ref(device):
        return f"refs/heads/docver/{device_id(device)}" if device == 0 else f"refs/remotes/origin/docver/{device_id(device)}"

    def _save(self, out, device, doc, parent):
        blob = self._blob(out, self._content(doc, device))
        path = self.layout.paths[doc]
        message = (f"Save {path}\n\nmodified: {path}\n\n"
                   f"Docver-Device: {device_id(device)}\nDocver-Device-Name: {device_name(device)}\n")
        return self._commit(out, self._ref(device), self._identity(device), message, [parent],
                            [(path, blob)]), blob

    def stream(self, sink, extra_saves=None):
        """Writes the whole import to `sink` (a binary file) in chunks."""
        out = []

        def flush(force=False):
            if force or len(out) > 2000:
                sink.write(b"".join(out))
                out.clear()

        out.append(b"feature done\n")
        # The first save: every document.
        blobs = [self._blob(out, self._content(doc, 0)) for doc in range(self.documents)]
        flush()
        body = "".join(f"added: {p}\n" for p in self.layout.paths)
        message = (f"Save {self.documents} documents\n\n{body}\n"
                   f"Docver-Device: {device_id(0)}\nDocver-Device-Name: {device_name(0)}\n")
        root = self._commit(out, self._ref(0), self._identity(0), message, [],
                            list(zip(self.layout.paths, blobs)))
        flush(True)

        # Shared history: rounds of per-device saves joined by integration commits.
        per_round = self.ROUND_SAVES_PER_DEVICE * self.devices
        rounds = max(1, round(self.shared / per_round)) if self.shared >= self.devices else 0
        base = root
        done = 0
        for number in range(rounds):
            count = (self.shared - done) // (rounds - number)
            done += count
            tips = {}
            owner = {}
            last_blob = {}
            for index in range(count):
                device = index % self.devices
                for _ in range(100):
                    doc = (self.rng.choice(self.hot) if self.hot and self.rng.random() < self.HOT_SHARE
                           else self.rng.randrange(self.documents))
                    if owner.get(doc, device) == device:
                        break
                owner[doc] = device
                tips[device], last_blob[doc] = self._save(out, device, doc, tips.get(device, base))
                flush()
            if len(tips) > 1:
                devices = sorted(tips)
                first = devices[0]
                files = [(self.layout.paths[doc], last_blob[doc]) for doc, dev in sorted(owner.items()) if dev != first]
                message = f"Integrate saves from {len(devices)} heads\n\nDocver-Integration: 1\n"
                base = self._commit(out, self._ref(0), "docver <docver@docver>", message,
                                    [tips[d] for d in devices], files, when=self.time)
            elif tips:
                base = next(iter(tips.values()))
            flush()

        # Divergence: each device saves on documents of its own, plus the shared conflict documents.
        plans = []
        for device in range(self.devices):
            plans.append([])
        pairs = []
        for doc in self.conflict_docs:
            first, second = self.rng.sample(range(self.devices), 2)
            pairs.append((doc, first, second))
            plans[first].append(doc)
            plans[second].append(doc)
        for device in range(self.devices):
            while len(plans[device]) < self.diverge:
                plans[device].append(self.rng.choice(self.exclusive[device]))
            self.rng.shuffle(plans[device])
        self.divergence_base = base
        tips = {device: base for device in range(self.devices)}
        for step in range(max(len(plan) for plan in plans)):
            for device in range(self.devices):
                if step < len(plans[device]):
                    tips[device], _ = self._save(out, device, plans[device][step], tips[device])
            flush()
        self.pairs = pairs
        out.append(b"done\n")
        flush(True)

    def expected_conflicts(self):
        return {self.layout.paths[doc] for doc, _, _ in self.pairs}
