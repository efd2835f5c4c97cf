#!/usr/bin/python3
"""High-priority probes behind a flood on a veth, for the latency benchmark.

    hol_probe.py DEV ADDR COUNT [AT SIZE [SEGS]]

Sends COUNT ICMP echo requests with TOS 0x10 (skb priority 6: the high
band of prio, its own flow in fq_codel) to ADDR through DEV, one every
10 ms (or as soon as the previous answer is in, if that is later), and
prints one line per probe:

    probe RTT_US RING BACKLOG LIMIT

RTT_US is the round trip (-1 if no answer came within a second), from
just before the send to the kernel's receive timestamp of the answer
(SO_TIMESTAMPNS, as ping does), so that it leaves out how long this
process takes to be woken. RING is the packets waiting in the peer's
ring as the probe is sent: what DEV's root qdisc has sent less what the
peer's poll has taken (DEV's tx_packets, which veth counts from the
peer's poll, read before and after the qdisc's counter and averaged),
less the same difference when idle, measured before the first probe;
the same count on a kernel with and without veth BQL. BACKLOG is the root qdisc's queue
length, LIMIT DEV's tx-0 BQL limit in bytes ("-" without BQL). Prints
"idle_offset N" first: start the flood once that line is out. Probes
begin once the qdisc holds a backlog (or after 60 s without one).

With AT and SIZE, the flood's frames change size as probe AT is due,
and "change AT SIZE" is printed before that probe's line: pktgen is
stopped, SIZE written to the pkt_size of every pktgen device on DEV
once no thread builds a packet (a size written while one does can
overflow its skb) and pktgen started again ("change_pause_us N": from
the stop to the start).

With SEGS as well, the flood before the change is UDP GSO datagrams of
SEGS segments each from udpgso_bench_tx, which takes one ring slot per
datagram while the qdisc counts SEGS packets: RING counts each as one.
The change then stops every udpgso_bench_tx, waits for the qdisc to
send what it holds of them, and starts pktgen, set up beforehand with
SIZE-byte frames and not started. SEGS without AT: the datagrams for
the whole run (AT past COUNT).
"""

import glob
import os
import signal
import socket
import struct
import sys
import threading
import time

RTM_GETQDISC = 38
NLM_F_REQUEST, NLM_F_DUMP = 1, 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3
TCA_STATS = 3
TC_H_ROOT = 0xFFFFFFFF
SO_TIMESTAMPNS = SCM_TIMESTAMPNS = 35


def root_qdisc_stats(nl, ifindex):
    """(packets sent, queue length) of the root qdisc of ifindex."""
    req = struct.pack("=BxxxiIII", socket.AF_UNSPEC, ifindex, 0, 0, 0)
    nl.send(struct.pack("=IHHII", 16 + len(req), RTM_GETQDISC,
                        NLM_F_REQUEST | NLM_F_DUMP, 0, 0) + req)
    found = None
    while True:
        data = nl.recv(65536)
        off = 0
        while off < len(data):
            length, kind = struct.unpack_from("=IH", data, off)
            if kind == NLMSG_DONE:
                return found
            if kind == NLMSG_ERROR:
                sys.exit(f"qdisc dump failed: errno "
                         f"{-struct.unpack_from('=i', data, off + 16)[0]}")
            _, index, _, parent, _ = struct.unpack_from("=BxxxiIII", data,
                                                        off + 16)
            attr = off + 36
            while index == ifindex and parent == TC_H_ROOT and \
                    attr < off + length:
                alen, atype = struct.unpack_from("=HH", data, attr)
                if atype == TCA_STATS:
                    # struct tc_stats: bytes, packets, drops, overlimits,
                    # bps, pps, qlen, backlog
                    stats = struct.unpack_from("=QIIIIIII", data, attr + 4)
                    found = (stats[1], stats[6])
                attr += (alen + 3) & ~3
            off += (length + 3) & ~3


def read_int(path):
    try:
        with open(path) as f:
            return int(f.read())
    except FileNotFoundError:
        return None


def checksum(data):
    total = sum(struct.unpack(f"!{len(data) // 2}H", data))
    total = (total >> 16) + (total & 0xFFFF)
    return ~(total + (total >> 16)) & 0xFFFF


def received_ns(ancillary):
    """The kernel's receive time of a datagram, CLOCK_REALTIME."""
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == SCM_TIMESTAMPNS:
            sec, nsec = struct.unpack("=qq", data[:16])
            return sec * 1_000_000_000 + nsec
    sys.exit("an answer without a receive timestamp")


PGCTRL = "/proc/net/pktgen/pgctrl"


def pktgen_start():
    """Start pktgen's threads; the write returns once they stop, so it
    is left to a thread of its own (its process's exit stops them)."""
    def start():
        with open(PGCTRL, "w") as f:
            f.write("start")
    threading.Thread(target=start, daemon=True).start()


