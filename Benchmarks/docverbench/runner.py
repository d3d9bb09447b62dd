"""The run: what happens in a benchmark run, in which order? `Bench` holds the arguments, the
results and the correctness checks; it builds docver, generates the containers, runs the cases
(cases.py) in turn and prints the report (report.py). Its helpers `alternate`, `rounds`,
`record` and `check` are what the cases time and report with."""

import json
import os
import shutil
import statistics
import subprocess
import time
from pathlib import Path

from . import REPO, report
from .cases import (bench_big, bench_storage, bench_conflicts, bench_log, bench_save, bench_startup, bench_status,
                    bench_sync, integrate)
from .commands import log, run
from .containers import copy_container, generate_container
from .history import History
from .report import a_fmt, machine_description


class Bench:
    def __init__(self, args):
        self.args = args
        self.work = Path(args.work).resolve()
        self.results = {}     # case key -> dict
        self.checks = []      # (description, passed, detail)
        self.notes = []

    # -- helpers ------------------------------------------------------------------------------

    def docver(self, *arguments):
        return [self.binary, *arguments]

    def record(self, key, label, docver=None, git=None, git_label=None, goal=None, unit="ms", extra=None,
               reference=None, reference_git=None):
        entry = {"label": label, "git_label": git_label, "goal": goal, "unit": unit}
        if reference:
            entry["reference"] = [s.seconds for s in reference]
        if reference_git:
            entry["reference_git"] = [s.seconds for s in reference_git]
        if docver is not None:
            entry["docver"] = [s.seconds for s in docver]
        if git is not None:
            entry["git"] = [s.seconds for s in git]
        if extra:
            entry.update(extra)
        self.results[key] = entry
        d = statistics.median(entry["docver"]) * 1000 if docver else None
        g = statistics.median(entry["git"]) * 1000 if git else None
        log(f"{label}: docver {d:.1f} ms" + (f", git {g:.1f} ms, ratio {d / g:.2f}" if g else ""))

    def check(self, description, passed, detail=""):
        self.checks.append((description, bool(passed), detail))
        log(f"check {'ok  ' if passed else 'FAIL'} {description} {detail}")
        if not passed and self.args.strict:
            raise SystemExit(f"check failed: {description} {detail}")

    def rounds(self, reps, steps):
        """Runs named steps in turn, `reps` times: [(name, prepare(rep) or None, step(rep))]."""
        samples = {name: [] for name, _, _ in steps}
        for rep in range(reps):
            for name, prepare, step in steps:
                if prepare:
                    prepare(rep)
                samples[name].append(step(rep))
        return samples

    def alternate(self, reps, docver_step, git_step=None, prepare=None):
        """Runs docver and git repetitions alternately (so background load hits both alike)."""
        d, g = [], []
        for rep in range(reps):
            if prepare:
                prepare(rep, "docver")
            d.append(docver_step(rep))
            if git_step:
                if prepare:
                    prepare(rep, "git")
                g.append(git_step(rep))
        return d, (g if git_step else None)

    # -- build and generate ---------------------------------------------------------------------

    def build(self):
        if self.args.docver:
            self.binary = str(Path(self.args.docver).resolve())
            self.results["_machine"]["source"] = self.args.source or f"the binary {self.binary}"
            return
        commit = run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, check=False).strip() or "?"
        dirty = run(["git", "status", "--porcelain", "--", "Sources", "Package.swift"], cwd=REPO, check=False).strip()
        self.results["_machine"]["source"] = self.args.source or (
            f"commit {commit}" + (" with uncommitted changes in Sources/" if dirty else ""))
        # As Examples/quickstart.sh builds it: the static Swift runtime halves start-up.
        log("building docver (swift build -c release --static-swift-stdlib --product docver)")
        run(["swift", "build", "-c", "release", "--static-swift-stdlib", "--product", "docver"], cwd=REPO, capture=True)
        bin_path = run(["swift", "build", "-c", "release", "--show-bin-path"], cwd=REPO).strip()
        self.binary = str(Path(bin_path) / "docver")

    def make_history(self, saves):
        a = self.args
        return History(a.documents, saves, a.devices, a.diverge, a.conflicts, seed=a.seed)

    def generate(self, name, saves):
        history = self.make_history(saves)
        path = self.work / name
        log(f"generating {name}: {a_fmt(self.args.documents)} documents, {a_fmt(saves)} saves, "
            f"{self.args.devices} devices, {history.diverge} saves each after divergence")
        imported, total = generate_container(path, history)
        commits = int(run(["git", "rev-list", "--all", "--count"], cwd=path))
        pack = sum(f.stat().st_size for f in (path / ".git" / "objects" / "pack").glob("*.pack"))
        log(f"  {name}: {commits} commits, pack {pack / 1e6:.0f} MB; fast-import {imported:.1f} s, "
            f"with checkout {total:.1f} s")
        self.results.setdefault("_generation", {})[name] = {
            "saves": saves, "commits": commits, "pack_mb": round(pack / 1e6, 1),
            "fast_import_s": round(imported, 1), "total_s": round(total, 1)}
        status = json.loads(run(self.docver("status", "--json"), cwd=path))
        self.check(f"{name}: docver sees the generated container as saved (no changes, no conflicts)",
                   not status["changed"] and not status["inConflict"], f"{len(status['changed'])} changed")
        return path, history

    # -- around each case (the cases themselves are in cases.py) --------------------------------

    def guard(self, case, body):
        """Runs one case; a failure is reported (table and checks) and the run goes on."""
        try:
            body()
        except Exception as error:  # noqa: BLE001
            message = str(error).strip().splitlines()
            self.check(f"case '{case}' ran to the end", False, " / ".join(message[:3])[:400])
            self.results.setdefault("_failed", {})[case] = " / ".join(message[:3])[:400]
            if self.args.strict:
                raise

    def fsck(self, directory, label):
        fsck = subprocess.run(["git", "fsck", "--strict", "--no-progress"], cwd=directory,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.check(f"{label}: `git fsck --strict` is clean", fsck.returncode == 0, fsck.stdout.strip()[-500:])

    # -- the run --------------------------------------------------------------------------------

    def main(self):
        a = self.args
        self.work.mkdir(parents=True, exist_ok=True)
        self.results["_machine"] = machine_description()
        self.results["_parameters"] = {k: v for k, v in vars(a).items() if k not in ("write_docs",)}
        self.build()
        self.results["_machine"]["docver"] = run([self.binary, "--version"]).strip()
        started = time.time()
        cases = set(a.cases.split(",")) if a.cases else None

        def wanted(case):
            return cases is None or case in cases

        if wanted("startup"):
            bench_startup(self)

        main_dir, history = self.generate("main", a.saves)
        expected = history.expected_conflicts()
        integrated = integrate(self, main_dir, "main", max(3, a.reps - 2), expected, history)
        self.guard("conflicts", lambda: bench_conflicts(
            self, integrated, "conflicts", f"`docver conflicts`, {len(expected)} documents in conflict", a.reps))
        self.fsck(integrated, "main case after `docver integrate`")

        docver_dir = self.work / "main-docver"
        git_dir = self.work / "main-git"
        copy_container(integrated, docver_dir)
        copy_container(integrated, git_dir)
        self.guard("status", lambda: bench_status(self, docver_dir, git_dir, history, "", "", a.reps))
        if wanted("log"):
            self.guard("log", lambda: bench_log(self, docver_dir, git_dir, history, a.reps))
        self.guard("save", lambda: bench_save(self, docver_dir, git_dir, history, "", "", a.reps))
        self.fsck(docver_dir, "main case at the end (after the saves)")
        if wanted("sync"):
            self.guard("sync", lambda: bench_sync(self, integrated, history, a.reps))
        if wanted("big"):
            self.guard("big", lambda: bench_big(self, docver_dir, git_dir, a.reps))
        if wanted("storage"):
            self.guard("storage", lambda: bench_storage(self, docver_dir, git_dir, a.reps))

        for factor in ([] if not a.history_scales else [float(x) for x in a.history_scales.split(",")]):
            saves = int(round(a.saves * factor))
            name = f"history-{saves}"
            try:
                directory, scaled = self.generate(name, saves)
            except Exception as error:  # noqa: BLE001 — report what could not be generated
                self.notes.append(f"{saves} saves could not be generated: {error}")
                log(f"generation of {name} failed: {error}")
                continue
            suffix = f" ({a_fmt(saves)} saves)"
            key = f"@{saves}"
            done = integrate(self, directory, name, 1, scaled.expected_conflicts(), scaled, git_pair=False,
                             key="integrate" + key, label_suffix=suffix)
            self.guard("conflicts" + key, lambda: bench_conflicts(
                self, done, "conflicts" + key, f"`docver conflicts`{suffix}", a.reps, reference=integrated))
            scaled_git = self.work / f"{name}-git"
            copy_container(done, scaled_git)
            reference = (self.work / "reference-docver", self.work / "reference-git")
            for path in reference:
                copy_container(integrated, path)
            self.guard("status" + key, lambda: bench_status(self, done, scaled_git, scaled, suffix, key, a.reps,
                                                            reference=reference))
            self.guard("save" + key, lambda: bench_save(self, done, scaled_git, scaled, suffix, key, a.reps,
                                                        reference=reference))
            for path in reference:
                shutil.rmtree(path, ignore_errors=True)
            self.results["_scales"] = self.results.get("_scales", []) + [saves]
            if not a.keep:
                for path in (directory, done, scaled_git):
                    shutil.rmtree(path, ignore_errors=True)

        self.results["_machine"]["load_after"] = os.getloadavg()
        self.results["_elapsed_s"] = round(time.time() - started)
        table = report.table(self)
        print(table)
        print()
        print(report.checks_text(self))
        (self.work / "results.json").write_text(json.dumps(
            {"results": self.results, "checks": self.checks, "notes": self.notes}, indent=1, default=str))
        log(f"results in {self.work / 'results.json'}; {self.results['_elapsed_s']} s in all")
        if a.write_docs:
            report.write_docs(self, table)
        if not a.keep:
            for path in (main_dir, git_dir, docver_dir, integrated, self.work / "sync-device-a",
                         self.work / "sync-remote.git"):
                shutil.rmtree(path, ignore_errors=True)
        return 0 if all(passed for _, passed, _ in self.checks) else 1

    # -- reporting ------------------------------------------------------------------------------
