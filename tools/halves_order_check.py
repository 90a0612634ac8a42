#!/usr/bin/env python3
"""
The order of a step in halves (backends/cuda/exec/cuda_exec.c: launch_halves for a box
alone, launch_boxes for split boxes; cuda_box_exec.c: cuda_box_exec_order_step and the
counters' read), written out as the streams, events and launches the executor enqueues,
and checked for every conflict: two launches that touch the same site of one colour, one
of them writing it, must be ordered by the streams and events in the order of the chain's
steps. A model of that code, so it is kept beside it: a change of the order there is a
change here.

Model. A checkerboard step of colour c on planes [p0, p1) writes colour c of those planes
and reads colour 1 - c of them and of the planes beside (p0 - 1, p1). A stream runs its
work in order; cudaEventRecord marks the stream's work so far; cudaStreamWaitEvent makes
the stream wait for the event's last record at the time of the call (no record yet: no
wait). The host's wait (finish_all) orders everything before it before everything after.
Every sequence of up to four steps of alternating colours, each in halves or whole, with
the host's wait between calls, is checked for a box alone of several plane counts, and
for two and three split boxes on a ring (their halo planes written by the sends, one
copy per neighbour on the border stream) and for a part's box (its halos written by the
core's exchange after the step, on the border stream).

Exit status 0 when every conflict is ordered and each wait left out on purpose (MUTATIONS)
makes the check fail; 1 with the first unordered pair, or a left-out wait not caught.
"""
import itertools
import sys

# Waits left out on purpose (main's self-test: each must be caught, so the check can fail).
MUTATE = set()


def wait_unless(t, mutation, stream, event):
    if mutation not in MUTATE:
        t.wait(stream, event)


class Trace:
    def __init__(self):
        self.ops = []          # (name, stream, reads, writes, step)
        self.after = []        # self.after[i]: ops that must complete before op i
        self.last_on = {}      # stream -> last op index
        self.events = {}       # event -> the op index set recorded (frontier)
        self.pending = {}      # stream -> op indices the next op on it waits for
        self.barrier = []      # ops before the last host wait

    def _deps(self, stream):
        deps = set(self.pending.pop(stream, set()))
        if stream in self.last_on:
            deps.add(self.last_on[stream])
        deps.update(self.barrier)
        return deps

    def launch(self, name, stream, reads, writes, step):
        i = len(self.ops)
        self.ops.append((name, stream, frozenset(reads), frozenset(writes), step))
        self.after.append(self._deps(stream))
        self.last_on[stream] = i
        return i

    def record(self, event, stream):
        frontier = set(self.pending.get(stream, set()))
        if stream in self.last_on:
            frontier.add(self.last_on[stream])
        frontier.update(self.barrier)
        self.events[event] = frontier

    def wait(self, stream, event):
        if event in self.events:
            self.pending.setdefault(stream, set()).update(self.events[event])

    def host_wait(self):
        self.barrier = list(range(len(self.ops)))
        self.pending = {}

    def check(self):
        n = len(self.ops)
        before = [set() for _ in range(n)]
        for i in range(n):
            for j in self.after[i]:
                before[i].add(j)
                before[i] |= before[j]
        for i in range(n):
            ni, _, ri, wi, si = self.ops[i]
            for j in range(i):
                nj, _, rj, wj, sj = self.ops[j]
                if not (wi & (rj | wj) or wj & ri):
                    continue
                if sj > si:
                    return "%s (step %d) enqueued before %s (step %d)" % (nj, sj, ni, si)
                if sj == si and (wi & wj):
                    return "%s and %s of step %d write the same sites" % (ni, nj, si)
                if j not in before[i]:
                    return ("%s of step %d is not ordered after %s of step %d "
                            "(conflict on %s)" % (ni, si, nj, sj,
                                                  sorted((wi & (rj | wj)) | (wj & ri))[:3]))
        return None


def sites(planes, colour, site):
    return {(site(p), colour) for p in planes}


