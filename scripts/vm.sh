#!/bin/bash
# Boot a kernel under QEMU (TCG) with the host root read-only over 9p, two
# igb NICs joined by a hub, two virtio-net NICs joined by another, and run
# one command in the guest.
#   vm.sh [-k BZIMAGE] [-o OUTDIR] [-t SECONDS] -- CMD...   run CMD, exit with its code
#   vm.sh [-k BZIMAGE] -i                                  interactive shell
# The guest sees OUTDIR read-write at $QBULK_OUT. The kernel console is
# the first serial port, written to OUTDIR/kernel.log as it comes (a guest
# that hangs still leaves it); CMD's output is the second, shown and kept
# in OUTDIR/console.log; dmesg is saved to OUTDIR/dmesg at the end.
# Extra QEMU options come from $QBULK_QEMU_OPTS, extra kernel parameters
# from $QBULK_APPEND.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

kernel=$(kernel_out debug qbulk)/arch/x86/boot/bzImage
outdir=$BUILD/vm
limit=1800
interactive=
while getopts k:o:t:i opt; do
	case $opt in
	k) kernel=$OPTARG ;;
	o) outdir=$OPTARG ;;
	t) limit=$OPTARG ;;
	i) interactive=1 ;;
	*) die "usage: vm.sh [-k BZIMAGE] [-o OUTDIR] [-t SECONDS] [-i] -- CMD..." ;;
	esac
done
shift $((OPTIND - 1))
[ -f "$kernel" ] || die "no kernel at $kernel (make build)"
[ -n "$interactive" ] || [ $# -gt 0 ] || die "no command to run"

mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)
rm -f "$outdir"/{rc,dmesg,console.log,kernel.log,kernel-stalled-*.log,qemu-trace.log}
printf '%q ' "$@" > "$outdir/cmd"

# Only errors on the console by default: each line printed costs the
# guest time under emulation, which would weigh on benchmark runs.
# QBULK_LOGLEVEL=7 prints all but debug messages (KUnit's results are
# info); an interactive shell's terminal always gets errors only.
loglevel=${QBULK_LOGLEVEL:-4}
[ -z "$interactive" ] || loglevel=4
append="console=ttyS0 loglevel=$loglevel log_buf_len=8M panic=-1 ro"
append+=" root=hostroot rootfstype=9p"
append+=" rootflags=trans=virtio,version=9p2000.L,msize=512000,cache=loose"
append+=" init=$PWD/vm/init.sh QBULK_DIR=$PWD QBULK_SHELL=$interactive"
append+=" ${QBULK_APPEND:-}"

# QBULK_ICOUNT=1: guest time counts instructions (one per nanosecond),
# which needs single-threaded TCG.
accel=(-accel "tcg,thread=multi")
[ -z "${QBULK_ICOUNT:-}" ] ||
	accel=(-accel "tcg,thread=single" -icount "shift=0,sleep=off")
# Four-level paging (la57=off): with five levels, an interrupt that comes
# while identify_cpu() has cleared the boot CPU's feature bits makes KASAN
# take a direct-map address for a wild one and report it (seen in 2 of 7
# boots of the debug kernel).
qemu=(qemu-system-x86_64 -machine q35 "${accel[@]}" -cpu "max,la57=off"
	-smp 2 -m 1G -nodefaults -display none -no-reboot
	-kernel "$kernel" -append "$append"
	-fsdev "local,id=root,path=/,security_model=none,readonly=on"
	-device "virtio-9p-pci,fsdev=root,mount_tag=hostroot"
	-fsdev "local,id=out,path=$outdir,security_model=none"
	-device "virtio-9p-pci,fsdev=out,mount_tag=qbulk-out")
# Two igb NICs on one hub: one sends, the other (in a netns) receives.
# On q35 each needs its own root port or their SR-IOV slots collide.
for n in 1 2; do
	qemu+=(-device "pcie-root-port,id=rp$n,chassis=$n"
		-netdev "hubport,id=hp$n,hubid=0"
		-device "igb,bus=rp$n,netdev=hp$n,mac=52:54:00:00:00:0$n")
