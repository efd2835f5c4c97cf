#!/usr/bin/python3
"""Render a benchmark report from the raw results of scripts/bench.sh.

    report.py RESULTS_DIR

Reads RESULTS_DIR/raw/SOURCE-MODE-REP.txt ("SCENARIO KEY VALUE..." lines
from bench/guest.sh) and RESULTS_DIR/settings, and writes
RESULTS_DIR/report.md with one PNG per plot next to it. Every figure is
the median over the runs, with the smallest and largest in brackets.
"""

import collections
import pathlib
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

SOURCES = ("base", "qbulk", "pkt")
# Probes in the first second after a change of frame size (one every 10 ms)
SETTLE_PROBES = 100


def load(raw):
    """runs[source][scenario] = list of per-run dicts, one per rep."""
    runs = collections.defaultdict(lambda: collections.defaultdict(list))
    for path in sorted(raw.glob("*.txt")):
        source = path.name.split("-")[0]
        per_run = collections.defaultdict(
            lambda: {"hist": collections.Counter(), "bytes": 0,
                     "hist_bytes": collections.Counter(), "rtts": [],
                     "stops": collections.Counter(), "probes": []})
        for line in path.read_text().splitlines():
            words = line.split()
            if len(words) < 3 or words[0] == "kernel":
                continue
            run = per_run[words[0]]
            if words[1] == "packets":
                run["hist"][int(words[2])] += int(words[3])
                run["bytes"] += int(words[4])
                run["hist_bytes"][int(words[2])] += int(words[4])
            elif words[1] == "rtt":
                run["rtts"].append(float(words[2]))
            elif words[1] == "probe":
                # rtt (us, -1 if lost), ring packets, qdisc backlog, limit
                run["probes"].append(
                    tuple(None if w == "-" else int(w) for w in words[2:6]))
            elif words[1] == "stop":
                run["stops"][words[2]] += int(words[3])
            else:
                run[words[1]] = int(words[2])
        for scenario, run in per_run.items():
            runs[source][scenario].append(run)
    return runs


def percentile(values, share):
    values = sorted(values)
    return values[round(share * (len(values) - 1))]


def probe_metrics(run):
    """Figures of one run of bench/hol_probe.py's probes."""
    probes = run["probes"]
    rtts = [p[0] / 1e3 for p in probes if p[0] >= 0]
    rings = [p[1] for p in probes]
    out = {"probes": len(probes), "probes unanswered": len(probes) - len(rtts),
           "share of probes with a qdisc backlog":
           sum(1 for p in probes if p[2] > 0) / len(probes),
           "ring packets at a probe, median": statistics.median(rings),
           "ring packets at a probe, max": max(rings)}
    if rtts:
        out["probe rtt median (guest ms)"] = statistics.median(rtts)
        for name, share in (("p90", 0.9), ("p99", 0.99), ("max", 1)):
            out[f"probe rtt {name} (guest ms)"] = percentile(rtts, share)
    if rtts:
        # A guest tick at HZ=250: a probe that waited for a thread to be
        # scheduled again
        out["share of answered probes over 4 ms"] = \
            sum(1 for r in rtts if r > 4) / len(rtts)
    if run.get("poll_ms"):
        out["poll thread sleeps per second"] = \
            run["poll_slept"] * 1e3 / run["poll_ms"]
        out["poll thread preemptions per second"] = \
            run["poll_preempted"] * 1e3 / run["poll_ms"]
    limits = [p[3] for p in probes if p[3] is not None]
    if limits:
        out["BQL limit, median (bytes)"] = statistics.median(limits)
    if "change_pause_us" in run:
        out["flood paused at the change (guest us)"] = run["change_pause_us"]
    if "change" in run:
        at = run["change"]
        parts = (("before", probes[:at]),
                 ("first second after", probes[at:at + SETTLE_PROBES]),
                 ("after", probes[at + SETTLE_PROBES:]))
        for name, part in parts:
            if part:
                rings = [p[1] for p in part]
                out[f"ring packets {name} the change, median"] = \
                    statistics.median(rings)
                out[f"ring packets {name} the change, max"] = max(rings)
    return out


