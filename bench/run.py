#!/usr/bin/env python3
# Copyright (c) 2026 The osc/newrma developers.  All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
"""osc/newrma benchmark driver: newrma side by side with osc/rdma, osc/ucx and
osc/pt2pt.

The rows of one family (the sizes of one KIND:OP:SYNC:FLAVOR) run in one
mpirun, since starting MPI costs more than most rows take; each row has its
own timeout, so a component that crashes or hangs on a row is recorded as
`crash` or `hang` and the run goes on (a crash reruns the family a row per
mpirun, to tell which row it was; after a hang the family's larger sizes,
and the row in later rounds, are `skipped`: they would take longer still).
Window-creation, memory and application rows run alone.  Components are
interleaved family by family (their order rotating), and with --rounds > 1
the whole row list is run again, so machine drift falls on every component
alike; a row's value is the median over rounds of the program's own median
over repetitions.

Results land in OUT/<timestamp>/: results.csv, table-<mode>.md (newrma /
best other component, wins and losses marked) and PNG plots (gnuplot).  The
newest table is printed at the end.
"""
import argparse
import csv
import datetime
import os
import platform
import queue
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
COMPONENTS = ["newrma", "rdma", "ucx", "pt2pt"]
OPS = ["put", "get", "acc", "gacc", "fop", "cas"]
LAT_SYNCS = ["lock", "flush", "flush_local", "fence", "pscw"]
# the other accumulates and their element's bytes: ARMCI-MPI's put (REPLACE)
# and get (NO_OP, no origin buffer), long double, 1-byte elements, MAXLOC
# pairs of MPI_2INT and of MPI_DOUBLE_INT (padded) (latency rows; flush
# epochs only with --quick)
ACC_VARIANTS = {"accr": 8, "gaccn": 8, "accld": 16, "accb": 1, "accml": 8, "accdi": 16}
FLAVORS = ["create", "allocate", "shared", "dynamic"]
# memory per window (mem rows): the two flavors every component has
MEM_FLAVORS = ["create", "allocate"]
UNITS_HIGHER_BETTER = {"MB/s", "Mmsg/s"}
# skipped: not run, after the component timed out on the row in an earlier
# round or on a smaller size of the row's family
STATUS_ORDER = ["wrong", "crash", "hang", "error", "skipped", "n/a"]
# Application rows (app:PROGRAM:CASE:-:-): NWChem on H2O inputs in
# bench/apps (Debian's nwchem-openmpi: Global Arrays on ARMCI-MPI, which puts
# every get and put through MPI_Get_accumulate / MPI_Accumulate), seconds to
# solution, energies checked against each other; and the kernels of
# bench/osc_newrma_apps.c, which check their own results.
NWCHEM_CASES = {
    "scf": ("h2o_scf.nw", r"Total SCF energy =\s*(\S+)"),
    "dft": ("h2o_dft_grad.nw", r"Total DFT energy =\s*(\S+)"),
    "ccsd": ("h2o_ccsd.nw", r"CCSD total energy / hartree\s*=\s*(\S+)"),
}
APP_KERNELS = {
    "ga:tasks": ["tasks", "384"],
    "ga:dgemm": ["dgemm", "640"],
    "halo:fence": ["halo", "fence", "256", "2000"],
    "halo:pscw": ["halo", "pscw", "256", "2000"],
}
ENERGY_TOLERANCE = 1e-10
# An independent harness: Debian's NetPIPE (netpipe-openmpi), whose
# NPopenmpi2 times PUT (or, with -g, GET) ping-pongs of one size, each
# transfer closed by MPI_Win_fence on both ranks, on an MPI_Win_create
# window; its one-way time (the fastest of its trials), in µs.  Its NULL
# info needs bench/netpipe_info.c preloaded to run under Open MPI.
NETPIPE = "NPopenmpi2"
NETPIPE_OPS = ("put", "get")
# kinds whose rows of one family share an mpirun (window creation, memory and
# application rows measure a process's first steps, so they run alone)
BATCHED_KINDS = ("lat", "bw", "rate", "empty")


def sizes(full):
    """8 B ... 4 MiB in powers of 4 (--full); every other one (--quick)."""
    out, s = [], 8
    while s <= 4 << 20:
        out.append(s)
        s *= 4
    out.append(4 << 20)
    return out if full else [8, 512, 32768, 2 << 20]