def wait_until(done, what):
    deadline = time.monotonic() + 5
    while not done():
        if time.monotonic() > deadline:
            sys.exit(f"{what} after 5 s")
        time.sleep(0.001)


def pktgen_resize(dev, size):
    """Stop pktgen, make every pktgen device on dev build size-byte frames
    and start it again. A thread stops between packets, and a device it
    runs shows in the "Running:" line of its kpktgend file until then."""
    with open(PGCTRL, "w") as f:
        f.write("stop")

    def stopped():
        for path in glob.glob("/proc/net/pktgen/kpktgend_*"):
            with open(path) as f:
                if f"{dev}@" in f.readline():
                    return False
        return True
    wait_until(stopped, "pktgen still running")
    for path in glob.glob(f"/proc/net/pktgen/{dev}@*"):
        with open(path, "w") as f:
            f.write(f"pkt_size {size}")
    pktgen_start()


def stop_gso_senders():
    """SIGTERM to every udpgso_bench_tx, and wait until none is left but
    zombies (the shell that started them reaps them later)."""
    def senders():
        pids = []
        for stat in glob.glob("/proc/[0-9]*/stat"):
            try:
                with open(stat) as f:
                    # pid (comm) state ...
                    comm, state = f.read().rsplit(")", 1)
            except (OSError, ValueError):
                continue
            if comm.endswith("(udpgso_bench_tx") and state.split()[0] != "Z":
                pids.append(int(stat.split("/")[2]))
        return pids
    for pid in senders():
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    wait_until(lambda: not senders(), "udpgso_bench_tx still running")


def main(dev, addr, count, change_at=None, size=None, segs=1):
    ifindex = socket.if_nametoindex(dev)
    sysfs = f"/sys/class/net/{dev}"
    nl = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)
    # A dump that never ends fails the run rather than hanging it
    nl.settimeout(5.0)
    icmp = socket.socket(socket.AF_INET, socket.SOCK_RAW,
                         socket.IPPROTO_ICMP)
    icmp.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, 0x10)
    icmp.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    icmp.settimeout(1.0)
    ident = os.getpid() & 0xFFFF

    def counts():
        """(packets the qdisc sent, packets the poll took, backlog)"""
        taken = read_int(f"{sysfs}/statistics/tx_packets")
        sent, backlog = root_qdisc_stats(nl, ifindex)
        taken += read_int(f"{sysfs}/statistics/tx_packets")
        return sent, taken // 2, backlog

    sent0, taken0, _ = counts()
    print("idle_offset", sent0 - taken0, flush=True)
    # Datagrams of segs segments the qdisc sent: each counts segs packets
    # there and one in the ring. While they flow, every packet the qdisc
    # sent but the probes is theirs; once they stop, their number stays.
    gso = None if segs > 1 else 0

    def ring_and_backlog(probes):
        sent, taken, backlog = counts()
        sent -= sent0
        datagrams = (sent - probes) // segs if gso is None else gso
        return sent - (segs - 1) * datagrams - (taken - taken0), backlog

    # Until the flood has built a backlog in the qdisc, for up to 60 s
    deadline = time.monotonic() + 60
    while counts()[2] == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)
    start = time.monotonic_ns()
    for seq in range(count):
        delay = start + seq * 10_000_000 - time.monotonic_ns()
        if delay > 0:
            time.sleep(delay / 1e9)
        if seq == change_at:
            paused = time.monotonic_ns()
            if gso is None:
                stop_gso_senders()
                wait_until(lambda: counts()[2] == 0, "qdisc backlog left")
                gso = (counts()[0] - sent0 - seq) // segs
                pktgen_start()
            else:
                pktgen_resize(dev, size)
            print("change", seq, size)
            print("change_pause_us", (time.monotonic_ns() - paused) // 1000)
        ring, backlog = ring_and_backlog(seq)
        limit = read_int(f"{sysfs}/queues/tx-0/byte_queue_limits/limit")
        header = struct.pack("!BBHHH", 8, 0, 0, ident, seq)
        payload = seq.to_bytes(8, "big") * 7
        packet = struct.pack("!BBHHH", 8, 0, checksum(header + payload),
                             ident, seq) + payload
        sent = time.time_ns()
        icmp.sendto(packet, (addr, 0))
        rtt = -1
        try:
            while rtt < 0:
                reply, ancillary, _, _ = icmp.recvmsg(2048, 64)
                # IP header, then type 0 (echo reply) with our id and seq
                hl = (reply[0] & 0xF) * 4
                if reply[hl] == 0 and struct.unpack_from(
                        "!HH", reply, hl + 4) == (ident, seq):
                    rtt = (received_ns(ancillary) - sent) // 1000
        except socket.timeout:
            pass
        print("probe", rtt, ring, backlog,
              "-" if limit is None else limit)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], *map(int, sys.argv[3:]))