def step_access(planes, colour, site):
    """Writes colour c of the planes, reads colour 1 - c of them and their neighbours."""
    writes = sites(planes, colour, site)
    near = set(planes) | {p - 1 for p in planes} | {p + 1 for p in planes}
    reads = sites(near, 1 - colour, site)
    return reads, writes


def box_alone(t, P, steps):
    """launch_halves and launch_step's whole step on a box alone of P planes (periodic)."""
    site = lambda p: ("g", p % P)
    H = P // 2
    state = {"recorded": False, "half_kind": -1}
    for s, (colour, halved, host_wait_before) in enumerate(steps):
        if host_wait_before:
            t.host_wait()
            state["recorded"] = False
        upd = updater(t, "", site, colour, s)
        kind = 1  # one kind of step
        if not halved:
            state["half_kind"] = -1
            if state["recorded"]:
                wait_unless(t, "whole_after_halves", "main", "copies_done")
            upd("whole", "main", 0, P)
            continue
        t.record("interior_done", "main")
        wait_unless(t, "alone_A_boundary", "main", "border_done")
        upd("A", "main", 1, H - 2)
        if not state["recorded"] or state["half_kind"] != kind:
            wait_unless(t, "alone_B_fresh", "half", "interior_done")
        state["half_kind"] = kind
        wait_unless(t, "alone_B_boundary", "half", "border_done")
        upd("B", "half", H + 1, P - H - 2)
        t.record("half_done", "half")
        wait_unless(t, "alone_boundary_A", "side", "interior_done")
        upd("mid", "side", H - 1, 2)
        upd("end", "side", P - 1, 1)
        upd("first", "side", 0, 1)
        t.record("border_done", "side")
        wait_unless(t, "alone_after_B", "side", "half_done")
        t.record("copies_done", "side")
        state["recorded"] = True


def updater(t, tag, site, colour, step):
    """A launch of step `step` (colour `colour`) on planes [p0, p0 + n) (its name followed by
    `tag`: the box's number, or nothing for a box alone)."""
    def upd(name, stream, p0, n):
        if n > 0:
            r, w = step_access(range(p0, p0 + n), colour, site)
            t.launch(name + tag, stream, r, w, step)
    return upd