done
# Two virtio-net NICs on a hub of their own (the igb hub would flood
# them): 03 sends, 04 receives, with QEMU's largest rx ring so that it
# holds a whole test run. QEMU logs each notification the guest makes on
# a virtqueue, and each write to an igb transmit tail register, to
# OUTDIR/qemu-trace.log (with any event that $QBULK_QEMU_OPTS enables),
# which the guest reads to check the drivers' kick and doorbell counts
# (trace_log). The sending NIC has no ioeventfd, so that each
# kick is a write QEMU handles, and logs, at once: through an eventfd, two
# kicks made before QEMU reads it are one notification. $QBULK_VIRTIO_OPTS
# are extra properties of the sending NIC.
for n in 3 4; do
	opts=virtio-net-pci,netdev=hp$n,mac=52:54:00:00:00:0$n,disable-legacy=on
	if [ "$n" = 3 ]; then
		opts+=,ioeventfd=off${QBULK_VIRTIO_OPTS:+,$QBULK_VIRTIO_OPTS}
	else
		opts+=,rx_queue_size=1024
	fi
	qemu+=(-netdev "hubport,id=hp$n,hubid=1" -device "$opts")
done
qemu+=(-trace enable=virtio_queue_notify -trace enable=e1000e_core_write)
# shellcheck disable=SC2206 # word splitting of extra options is wanted
qemu+=(${QBULK_QEMU_OPTS:-})

# Each hub joins two NICs and nothing of the host's, as intended, and QEMU
# warns about that on every boot; those lines are dropped, the rest of
# its stderr kept.
quiet_hub() {
	grep -v -x -E "qemu-system-x86_64: warning: hub [01] is not connected to host network" >&2 || true
}

# trace_log: QEMU's trace log into OUTDIR/qemu-trace.log, but for the
# notifications on the first virtqueue of a device and igb's register
# writes other than a transmit tail's (TDT of queue n is at 0xe018 +
# 0x40 * n). The first are the 9p shares' (the guest's root and OUTDIR),
# nearly all of the log, and the receive queue 0 refills of the NICs; no
# test counts them or the others. The guest reads this log over 9p at a
# few KB/s, and each request it sends for that would be a line of its
# own.
trace_log() {
	awk '/^virtio_queue_notify .* n 0 / { next }
	     /^e1000e_core_write / && !/ register 0xe[0-3][159d]8,/ { next }
	     { print; fflush() }' > "$outdir/qemu-trace.log"
}

if [ -n "$interactive" ]; then
	exec "${qemu[@]}" -D >(trace_log) -serial mon:stdio 2> >(quiet_hub)
fi

# watch_boot: stop QEMU if the guest's init has not started within
# $boot_limit seconds: TCG has been seen to stall the guest's timers
# early in boot (RCU stall reports, then nothing), and such a guest
# would only end at $limit.
boot_limit=${QBULK_BOOT_LIMIT:-300}
watch_boot() {
	local waited=0

	while ((waited < boot_limit)); do
		sleep 5
		waited=$((waited + 5))
		[ ! -e "$outdir/started" ] || return 0
	done
	: > "$outdir/stalled"
	kill "$(cat "$outdir/qemu.pid")"
}

for try in 1 2 3; do
	rm -f "$outdir"/{started,stalled,qemu.pid}
	watch_boot &
	watcher=$!
	timeout --foreground "$limit" "${qemu[@]}" -D >(trace_log) \
		-pidfile "$outdir/qemu.pid" \
		-serial "file:$outdir/kernel.log" -serial stdio </dev/null \
		2> >(quiet_hub) | tee "$outdir/console.log" || true
	kill "$watcher" 2>/dev/null || true
	wait "$watcher" 2>/dev/null || true
	[ -e "$outdir/stalled" ] || break
	mv "$outdir/kernel.log" "$outdir/kernel-stalled-$try.log"
	echo "vm: the guest stalled before its init ran (boot $try of 3," \
		"see $outdir/kernel-stalled-$try.log)" >&2
done
[ -f "$outdir/rc" ] ||
	die "the guest did not finish (see $outdir/console.log and kernel.log)"
rc=$(cat "$outdir/rc")
# The kernel's messages are not shown: where to find them when it failed
[ "$rc" = 0 ] || echo "vm: the command exited $rc; kernel log: $outdir/kernel.log" >&2
exit "$rc"