def build_rows(full, np_max):
    """(row, np) pairs in a stable order."""
    flavors = FLAVORS if full else ["allocate"]
    rows = []
    for flavor in flavors:
        for op in OPS:
            for sync in LAT_SYNCS:
                for size in ([8] if op in ("fop", "cas") else sizes(full)):
                    rows.append((f"lat:{op}:{sync}:{flavor}:{size}", 2))
        for op, elem in ACC_VARIANTS.items():
            for sync in (LAT_SYNCS if full else ["flush"]):
                for size in sizes(full):
                    rows.append((f"lat:{op}:{sync}:{flavor}:{max(size, elem)}", 2))
        for op in ("put", "get"):
            for sync in ("flush", "fence"):
                for size in sizes(full):
                    rows.append((f"bw:{op}:{sync}:{flavor}:{size}", 2))
        # the same with a strided target layout (8-byte blocks, a vector type)
        for op in ("putv", "getv"):
            for size in sizes(full):
                rows.append((f"bw:{op}:flush:{flavor}:{size}", 2))
        # a stream of MPI_REPLACE (ARMCI-MPI's puts), of MPI_NO_OP reads (its gets)
        for op in ("accr", "gaccn"):
            for size in sizes(full):
                rows.append((f"bw:{op}:flush:{flavor}:{size}", 2))
        for sync in ("flush", "fence"):
            rows.append((f"rate:put:{sync}:{flavor}:8", 2))
        for sync in ("fence", "lock", "lockall", "pscw"):
            rows.append((f"empty:-:{sync}:{flavor}:-", 2))
    for op in NETPIPE_OPS:
        for size in sizes(full):
            rows.append((f"netpipe:{op}:fence:create:{size}", 2))
    for flavor in FLAVORS:
        rows.append((f"win:-:-:{flavor}:-", 2))
    for flavor in MEM_FLAVORS:
        rows.append((f"mem:-:-:{flavor}:-", 2))
    # 3 and 4, then powers of two: 8, 16 (every count up to 16 is an hour
    # on 2 cores, most of it osc/ucx and osc/rdma at 9..15 ranks)
    for np in (n for n in range(3, np_max + 1) if n <= 4 or 0 == n & (n - 1)):
        for flavor in (FLAVORS if full else ["allocate"]):
            rows.append((f"win:-:-:{flavor}:-", np))
        for flavor in MEM_FLAVORS:
            rows.append((f"mem:-:-:{flavor}:-", np))
        rows.append(("empty:-:lockall:allocate:-", np))
    for case in NWCHEM_CASES:
        rows.append((f"app:nwchem:{case}:-:-", 2))
    for kernel in APP_KERNELS:
        rows.append((f"app:{kernel}:-:-", 2))
    for kernel in ("halo:fence", "halo:pscw"):
        rows.append((f"app:{kernel}:-:-", np_max))
    if np_max > 2:
        # lock epochs to several targets at once (rank 0 to every other rank)
        for size in (8, 32768):
            rows.append((f"multi:put:lock:allocate:{size}", np_max))
    return rows


def batches(order):
    """[(rows, np)]: consecutive rows of one family and rank count together."""
    out = []
    for row, np in order:
        family = row.rsplit(":", 1)[0]
        if (out and row.split(":")[0] in BATCHED_KINDS and out[-1][1] == np
                and out[-1][0][-1].rsplit(":", 1)[0] == family):
            out[-1][0].append(row)
        else:
            out.append(([row], np))
    return out


def row_label(row, np):
    kind, op, sync, flavor, size = row.split(":")
    if kind == "win":
        return f"win create+free {flavor} np={np}"
    if kind == "mem":
        return f"memory per window {flavor} np={np}"
    if kind == "app":
        return f"app {op} {sync} np={np}"
    if kind == "empty":
        return f"empty {sync} {flavor}" + (f" np={np}" if np > 2 else "")
    if kind == "multi":
        return f"lock epoch to {np - 1} targets, {op} {human(int(size))} each + flush_all np={np}"
    if kind == "netpipe":
        return f"NetPIPE {op} {sync} {flavor} {human(int(size))}"
    return f"{kind} {op} {sync} {flavor} {human(int(size))}"