def ratio(a, b):
    return a / b if b else None


def metrics(run):
    """The figures of one run; None where the run has no data for one."""
    hist = run["hist"]
    dequeues = sum(hist.values())
    dequeued = sum(p * n for p, n in hist.items())
    out = {
        "tail writes/packet (QEMU)": ratio(run.get("tail_writes", 0),
                                           run["tx_packets"])
        if "tail_writes" in run else None,
        "doorbells/packet (driver)": ratio(
            run["doorbells"] + run["flushes"],
            run["doorbells"] + run["xmit_more"])
        if "doorbells" in run else None,
        "kicks/packet (driver)": ratio(run["kicks"], run["tx_packets"])
        if "kicks" in run else None,
        "kicks/packet (QEMU)": ratio(run["notifies"], run["tx_packets"])
        if "notifies" in run else None,
        "kick requests/packet": ratio(run["tx_packets"] - run["xmit_more"],
                                      run["tx_packets"])
        if "kicks" in run and "xmit_more" in run else None,
        "packets/dequeue": ratio(dequeued, dequeues),
        "bytes/dequeue": ratio(run["bytes"], dequeues) if run["bytes"]
        else None,
        "largest dequeue": max(hist) if hist else None,
        "share dequeued": ratio(dequeued - run["requeues"],
                                run["tx_packets"])
        if "tx_packets" in run else None,
        "requeues": run.get("requeues"),
        "packets/s": ratio(run["sent"] * 1e6, run["usec"])
        if "usec" in run else None,
        "guest ns/packet": ratio(run["usec"] * 1e3, run["sent"])
        if "usec" in run else None,
    }
    if hist and run["hist_bytes"][max(hist)]:
        # The most bytes a high-priority packet can find ahead of it, as
        # time on the wire of two model links.
        largest = run["hist_bytes"][max(hist)] / hist[max(hist)]
        out["largest dequeue bytes"] = largest
        out["its wire time at 100 Mbit/s (ms)"] = largest * 8 / 1e5
        out["its wire time at 1 Gbit/s (ms)"] = largest * 8 / 1e6
    if run["rtts"]:
        out["ping rtt median (guest ms)"] = statistics.median(run["rtts"])
        out["ping rtt max (guest ms)"] = max(run["rtts"])
    for key in ("p50", "p99", "max"):
        if f"{key}_ns" in run:
            out[f"rtt {key} (guest us)"] = run[f"{key}_ns"] / 1e3
    if "requests" in run:
        out["lost"] = run["lost"]
    for key in ("create_us", "delete_us", "mem_avail_kb", "slab_kb"):
        if key in run:
            out[key] = run[key]
    if run["probes"]:
        out.update(probe_metrics(run))
    return out


def summary(values):
    values = [v for v in values if v is not None]
    if not values:
        return None, "-"
    med = statistics.median(values)
    return med, f"{fmt(med)} [{fmt(min(values))}-{fmt(max(values))}]"


def fmt(value):
    if abs(value) >= 100:
        return f"{value:.0f}"
    return f"{value:.3g}"


def table(runs, prefix, keys, base_prefix=None):
    """Rows for the scenarios under prefix; with base_prefix, the base
    column is the base kernel's scenario of the same name under it."""
    scenarios = sorted({s for src in SOURCES for s in runs[src]
                        if s.startswith(prefix)})
    # The packet-unit variant's column where it ran these scenarios
    pkt = any(s in runs["pkt"] for s in scenarios)
    lines = ["| scenario | figure | base | patched | patched/base |"
             + (" packet-unit | packet-unit/base |" if pkt else ""),
             "|---|---|---|---|---|" + ("---|---|" if pkt else "")]
    for scenario in scenarios:
        for key in keys:
            meds, cells = {}, {}
            for src in SOURCES:
                name = scenario
                if base_prefix and src == "base":
                    name = base_prefix + scenario[len(prefix):]
                meds[src], cells[src] = summary(
                    [metrics(r).get(key)
                     for r in runs[src].get(name, [])])
            if meds["base"] is None and meds["qbulk"] is None:
                continue
            row = (f"| {scenario.split('/', 1)[1]} | {key} | "
                   f"{cells['base']} | {cells['qbulk']} | "
                   f"{rel_cell(meds['qbulk'], meds['base'])} |")
            if pkt:
                row += (f" {cells['pkt']} | "
                        f"{rel_cell(meds['pkt'], meds['base'])} |")
            lines.append(row)
    return "\n".join(lines)