def split_boxes(t, k, planes, steps, nb=1, h=1, part=False):
    """launch_boxes (split, interiors in halves or whole) for k boxes of `planes` own
    planes on a ring, halo h, borders nb; the sends copy each box's outer planes into its
    neighbours' halos on the border stream. part (k = 1): a part's box of a lattice shared
    by processes, which sends nothing: the core's exchange after the step (lib/part.c,
    cuda_exec.c move_planes) gets its outer planes and sets its halos on the border stream,
    after everything launch_boxes enqueued there (the neighbour parts' planes: modelled as
    this box's own, as a ring of one)."""
    L = k * planes
    def site_of(b):
        def site(p):  # local plane p of box b: its own, or a halo plane of a neighbour's
            g = (b * planes + p - h) % L
            if h <= p < h + planes:
                return ("g", g)
            return ("halo", b, p)
        return site
    state = {"recorded": False, "half_kind": -1}
    for s, (colour, halved, host_wait_before) in enumerate(steps):
        if host_wait_before:
            t.host_wait()
            state["recorded"] = False
        fresh = not state["recorded"] or state["half_kind"] != 1
        after_halves = (not halved) and state["recorded"] and state["half_kind"] >= 0
        state["half_kind"] = 1 if halved else -1
        # cuda_box_exec_order_step
        if state["recorded"]:
            for b in range(k):
                S = lambda n: "%s%d" % (n, b)
                wait_unless(t, "boxes_side_A", S("side"), S("interior_done"))
                wait_unless(t, "boxes_side_B", S("side"), S("half_done"))
                wait_unless(t, "boxes_B_borders", S("half"), S("border_done"))
                for nbx in {(b - 1) % k, (b + 1) % k} - {b}:
                    wait_unless(t, "boxes_copies", S("side"), "copies_done%d" % nbx)
                wait_unless(t, "boxes_A_borders", S("main"), S("border_done"))
        # launch_boxes: every box's interior first (interior_of), then every box's borders,
        # sends and middle planes (borders_of)
        for b in range(k):
            S = lambda n: "%s%d" % (n, b)
            upd = updater(t, str(b), site_of(b), colour, s)
            m, end = h + planes // 2, h + planes - nb
            if halved:
                if fresh:
                    wait_unless(t, "boxes_B_fresh", S("half"), S("interior_done"))
                upd("A", S("main"), h + nb, m - 1 - (h + nb))
                t.record(S("interior_done"), S("main"))
                upd("B", S("half"), m + 1, end - (m + 1))
                t.record(S("half_done"), S("half"))
            else:
                if after_halves:
                    wait_unless(t, "boxes_whole_after_B", S("main"), S("half_done"))
                upd("interior", S("main"), h + nb, planes - 2 * nb)
                t.record(S("interior_done"), S("main"))
        for b in range(k):
            S = lambda n: "%s%d" % (n, b)
            site = site_of(b)
            upd = updater(t, str(b), site, colour, s)
            upd("lower", S("side"), h, nb)
            upd("upper", S("side"), h + planes - nb, nb)
            t.record(S("border_done"), S("side"))
            # sends: own outer planes of this colour into the neighbours' halos (a part:
            # none, its transport is the core's exchange below)
            lo_nb, hi_nb = (b - 1) % k, (b + 1) % k
            moves = ((lo_nb, h, planes + h), (hi_nb, h + planes - 1, h - 1))
            for dst, src_p, dst_p in () if part else moves:
                reads = {(site(src_p), colour)}
                writes = {(("halo", dst, dst_p), colour)}
                t.launch("send%d>%d" % (b, dst), S("side"), reads, writes, s)
            t.record("copies_done%d" % b, S("side"))
            if halved:
                upd("mid", S("side"), h + planes // 2 - 1, 2)
                t.record(S("border_done"), S("side"))
            for dst, src_p, dst_p in moves if part else ():
                # the core's exchange: a get of the outer planes, a set of the halos
                t.launch("exchange%d" % b, S("side"), {(site(src_p), colour)},
                         {(("halo", dst, dst_p), colour)}, s)
        state["recorded"] = True


def sequences(n):
    """Steps of alternating colours, each in halves or whole, a host wait before some."""
    for halved in itertools.product((True, False), repeat=n):
        for waits in itertools.product((False, True), repeat=n):
            yield [(s % 2, halved[s], waits[s] and s > 0) for s in range(n)]


MUTATIONS = ("whole_after_halves", "alone_A_boundary", "alone_B_fresh", "alone_B_boundary",
             "alone_boundary_A", "alone_after_B", "boxes_side_A", "boxes_side_B",
             "boxes_B_borders", "boxes_copies", "boxes_A_borders", "boxes_B_fresh",
             "boxes_whole_after_B")


def run_all(verbose):
    checked = 0
    for P in (6, 7, 8, 11):
        for seq in sequences(4):
            t = Trace()
            box_alone(t, P, seq)
            bad = t.check()
            checked += 1
            if bad:
                if verbose:
                    print("box alone, %d planes, steps %s: %s" % (P, seq, bad))
                return None
    for k, part in ((2, False), (3, False), (1, True)):
        for planes in (8, 9):
            for seq in sequences(3):
                t = Trace()
                split_boxes(t, k, planes, seq, part=part)
                bad = t.check()
                checked += 1
                if bad:
                    if verbose:
                        print("%d split boxes%s of %d planes, steps %s: %s"
                              % (k, " (a part)" if part else "", planes, seq, bad))
                    return None
    return checked


def main():
    checked = run_all(True)
    if checked is None:
        return 1
    print("halves order: %d schedules, every conflict ordered" % checked)
    for m in MUTATIONS:  # each wait is needed: without it some schedule must fail
        MUTATE.clear()
        MUTATE.add(m)
        if run_all(False) is not None:
            print("halves order: without the wait '%s' every schedule still passed: the "
                  "check cannot see it (or the wait is not needed)" % m)
            return 1
    MUTATE.clear()
    print("halves order: each of the %d waits, left out, is caught" % len(MUTATIONS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