def human(n):
    for unit, shift in (("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n} B"


def sysdir():
    out = subprocess.run(["ompi_info", "--path", "pkglibdir", "--parsable"],
                         capture_output=True, text=True, check=True).stdout
    return re.search(r"path:pkglibdir:(\S+)", out).group(1)


class Runner:
    def __init__(self, args):
        self.args = args
        self.bench = args.bench
        self.env = dict(os.environ)
        self.env["OMPI_MCA_mca_base_component_path"] = f"{args.dsodir}:{sysdir()}"
        self.env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        self.env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        self.energies = {}  # (mode, row, np, comp) -> NWChem energies, one per round
        self.spreads = {}  # (mode, row, np, comp) -> (min, max) of the repetitions, per round
        self.hung = set()  # (mode, row, np, comp) that hung once: not run again
        self.nwchem_warm = set()  # modes whose first NWChem launch (untimed) is done

    def command(self, comp, mode, rows, np):
        cmd = ["mpirun", "-np", str(np), "--oversubscribe", "--bind-to", "none",
               "--mca", "osc", comp]
        if np > 2:
            cmd += ["--mca", "mpi_yield_when_idle", "1"]
        env = dict(self.env)
        if mode == "network":
            env["UCX_TLS"] = "tcp,self"
            cmd += ["-x", "UCX_TLS", "--mca", "btl", "self,tcp"]
            if comp == "newrma":
                cmd += ["--mca", "osc_newrma_shm", "0"]
        if rows[0].startswith("netpipe:"):
            cmd += ["-x", f"LD_PRELOAD={self.args.netpipe_shim}"]
        return cmd + self.program(rows), env

    def netpipe_iters(self, size):
        """NetPIPE's round trips per trial (-n): the benchmark's iterations,
        fewer for large sizes (NetPIPE runs 7 trials of them)."""
        if size <= 8192:
            return self.args.iters
        return max(self.args.iters // (10 if size <= 512 << 10 else 50), 10)

    def program(self, rows):
        row = rows[0]
        kind, prog, case = row.split(":")[:3]
        if kind == "netpipe":
            size = int(row.split(":")[4])
            return ([NETPIPE, "-l", str(size), "-u", str(size), "-p", "0", "-n",
                     str(self.netpipe_iters(size)), "-o", "np.out"]
                    + (["-g"] if prog == "get" else []))
        if kind != "app":
            return [self.bench, "--iters", str(self.args.iters), "--reps", str(self.args.reps),
                    *rows]
        if prog == "nwchem":
            return ["nwchem.openmpi", NWCHEM_CASES[case][0]]
        return [self.args.apps] + APP_KERNELS[f"{prog}:{case}"]

    def scratch_once(self, cmd, env, timeout, inp=None, result=None):
        """One run in a scratch directory, with a copy of bench/apps/INP:
        (process, out, err, seconds, the text of the file RESULT it wrote or
        None), out None after a hang."""
        with tempfile.TemporaryDirectory(prefix="newrma-scratch-") as scratch:
            if inp:
                shutil.copy(os.path.join(HERE, "apps", inp), scratch)
            start = time.monotonic()
            proc = subprocess.Popen(cmd, env=env, cwd=scratch, stdin=subprocess.DEVNULL,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                    start_new_session=True)
            try:
                out, err = proc.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                _, err = proc.communicate()
                return proc, None, err, 0.0, None
            elapsed, text = time.monotonic() - start, None
            if result and os.path.exists(os.path.join(scratch, result)):
                with open(os.path.join(scratch, result)) as f:
                    text = f.read()
            return proc, out, err, elapsed, text

    def run_nwchem(self, comp, mode, row, np):
        """Seconds to solution in a scratch directory; the energy is kept."""
        case = row.split(":")[2]
        inp, pattern = NWCHEM_CASES[case]
        cmd, env = self.command(comp, mode, [row], np)
        if mode not in self.nwchem_warm:
            # untimed: the first launch reads NWChem's binary and basis
            # library from disk (0.77 s against 0.38 for the next SCF), and
            # the same component always came first on the same row
            self.nwchem_warm.add(mode)
            self.scratch_once(cmd, env, max(self.args.timeout, 600), inp)
        proc, out, err, elapsed, _ = self.scratch_once(cmd, env, max(self.args.timeout, 600), inp)
        if out is None:
            self.log(comp, mode, row, np, "hang", "", err)
            return "hang", "-"
        found = re.findall(pattern, out)
        if proc.returncode != 0 or not found:
            self.log(comp, mode, row, np, "crash", out, err)
            return "crash", "-"
        self.energies.setdefault((mode, row, np, comp), []).append(float(found[-1]))
        return f"{elapsed:.4g}", "s"

    def run_netpipe(self, comp, mode, row, np):
        """NetPIPE's one-way time for the row's size, µs (its -o file's line:
        bytes, Mbps, seconds)."""
        cmd, env = self.command(comp, mode, [row], np)
        proc, out, err, _, text = self.scratch_once(cmd, env, self.args.timeout, result="np.out")
        if out is None:
            self.hung.add((mode, row, np, comp))
            self.log(comp, mode, row, np, "hang", "", err)
            return "hang", "-"
        m = re.search(rf"^\s*{row.split(':')[4]}\s+\S+\s+(\S+)\s*$", text or "", re.M)
        if proc.returncode != 0 or m is None or not is_number(m.group(1)):
            self.log(comp, mode, row, np, "crash", out, err)
            return "crash", "-"
        return f"{float(m.group(1)) * 1e6:.4g}", "us"

    def run(self, comp, mode, rows, np):
        """{row: (value or status, unit)} for rows of one family."""
        if mode == "network" and comp == "rdma":
            return {row: ("n/a", "-") for row in rows}
        if rows[0].startswith("app:nwchem:"):
            return {rows[0]: self.run_nwchem(comp, mode, rows[0], np)}
        if rows[0].startswith("netpipe:"):
            if (mode, rows[0], np, comp) in self.hung:
                return {rows[0]: ("skipped", "-")}
            return {rows[0]: self.run_netpipe(comp, mode, rows[0], np)}
        got = {row: ("skipped", "-") for row in rows if (mode, row, np, comp) in self.hung}
        todo = [row for row in rows if row not in got]
        if todo:
            got.update(self.run_rows(comp, mode, todo, np))
        return got

    def run_rows(self, comp, mode, rows, np):
        cmd, env = self.command(comp, mode, rows, np)
        # a session of its own, so that a hung mpirun goes with its ranks
        proc = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, start_new_session=True)
        lines, err = queue.Queue(), []
        threading.Thread(target=lambda: [lines.put(x) for x in proc.stdout] + [lines.put(None)],
                         daemon=True).start()
        errs = threading.Thread(target=lambda: err.extend(proc.stderr), daemon=True)
        errs.start()
        out, reported, hung = [], 0, False
        while True:  # the timeout runs afresh for each row
            try:
                line = lines.get(timeout=self.args.timeout)
            except queue.Empty:
                os.killpg(proc.pid, signal.SIGKILL)
                hung = True
                break
            if line is None:
                break
            out.append(line)
            reported += line.startswith("RESULT ")
        proc.wait()
        errs.join(timeout=5)
        out, err = "".join(out), "".join(err)
        if hung:
            row = rows[min(reported, len(rows) - 1)]
            self.hung.add((mode, row, np, comp))
            self.log(comp, mode, row, np, "hang", out, err)
            got = self.parse(comp, mode, rows[:reported], np, out, err, 0)
            got[row] = ("hang", "-")
            # the family's larger sizes would take longer still
            for later in rows[reported + 1:]:
                self.hung.add((mode, later, np, comp))
                got[later] = ("skipped", "-")
            return got
        if proc.returncode != 0 and len(rows) > 1:
            # which row crashed: each on its own
            got = {}
            for row in rows:
                got.update(self.run(comp, mode, [row], np))
            return got
        return self.parse(comp, mode, rows, np, out, err, proc.returncode)

    def parse(self, comp, mode, rows, np, out, err, returncode):
        got = {}
        for row in rows:
            m = re.search(rf"^RESULT {re.escape(row)} (\S+) (\S+)", out, re.M)
            if m is None:
                value, unit = "crash", "-"
            elif m.group(1) == "error":
                value, unit = "error", "-"
            else:
                value, unit = m.group(1), m.group(2)
                if value == "unsupported":
                    value = "n/a"
                if returncode != 0 and value not in ("wrong", "n/a"):
                    value = "crash"
                s = re.search(rf"^SPREAD {re.escape(row)} (\S+) (\S+)", out, re.M)
                if s and is_number(value) and is_number(s.group(1)) and is_number(s.group(2)):
                    self.spreads.setdefault((mode, row, np, comp), []).append(
                        (float(s.group(1)), float(s.group(2))))
            if value in STATUS_ORDER and value != "n/a":
                self.log(comp, mode, row, np, value, out, err)
            got[row] = (value, unit)
        return got

    def log(self, comp, mode, row, np, status, out, err):
        name = f"{mode}.{comp}.{row.replace(':', '_')}.np{np}.log"
        with open(os.path.join(self.args.dir, "logs", name), "w") as f:
            f.write(f"status: {status}\n")
            for text in (out, err):
                if isinstance(text, bytes):
                    text = text.decode(errors="replace")
                f.write(text or "")


def is_number(v):
    try:
        float(v)
        return True
    except (TypeError, ValueError):
        return False


def check_energies(raw, energies):
    """An NWChem run whose energy is more than ENERGY_TOLERANCE from the
    median of every component's runs of that row counts as wrong."""
    rows = {}
    for (m, row, np, comp), values in energies.items():
        rows.setdefault((m, row, np), []).extend(values)
    for (m, row, np, comp), values in energies.items():
        ref = statistics.median(rows[(m, row, np)])
        if any(abs(e - ref) > ENERGY_TOLERANCE for e in values):
            raw[(m, row, np, comp)] = [("wrong", "s")]
            print(f"{m} {row} osc/{comp}: energies {values} differ from {ref}", file=sys.stderr)


def combine(values):
    """Median over rounds; a status in any round wins over numbers."""
    statuses = [v for v in values if not is_number(v)]
    if statuses:
        return min(statuses, key=lambda s: STATUS_ORDER.index(s) if s in STATUS_ORDER else 0)
    return f"{statistics.median(float(v) for v in values):.4g}"


def spread_of(values, spreads):
    """(min, max) over the rounds' values and the repetitions' spreads, or
    None when a round gave no number."""
    if not values or not all(is_number(v) for v in values):
        return None
    nums = [float(v) for v in values]
    return (min(nums + [lo for lo, _ in spreads]), max(nums + [hi for _, hi in spreads]))


def overlap(a, b):
    return a is not None and b is not None and a[0] <= b[1] and b[0] <= a[1]


def ratio_cell(newrma, others, unit):
    """(cell text, verdict, ratio with wins below 1) for newrma = (value,
    spread) against others [(value, spread)]; verdict win / loss / tie /
    None.  Within 3%, or with newrma's spread overlapping the best other's,
    the row is a tie."""
    nums = [(float(v), s) for v, s in others if is_number(v)]
    value, spread = newrma
    if not is_number(value):
        return (f"{value}", "loss", None) if nums else ("-", None, None)
    if not nums:
        return ("only newrma", "win", None) if others else ("-", None, None)
    higher = unit in UNITS_HIGHER_BETTER
    best, best_spread = (max if higher else min)(nums, key=lambda n: n[0])
    r = float(value) / best if best > 0 else float("inf")
    plot_r = (1 / r if r > 0 else float("inf")) if higher else r
    better = r > 1 if higher else r < 1
    if abs(r - 1) <= 0.03:
        return f"{r:.2f} ≈", "tie", plot_r
    if overlap(spread, best_spread):
        return f"{r:.2f} ≈ (spreads overlap)", "tie", plot_r
    return ((f"**{r:.2f} win**", "win", plot_r) if better else (f"{r:.2f} loss", "loss", plot_r))


def value_cell(value, spread):
    if spread is None or spread[0] == spread[1]:
        return value
    return f"{value} ({spread[0]:.4g}–{spread[1]:.4g})"


def write_table(path, mode, comps, results, spreads, order, meta):
    """The Markdown table; returns it and [(row label, ratio)] for the
    summary plot."""
    lines = [f"### {mode} mode: {meta}", "",
             "| row | unit | " + " | ".join(comps) + " | newrma / best other |",
             "|---|---|" + "---|" * len(comps) + "---|"]
    tally = {"win": 0, "loss": 0, "tie": 0}
    ratios = []
    for row, np in order:
        cells = {c: results.get((mode, row, np, c), ("-", "-")) for c in comps}
        spr = {c: spreads.get((mode, row, np, c)) for c in comps}
        unit = next((u for v, u in cells.values() if u != "-"), "-")
        vals = [value_cell(cells[c][0], spr[c]) for c in comps]
        text, verdict, r = ("-", None, None)
        if "newrma" in comps:
            others = [(cells[c][0], spr[c]) for c in comps
                      if c != "newrma" and cells[c][0] != "n/a"]
            text, verdict, r = ratio_cell((cells["newrma"][0], spr["newrma"]), others, unit)
        if verdict:
            tally[verdict] += 1
        if r is not None:
            ratios.append((row_label(row, np), r, verdict or "tie"))
        lines.append(f"| {row_label(row, np)} | {unit} | " + " | ".join(vals) + f" | {text} |")
    lines += ["", f"newrma: {tally['win']} wins, {tally['loss']} losses, {tally['tie']} ties "
              "(within 3%, or newrma's spread overlapping the best other's) against the best "
              "other component per row; cells: median (min–max over repetitions and rounds); "
              "time rows: lower is better, MB/s and Mmsg/s: higher is better; hang: no "
              "result within the timeout; skipped: not run, after a hang on a smaller size "
              "or in an earlier round.", ""]
    with open(path, "w") as f:
        f.write("\n".join(lines))
    return "\n".join(lines), ratios


def scaling_plot(outdir, mode, comps, results, order):
    """plots/scaling-MODE-ROW.png: window creation and empty lock_all epochs
    against the number of ranks, a line per component."""
    if not shutil.which("gnuplot"):
        return
    groups = {}
    for row, np in order:
        if row.startswith(("win:", "mem:", "empty:-:lockall:")):
            groups.setdefault(row, []).append((np, row, np))
    for row, pts in groups.items():
        base = f"scaling-{mode}-{row.replace(':', '_').replace('-', '')}"
        series = line_series(outdir, base, mode, comps, results, pts) if len(pts) > 1 else []
        if series:
            title = row_label(row, 0).replace(" np=0", "")
            unit = "KiB" if row.startswith("mem:") else "us"
            line_plot(outdir, base, [f"set title '{title} ({mode}) against ranks'",
                                     "set logscale y", "set xlabel 'ranks'",
                                     f"set ylabel '{unit}'"], series)


# readable ticks for the summary's log axis (powers of 4, as fractions left of 1)
SUMMARY_TICS = [("1/256", 1 / 256), ("1/64", 1 / 64), ("1/16", 1 / 16), ("1/4", 0.25),
                ("1/2", 0.5), ("1", 1), ("2", 2), ("4", 4), ("16", 16), ("64", 64),
                ("256", 256), ("1000", 1000)]


def summary_plot(outdir, mode, ratios):
    """summary-MODE.png: newrma / best other per row on a log axis, wins
    left of 1 (rates inverted so that left is better everywhere); wins
    green, losses red, ties (spreads overlap) grey."""
    if not shutil.which("gnuplot") or not ratios:
        return
    dat = os.path.join(outdir, "plots", f"summary-{mode}.dat")
    colour = {"win": 1, "loss": 2, "tie": 3}
    with open(dat, "w") as f:
        for i, (label, r, verdict) in enumerate(ratios):
            f.write(f"{i} {max(min(r, 1000.0), 0.001):.6g} \"{label}\" {colour[verdict]}\n")
    height = max(400, 14 * len(ratios) + 120)
    script = "\n".join([
        (f"set terminal pngcairo noenhanced size 900,{height}" if has_pngcairo()
         else f"set terminal png noenhanced size 900,{height}"),
        f"set output '{os.path.join(outdir, f'summary-{mode}.png')}'",
        f"set title 'newrma / best other, {mode} mode: left of 1 newrma is faster'",
        "set logscale x 2", "set xlabel 'ratio (newrma / best other)'", "set ytics font ',7'",
        "set xtics (" + ", ".join(f"'{t}' {v}" for t, v in SUMMARY_TICS) + ")",
        f"set yrange [-1:{len(ratios)}] reverse", "set grid xtics",
        "set palette defined (1 '#1a9850', 2 '#d73027', 3 '#999999')",
        "set cbrange [1:3]", "unset colorbox",
        "set arrow from 1, graph 0 to 1, graph 1 nohead lw 2",
        f"plot '{dat}' using 2:1:4:ytic(3) with points pt 7 ps 1.2 lc palette notitle", ""])
    subprocess.run(["gnuplot"], input=script, text=True, check=False,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def read_csv(path):
    """(mode, row, np, component) -> (value, min, max) of an earlier run."""
    out = {}
    with open(path, newline="") as f:
        for rec in csv.DictReader(f):
            row = ":".join(rec[k] for k in ("kind", "op", "sync", "flavor", "size"))
            v = rec["value"]
            lo, hi = rec.get("min") or v, rec.get("max") or v
            out[(rec["mode"], row, int(rec["np"]), rec["component"])] = (v, lo, hi)
    return out


def compare(old_dir, results, spreads):
    """The rows that moved by more than their spread since OLD_DIR's run:
    each run's median outside the other run's (min, max)."""
    old = read_csv(os.path.join(old_dir, "results.csv"))
    moved = []
    for key, (value, unit) in sorted(results.items()):
        if key not in old or not is_number(value) or not is_number(old[key][0]):
            continue
        v, (ov, olo, ohi) = float(value), old[key]
        ov, olo, ohi = float(ov), float(olo), float(ohi)
        lo, hi = spreads.get(key) or (v, v)
        if (v > ohi and ov < lo) or (v < olo and ov > hi):
            m, row, np, comp = key
            moved.append(f"  {m} {row_label(row, np)} osc/{comp}: {ov:.4g} -> {v:.4g} {unit} "
                         f"({v / ov:.2f}x; before {olo:.4g}-{ohi:.4g}, now {lo:.4g}-{hi:.4g})")
    print(f"compared with {old_dir}: {len(moved)} rows moved by more than their spread")
    print("\n".join(moved))


def line_series(outdir, base, mode, comps, results, pts):
    """gnuplot series, one per component with numbers, of points [(x, row,
    np)] (their data files in plots/)."""
    series = []
    for c in comps:
        data = [(x, results.get((mode, row, np, c), ("-",))[0]) for x, row, np in pts]
        data = [(x, float(v)) for x, v in data if is_number(v)]
        if not data:
            continue
        dat = os.path.join(outdir, "plots", f"{base}.{c}.dat")
        with open(dat, "w") as f:
            f.writelines(f"{x} {v}\n" for x, v in data)
        series.append(f"'{dat}' using 1:2 with linespoints title 'osc/{c}'")
    return series


def line_plot(outdir, base, settings, series):
    """plots/BASE.png of @p series under gnuplot @p settings."""
    script = "\n".join([
        ("set terminal pngcairo noenhanced size 800,500" if has_pngcairo()
         else "set terminal png noenhanced size 800,500"),
        f"set output '{os.path.join(outdir, 'plots', base + '.png')}'"] + settings +
        ["set key left top", "set grid", "plot " + ", ".join(series), ""])
    subprocess.run(["gnuplot"], input=script, text=True, check=False,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def plot(outdir, mode, comps, results, order):
    """One PNG per (kind, op, sync): value vs size, a line per component."""
    if not shutil.which("gnuplot"):
        print("gnuplot not found: no plots", file=sys.stderr)
        return
    groups = {}
    for row, np in order:
        kind, op, sync, flavor, size = row.split(":")
        if kind in ("lat", "bw", "netpipe"):
            groups.setdefault((kind, op, sync, flavor), []).append((int(size), row, np))
    for (kind, op, sync, flavor), pts in groups.items():
        base = f"{mode}-{kind}-{op}-{sync}-{flavor}"
        series = line_series(outdir, base, mode, comps, results, pts) if len(pts) > 1 else []
        if series:
            ylabel = {"lat": "latency (us)", "bw": "bandwidth (MB/s)",
                      "netpipe": "NetPIPE one-way time (us)"}[kind]
            line_plot(outdir, base, [f"set title '{kind} {op} {sync} {flavor} ({mode})'",
                                     "set logscale xy", "set xlabel 'size (bytes)'",
                                     f"set ylabel '{ylabel}'"], series)


_PNGCAIRO = None


def has_pngcairo():
    global _PNGCAIRO
    if _PNGCAIRO is None:
        out = subprocess.run(["gnuplot", "-e", "set terminal"], capture_output=True,
                             text=True).stderr + ""
        _PNGCAIRO = "pngcairo" in out
    return _PNGCAIRO


def progress(k, n, comp, row, start, tty):
    line = (f"[{k}/{n}] osc/{comp:<6} {row:<40} elapsed {int(time.time() - start) // 60}m"
            f"{int(time.time() - start) % 60:02d}s")
    if tty:
        sys.stderr.write("\r" + line[:120].ljust(120))
    else:
        sys.stderr.write(line + "\n")
    sys.stderr.flush()


def main():
    ap = argparse.ArgumentParser(
        description="Run the osc/newrma benchmark under several OSC components side by side.",
        epilog="Rows are named KIND:OP:SYNC:FLAVOR:SIZE (see bench/osc_newrma_bench.c); "
               "--rows takes a regular expression on those names.")
    ap.add_argument("--osc", default=",".join(COMPONENTS),
                    help="comma-separated components (default: %(default)s)")
    ap.add_argument("--rows", default="", help="regular expression selecting rows, "
                    "e.g. 'lat:put' or ':fence:' (default: all of the row set)")
    ap.add_argument("--mode", default="node", choices=["node", "network", "both"],
                    help="node: node-local paths (default); network: newrma with "
                    "--mca osc_newrma_shm 0 and every component over TCP (UCX_TLS=tcp,self, "
                    "btl self,tcp; osc/rdma cannot run there); both: one after the other")
    ap.add_argument("--out", default=os.path.join(TOP, "results"),
                    help="results directory; each run writes OUT/<timestamp>/ "
                    "(default: %(default)s)")
    size = ap.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", default=True,
                      help="the default: allocate windows, 4 sizes, one round, short "
                      "iterations (about 10 minutes on 2 cores)")
    size.add_argument("--full", action="store_true",
                      help="every flavor, 8 B..4 MiB in powers of 4, three rounds, OSU-length "
                      "iterations (about an hour or more)")
    ap.add_argument("--np-max", type=int, default=4,
                    help="window creation scaling runs at 2, 3, 4 and the powers of two up to N "
                    "ranks (default: %(default)s)")
    ap.add_argument("--iters", type=int, help="iterations per repetition for small sizes "
                    "(quick 200, full 1000; large sizes use fewer)")
    ap.add_argument("--reps", type=int, help="repetitions per row, the median is taken "
                    "(quick 3, full 5)")
    ap.add_argument("--rounds", type=int, help="passes over all rows (quick 1, full 3)")
    ap.add_argument("--timeout", type=int, help="seconds per mpirun before a row counts as "
                    "hung (quick 30, full 120)")
    ap.add_argument("--bench", default=os.path.join(TOP, "tests-out", "bench", "osc_newrma_bench"),
                    help="the benchmark program (default: %(default)s)")
    ap.add_argument("--compare", metavar="OLD_DIR",
                    help="after the run, print the rows that moved by more than their spread "
                    "since the run in OLD_DIR (a results/<timestamp> directory)")
    ap.add_argument("--apps", default=os.path.join(TOP, "tests-out", "bench", "osc_newrma_apps"),
                    help="the application kernels' program (default: %(default)s)")
    ap.add_argument("--netpipe-shim", default=os.path.join(TOP, "tests-out", "bench",
                                                           "netpipe_info.so"),
                    help="bench/netpipe_info.c built, preloaded into NetPIPE's ranks "
                    "(default: %(default)s)")
    ap.add_argument("--dsodir", default=os.path.join(TOP, ".libs"),
                    help="directory of mca_osc_newrma.so (default: %(default)s)")
    args = ap.parse_args()
    # the application rows run in a directory of their own
    args.dsodir, args.bench, args.apps, args.netpipe_shim = (
        os.path.abspath(p) for p in (args.dsodir, args.bench, args.apps, args.netpipe_shim))
    full = args.full
    args.iters = args.iters or (1000 if full else 200)
    args.reps = args.reps or (5 if full else 3)
    args.rounds = args.rounds or (3 if full else 1)
    args.timeout = args.timeout or (120 if full else 30)
    comps = [c for c in args.osc.split(",") if c]
    modes = ["node", "network"] if args.mode == "both" else [args.mode]
    order = [(r, np) for r, np in build_rows(full, args.np_max) if re.search(args.rows, r)]
    if not order:
        sys.exit(f"no row matches {args.rows!r}")
    # NWChem rows run Debian's nwchem.openmpi, not the application kernels
    needs = ((args.bench, lambda r: r.split(":")[0] in ("lat", "bw", "rate", "empty", "win")),
             (args.apps, lambda r: r.startswith("app:") and not r.startswith("app:nwchem:")),
             (args.netpipe_shim, lambda r: r.startswith("netpipe:")))
    for prog, needed in needs:
        if not os.path.exists(prog) and any(needed(r) for r, _ in order):
            sys.exit(f"{prog} not built: run 'make -C tests all BUILDDIR=..' first")
    if any(r.startswith("app:nwchem:") for r, _ in order) and not shutil.which("nwchem.openmpi"):
        sys.exit("nwchem.openmpi not found: apt-get install nwchem-openmpi (scripts/bench.sh "
                 "does), or leave the NWChem rows out with --rows")
    if any(r.startswith("netpipe:") for r, _ in order) and not shutil.which(NETPIPE):
        sys.exit(f"{NETPIPE} not found: apt-get install netpipe-openmpi (scripts/bench.sh "
                 "does), or leave the NetPIPE rows out with --rows")
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    args.dir = os.path.join(args.out, stamp)
    n = 1
    while os.path.exists(args.dir):  # two runs within a second
        stamp = f"{stamp.split('.')[0]}.{n}"
        args.dir, n = os.path.join(args.out, stamp), n + 1
    os.makedirs(os.path.join(args.dir, "logs"))
    os.makedirs(os.path.join(args.dir, "plots"))
    runner = Runner(args)
    meta = (f"{datetime.date.today().isoformat()}, {platform.node()}, {os.cpu_count()} cores, "
            f"{platform.machine()}, {'full' if full else 'quick'} (iters {args.iters}, "
            f"reps {args.reps}, rounds {args.rounds})")
    for m in modes:
        if m == "network" and "rdma" in comps:
            print("note: osc/rdma cannot run in network mode: it needs an RDMA-capable BTL "
                  "and the TCP BTL has no put/get; its column shows n/a", file=sys.stderr)
    raw = {}
    total = len(order) * len(comps) * len(modes) * args.rounds
    k, start, tty = 0, time.time(), sys.stderr.isatty()
    for rnd in range(args.rounds):
        for m in modes:
            for i, (rows, np) in enumerate(batches(order)):
                shift = (i + rnd) % len(comps)
                for comp in comps[shift:] + comps[:shift]:
                    k += len(rows)
                    progress(k, total, comp, f"{m} {rows[0]} np={np}", start, tty)
                    for row, got in runner.run(comp, m, rows, np).items():
                        raw.setdefault((m, row, np, comp), []).append(got)
    if tty:
        sys.stderr.write("\n")
    check_energies(raw, runner.energies)
    results = {key: (combine([v for v, _ in vals]),
                     next((u for _, u in vals if u != "-"), "-")) for key, vals in raw.items()}
    spreads = {key: spread_of([v for v, _ in vals], runner.spreads.get(key, []))
               for key, vals in raw.items()}
    with open(os.path.join(args.dir, "results.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["mode", "kind", "op", "sync", "flavor", "size", "np", "component", "value",
                    "unit", "rounds", "min", "max"])
        for key, (value, unit) in results.items():
            m, row, np, comp = key
            lo, hi = spreads[key] or ("", "")
            w.writerow([m] + row.split(":") + [np, comp, value, unit,
                                              " ".join(v for v, _ in raw[key]), lo, hi])
    tables = []
    for m in modes:
        table, ratios = write_table(os.path.join(args.dir, f"table-{m}.md"), m, comps, results,
                                    spreads, order, meta)
        tables.append(table)
        plot(args.dir, m, comps, results, order)
        scaling_plot(args.dir, m, comps, results, order)
        summary_plot(args.dir, m, ratios)
    latest = os.path.join(args.out, "latest")
    if os.path.islink(latest) or os.path.exists(latest):
        os.remove(latest)
    os.symlink(stamp, latest)
    print("\n".join(tables))
    print(f"results: {args.dir} (summary-*.png, results.csv, table-*.md, plots/*.png, logs/ "
          f"of failed rows); {int(time.time() - start)} s")
    if args.compare:
        compare(args.compare, results, spreads)


if __name__ == "__main__":
    main()