def rel_cell(value, base):
    return f"{value / base:.3f}" if base and value is not None else "-"


def median_of(runs, src, scenario, key):
    return summary([metrics(r).get(key)
                    for r in runs[src].get(scenario, [])])[0]


# What the series promises against the base kernel and the packet-unit
# variant, per scenario of the latency boot: (figure, bound on the
# patched/base ratio, whether the packet-unit variant must not beat it).
TARGETS = (("probe rtt median (guest ms)", 0.2, True),
           ("ring packets at a probe, median", 0.2, True),
           ("probe rtt p99 (guest ms)", 0.5, False))


def wins(runs):
    """Per scenario and figure, the design with the lower median."""
    keys = ("probe rtt median (guest ms)", "probe rtt p90 (guest ms)",
            "probe rtt p99 (guest ms)", "ring packets at a probe, median",
            "ring packets first second after the change, median",
            "ring packets after the change, median")
    lines = ["| scenario | figure | this series | packet-unit | lower |",
             "|---|---|---|---|---|"]
    scenarios = sorted(s for s in runs["qbulk"] if s in runs["pkt"])
    for scenario in scenarios:
        for key in keys:
            ours = median_of(runs, "qbulk", scenario, key)
            pkt = median_of(runs, "pkt", scenario, key)
            if ours is None or pkt is None:
                continue
            lower = ("tie" if ours == pkt else
                     "this series" if ours < pkt else "packet-unit")
            lines.append(f"| {scenario} | {key} | {fmt(ours)} | {fmt(pkt)} "
                         f"| {lower} |")
    return "\n".join(lines)


def targets(runs):
    """One row per latency scenario and target: met or missed."""
    lines = ["| scenario | figure | patched/base | bound | packet-unit/base "
             "| met |", "|---|---|---|---|---|---|"]
    scenarios = sorted(s for s in runs["qbulk"]
                       if s.startswith(("latency/", "threaded/", "gso/")))
    for scenario in scenarios:
        for key, bound, versus_pkt in TARGETS:
            base = median_of(runs, "base", scenario, key)
            ours = median_of(runs, "qbulk", scenario, key)
            pkt = median_of(runs, "pkt", scenario, key)
            if ours is None or base is None:
                continue
            # A ring that is empty on both sides meets any ratio
            met = ours <= bound * base or ours == 0
            if versus_pkt and pkt is not None:
                met = met and ours <= pkt
            lines.append(f"| {scenario} | {key} | {rel_cell(ours, base)} | "
                         f"{bound} | {rel_cell(pkt, base)} | "
                         f"{'yes' if met else 'no'} |")
    lines += ["", "| scenario | figure | patched | bound | packet-unit | met |",
              "|---|---|---|---|---|---|"]
    mq = "veth-bql/napi-mq"
    bulk = median_of(runs, "qbulk", mq, "packets/dequeue")
    if bulk is not None:
        pkt = median_of(runs, "pkt", mq, "packets/dequeue")
        lines.append(f"| {mq} | packets/dequeue | {fmt(bulk)} | 8 or more | "
                     f"{'-' if pkt is None else fmt(pkt)} | "
                     f"{'yes' if bulk >= 8 else 'no'} |")
    # Every run of the series at least the base kernel's slowest
    rates = {src: [metrics(r).get("packets/s") for r in runs[src].get(mq, [])]
             for src in SOURCES}
    if rates["qbulk"] and rates["base"]:
        low, floor = min(rates["qbulk"]), min(rates["base"])
        pkt = min(rates["pkt"]) if rates["pkt"] else None
        lines.append(f"| {mq} | packets/s, slowest run | {fmt(low)} | "
                     f"base's slowest, {fmt(floor)} | "
                     f"{'-' if pkt is None else fmt(pkt)} | "
                     f"{'yes' if low >= floor else 'no'} |")
    return "\n".join(lines)


