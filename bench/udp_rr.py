#!/usr/bin/python3
"""UDP request/response at a fixed rate, for the low-rate benchmark.

    udp_rr.py server PORT
    udp_rr.py client ADDR PORT RATE COUNT

The server echoes every datagram. The client sends COUNT requests of 64
bytes, one every 1/RATE seconds (or as soon as the previous answer is in,
if that is later), waits for each answer and prints "requests N",
"lost N", "p50_ns N", "p99_ns N" and "max_ns N" of the round trips.
"""

import socket
import sys
import time


def server(port):
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("0.0.0.0", port))
    while True:
        data, peer = sock.recvfrom(2048)
        sock.sendto(data, peer)


def client(addr, port, rate, count):
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.connect((addr, port))
    sock.settimeout(1.0)
    period = 1e9 / rate
    rtts, lost = [], 0
    start = time.monotonic_ns()
    for i in range(count):
        delay = start + i * period - time.monotonic_ns()
        if delay > 0:
            time.sleep(delay / 1e9)
        payload = i.to_bytes(8, "big") * 8
        sent = time.monotonic_ns()
        sock.send(payload)
        try:
            while sock.recv(2048) != payload:
                pass
        except socket.timeout:
            lost += 1
            continue
        rtts.append(time.monotonic_ns() - sent)
    rtts.sort()
    print("requests", count)
    print("lost", lost)
    if rtts:
        print("p50_ns", rtts[len(rtts) // 2])
        print("p99_ns", rtts[min(len(rtts) - 1, len(rtts) * 99 // 100)])
        print("max_ns", rtts[-1])


if __name__ == "__main__":
    if sys.argv[1] == "server":
        server(int(sys.argv[2]))
    else:
        client(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]),
               int(sys.argv[5]))