def knob_cost(runs):
    """Patched kernel with bulking disabled against the base kernel."""
    off = summary([metrics(r)["guest ns/packet"]
                   for r in runs["qbulk"].get("cost/bulk-off", [])])[0]
    base = summary([metrics(r)["guest ns/packet"]
                    for r in runs["base"].get("cost/defaults", [])])[0]
    if off is None or not base:
        return "No bulking-disabled run to compare."
    return (f"Patched with net.core.dequeue_bulk_packets=1 against base: "
            f"{off / base:.4f} of the base kernel's instructions per "
            f"packet ({(off / base - 1) * 100:+.2f}%).")


def plot_doorbells(runs, out):
    bursts = [1, 2, 4, 8, 32]
    fig, ax = plt.subplots(figsize=(6, 4))
    for src in SOURCES:
        ys = [summary([metrics(r)["tail writes/packet (QEMU)"]
                       for r in runs[src].get(f"doorbells/burst-{b}", [])])[0]
              for b in bursts]
        ax.plot(bursts, ys, marker="o", label=src)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("pktgen burst")
    ax.set_ylabel("tail writes per packet (QEMU trace)")
    ax.set_title("igb doorbells per packet (emulated)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)


def plot_distribution(runs, scenario, out):
    fig, ax = plt.subplots(figsize=(6, 4))
    width = 0.4
    for i, src in enumerate(SOURCES):
        total = collections.Counter()
        for run in runs[src].get(scenario, []):
            total.update(run["hist"])
        packets = sum(p * n for p, n in total.items())
        if not packets:
            continue
        sizes = sorted(total)
        # share of packets that left in a dequeue of each size
        ax.bar([s + (i - 0.5) * width for s in sizes],
               [s * total[s] / packets for s in sizes], width, label=src)
    ax.set_xlabel("packets per dequeue")
    ax.set_ylabel("share of dequeued packets")
    ax.set_title(f"{scenario} (emulated)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)


def plot_limits(runs, out):
    """The patched kernel's BQL limit at each probe, one line per run."""
    scenarios = sorted(s for s in runs["qbulk"] if s.startswith("latency/"))
    if not scenarios:
        return False
    fig, axes = plt.subplots(len(scenarios), 1, sharex=True,
                             figsize=(6, 2 + 1.5 * len(scenarios)))
    for ax, scenario in zip(list(fig.axes), scenarios):
        top = 1
        for i, run in enumerate(runs["qbulk"][scenario]):
            limits = [p[3] for p in run["probes"] if p[3] is not None]
            ax.plot(limits, linewidth=0.8, label=f"run {i + 1}")
            top = max([top] + limits)
        ax.set_ylabel("limit (bytes)")
        ax.set_title(f"{scenario} (emulated)", fontsize=9)
        ax.set_ylim(0, top * 1.25)
    axes = list(fig.axes)
    axes[-1].set_xlabel("probe (one every 10 ms or more)")
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)
    return True


def main():
    if len(sys.argv) != 2 or not (pathlib.Path(sys.argv[1]) / "raw").is_dir():
        sys.exit("usage: report.py RESULTS_DIR (from make bench; it holds "
                 "raw/ and settings)")
    results = pathlib.Path(sys.argv[1])
    runs = load(results / "raw")
    settings = (results / "settings").read_text()
    reps = {src: max((len(v) for v in runs[src].values()), default=0)
            for src in SOURCES}

    plot_doorbells(runs, results / "doorbells.png")
    limits_plot = ""
    if plot_limits(runs, results / "latency-limit.png"):
        limits_plot = "![BQL limit over the run](latency-limit.png)"
    plots = []
    for scenario in sorted({s for src in SOURCES for s in runs[src]
                            if s.startswith("bulking/")}):
        png = f"{scenario.replace('/', '-')}.png"
        plot_distribution(runs, scenario, results / png)
        plots.append(f"![{scenario}]({png})")

    report = f"""# qbulk benchmark: base kernel vs patched

Both kernels are built from the same plain fragment and booted the same
way under QEMU (TCG, no KVM); runs alternate between them. Figures are
medians with [min-max] over {reps['base']} base and {reps['qbulk']}
patched runs ({reps['pkt']} of the packet-unit variant, in the latency
boot only). The machine is emulated: counts and ratios between the
kernels carry meaning, absolute rates and times are models, not hardware
figures.

```
{settings.strip()}
```

## Doorbells

igb, pktgen on tx queue 0: bursts straight to the driver (one thread),
and two threads through the qdisc. Tail writes per packet from QEMU's
trace of the TDT registers (both NICs; the receiver sends nothing), and
from the driver's counters where it has them.

{table(runs, "doorbells/", ["tail writes/packet (QEMU)",
                             "doorbells/packet (driver)", "share dequeued"])}

![doorbells](doorbells.png)

## Kicks (virtio-net)

virtio-net with one queue pair, pktgen on tx queue 0: bursts straight to
the driver (one thread), and two threads through the default root qdisc
(pfifo_fast). Kicks per packet from the driver's count (ethtool -S
tx0_kicks) and from QEMU's trace of the notifications of the transmit
virtqueue; kick requests are the packets that did not defer their kick
(tx0_xmit_more, patched kernel only). QEMU turns notifications off while
its transmit handler is pending, so kicks can be fewer than requests.
On KVM each kick is a VM exit; here it is an emulated register write.

{table(runs, "kicks/", ["kicks/packet (QEMU)", "kicks/packet (driver)",
                         "kick requests/packet", "packets/dequeue",
                         "share dequeued"])}

## Bulking

Two pktgen threads through the qdisc on tx queue 0. Share dequeued is the
part of the packets the device sent that left through a dequeue rather
than bypassing an empty qdisc.

{table(runs, "bulking/", ["packets/dequeue", "bytes/dequeue",
                           "largest dequeue", "share dequeued", "requeues",
                           "packets/s"])}

{chr(10).join(plots)}

## Cost per packet

One pktgen thread through a veth's mq, where neither kernel bulks, under
QEMU -icount shift=0: guest time counts instructions (one per
nanosecond), so guest ns per packet is instructions per packet, of all
vCPUs.

{table(runs, "cost/", ["guest ns/packet", "packets/dequeue"])}

{knob_cost(runs)}

## Head-of-line blocking

igb with one tx queue and prio as the root qdisc; one pktgen thread
floods the low band, held by netem so that it always has a backlog, while
ping sends every 10 ms in the high band (TOS 0x10), under -icount. A
high-priority packet can find a whole bulk ahead of it: the largest
dequeue's bytes are given as wire time on two model links. The ping
times are guest time (instructions) on an emulated NIC, a model, not a
hardware latency. The base kernel has no budgets: only its defaults run.

{table(runs, "hol/", ["packets/dequeue", "largest dequeue",
                       "largest dequeue bytes",
                       "its wire time at 100 Mbit/s (ms)",
                       "its wire time at 1 Gbit/s (ms)",
                       "ping rtt median (guest ms)",
                       "ping rtt max (guest ms)"])}

## Head-of-line blocking on virtio-net

The same, on the virtio-net NIC (one queue pair).

{table(runs, "hol-virtio/", ["packets/dequeue", "largest dequeue",
                              "largest dequeue bytes",
                              "its wire time at 100 Mbit/s (ms)",
                              "its wire time at 1 Gbit/s (ms)",
                              "ping rtt median (guest ms)",
                              "ping rtt max (guest ms)"])}

## Head-of-line blocking on veth

The same ping through prio on a veth whose peer receives in NAPI (GRO on,
its poll in a thread of its own), without netem, behind two flood threads
on the same tx queue: on the base kernel the backlog waits in the peer's
ring (up to 256 packets) where prio cannot reorder it; with veth BQL it
waits in the qdisc, and a second run bounds what BQL lets into the ring
with byte_queue_limits/limit_max (patched kernel only). Not under -icount
(the flood needs the two vCPUs in parallel), so the times are guest
wall-clock under TCG: a model, noisier than the -icount figures.

{table(runs, "hol-veth/", ["packets/dequeue", "largest dequeue",
                            "ping rtt median (guest ms)",
                            "ping rtt max (guest ms)"])}

## A high-priority probe behind a flood on veth

The pinned scenario (`bench/guest.sh latency`): a veth with one tx and
one rx queue, TSO off on the sender, GRO on the peer (NAPI; its poll in
softirq context, as a veth has it by default), two pktgen threads
flooding prio's low band, or fq_codel as the root qdisc, with 60- or
1000-byte frames; an ICMP echo with TOS 0x10 (prio's high band, its own
flow in fq_codel) every 10 ms from `bench/hol_probe.py`. Ring packets
are those the sender's root qdisc has sent less those the peer's poll
has taken, read as the probe is sent, measured the same way on both
kernels. Each figure is the median over boots of the per-boot figure;
round trips are guest wall-clock time under TCG: a model, not a
hardware latency. The two counters behind the ring figure are read one
after the other, so a read that the scheduler splits can exceed the
ring's 256 slots: the maximum shows that skew, the median the ring.

The flood's two threads keep both vCPUs busy. The poll runs in softirq
context after a transmit, or in ksoftirqd/N once the softirq work has
run for too long; ksoftirqd then shares its vCPU with a flood thread,
and while it waits for the CPU nothing leaves the ring, on either
kernel. The kernels run at HZ=250. On 7.3 x86 has no PREEMPT_NONE, and
PREEMPT_LAZY's wakeups only ask for a preemption at the next tick (4
ms). The emulated vCPUs are threads of the host, which can also take a
vCPU away in the middle of a poll: in a trace of each kernel over 2 s of
this flood (prio, 60 bytes; the patched kernel then completed in
batches of 12), 15 and 38 polls took over 2 ms of guest time, one of 49
packets 9 ms, where a poll of 25 packets takes about 0.3 ms. The share
over 4 ms counts the probes that waited for one of these, and the
context switches of the threads that ran the poll (ksoftirqd here;
voluntary: it slept; involuntary: a flood thread took its CPU) are
given per second of the flood. While ksoftirqd is preempted a hundred
times a second or more, it has work whenever it runs: the flood
saturates the poll's CPU on both kernels, and the probes over 4 ms
waited for a tick, on both.

{table(runs, "latency/", ["probe rtt median (guest ms)",
                           "probe rtt p90 (guest ms)",
                           "probe rtt p99 (guest ms)",
                           "probe rtt max (guest ms)",
                           "share of answered probes over 4 ms", "probes",
                           "probes unanswered",
                           "ring packets at a probe, median",
                           "ring packets at a probe, max",
                           "share of probes with a qdisc backlog",
                           "BQL limit, median (bytes)",
                           "poll thread sleeps per second",
                           "poll thread preemptions per second"])}

{limits_plot}

### The same with one packet at a time in the ring

The patched kernel again with tx-0's `limit_max` at 0: BQL lets one
packet into the ring and stops the queue until the poll completes it.
No completion policy can leave less ahead of a probe, so what it still
waits is the time the poll takes to run, not the ring. The base column
is the base kernel's run of the same scenario above. With one packet per
round trip of the poll the flood no longer saturates its CPU:
ksoftirqd sleeps most of the time instead of being preempted, and the
probes that wait for a tick all but vanish. That is throughput given
up, not a policy that keeps it.

{table(runs, "ring-1/", ["probe rtt median (guest ms)",
                          "probe rtt p90 (guest ms)",
                          "probe rtt p99 (guest ms)",
                          "share of answered probes over 4 ms",
                          "ring packets at a probe, median",
                          "share of probes with a qdisc backlog",
                          "poll thread sleeps per second",
                          "poll thread preemptions per second"],
       base_prefix="latency/")}

### The same with the poll in a thread of its own

The scenario above with the peer's `threaded` set to 1: its poll runs in
a NAPI thread, which shares a vCPU with a flood thread and, preempted,
waits for the next tick (4 ms) to run again. Round trips are then set by
that wait more than by the ring, on both kernels.

{table(runs, "threaded/", ["probe rtt median (guest ms)",
                            "probe rtt p90 (guest ms)",
                            "probe rtt p99 (guest ms)",
                            "probe rtt max (guest ms)",
                            "share of answered probes over 4 ms",
                            "ring packets at a probe, median",
                            "share of probes with a qdisc backlog",
                            "BQL limit, median (bytes)",
                            "poll thread sleeps per second",
                            "poll thread preemptions per second"])}

### The frames change size under the flood

The softirq scenario with the flood's frames changing size as the
middle probe is due: 1000 bytes that fall to 60, 60 that rise to 1000,
and UDP GSO datagrams of 42 segments of 1472 bytes from a socket
(udpgso_bench_tx; one ring slot each, about 62 KB) that give way to
60-byte frames from pktgen. The prober stops pktgen, sets the new size
once no thread builds a packet (a size written while one does can
overflow its skb) and starts it again; for the datagrams it stops
their sender, lets the qdisc send what it holds of them and starts
pktgen. The pause this leaves in the flood is in the table. Ring
packets at the probes before the change, over the first second after
it (100 probes), and after that: a byte limit learnt from the larger
packets would let that many more small ones into the ring until it
follows. The ring counts a datagram as one packet: the qdisc counts its
segments, and the prober takes them out while only datagrams flow. The
ring figure also counts what the peer's poll took but has not yet added
to its counters (a poll adds them when it ends), up to a poll's budget
of 64: with small frames it can exceed the slot bound that BQL's own
count of the charged packets keeps to (veth_bql.sh samples that
count).

{table(runs, "change/", [
    "ring packets before the change, median",
    "ring packets first second after the change, median",
    "ring packets first second after the change, max",
    "ring packets after the change, median",
    "ring packets after the change, max",
    "flood paused at the change (guest us)",
    "probe rtt median (guest ms)", "probe rtt p99 (guest ms)",
    "probes unanswered"])}

The datagrams alone, for the whole run: a byte limit learnt from them
holds about a dozen in the ring, a packet limit as many packets of any
size.

{table(runs, "gso/", ["probe rtt median (guest ms)",
                       "probe rtt p90 (guest ms)",
                       "probe rtt p99 (guest ms)",
                       "share of answered probes over 4 ms",
                       "ring packets at a probe, median",
                       "ring packets at a probe, max",
                       "share of probes with a qdisc backlog",
                       "BQL limit, median (bytes)"])}

### Against the packet-unit design

The packet-unit column is the series with veth's completion policy
replaced by `bench/veth-packet-unit.patch`: a model of the public
proposal that charges one unit per packet and coalesces completions in
time (100 us), written from its description; the qdisc layer is the
series' in both. The rows below check this series' targets in each
scenario: a probe's median round trip and the ring at a probe at most a
fifth of the base kernel's and no worse than the packet-unit variant's,
and the 99th percentile at most half the base kernel's (where the
scheduler sets it, the poll thread's preemptions above show it for all
kernels).

{targets(runs)}

Where each design wins, by the median over boots of each figure (the
spread of each is in the tables above):

{wins(runs)}

### Bulking on the same veth under mq

In the same boot: two pktgen threads through mq on the default
two-queue veth whose peer receives in NAPI, as in the main boot's
`bulking/veth-napi-mq`, so that the latency figures above and the bulks
that veth BQL gives the qdisc come from the same kernel and runs.

{table(runs, "veth-bql/", ["packets/dequeue", "largest dequeue",
                            "share dequeued", "requeues", "packets/s"])}

## Creating and deleting 1000 veth pairs

One `ip -batch` each, in the latency boot: guest time (TCG, a model) and
the memory the pairs held (MemAvailable that went, Slab that came). A
veth whose peer does not receive in NAPI has no byte_queue_limits
attributes on either kernel.

{table(runs, "churn/", ["create_us", "delete_us", "mem_avail_kb",
                         "slab_kb"])}

## Low rate

UDP request/response (64 bytes, one outstanding) across the igb pair at
10 to 10000 requests per second, under -icount; round trips in guest
time. Bulking has nothing to batch here and must cost nothing.

{table(runs, "lowrate/", ["rtt p50 (guest us)", "rtt p99 (guest us)",
                           "lost"])}
"""
    (results / "report.md").write_text(report)
    print(f"report: {results / 'report.md'}")


if __name__ == "__main__":
    main()
