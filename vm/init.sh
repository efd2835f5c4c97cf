#!/bin/bash
# PID 1 in the test VM. Mounts what tests need, runs the command that
# scripts/vm.sh left in the out share (or a shell), saves the kernel log and
# the exit code there, and powers off.
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t tmpfs run /run
# The repo may live under the host's /tmp, which the guest's own /tmp
# covers: reach it through a bind mount made before that.
mkdir /run/qbulk
mount --bind "$QBULK_DIR" /run/qbulk
mount -t tmpfs tmp /tmp
mount -t debugfs debug /sys/kernel/debug
mount -t tracefs trace /sys/kernel/tracing
mkdir -p /dev/pts /dev/shm /tmp/out
# devtmpfs has no /dev/fd and /dev/std*; udev would make them.
ln -s /proc/self/fd /dev/fd
ln -s /proc/self/fd/0 /dev/stdin
ln -s /proc/self/fd/1 /dev/stdout
ln -s /proc/self/fd/2 /dev/stderr
mount -t devpts devpts /dev/pts
mount -t tmpfs shm /dev/shm
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 qbulk-out /tmp/out
# Tells scripts/vm.sh that the boot got this far
: > /tmp/out/started

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp TERM=${TERM:-linux} QBULK_OUT=/tmp/out
hostname qbulk-vm
ip link set lo up
cd /run/qbulk || exit 1

if [ -n "$QBULK_SHELL" ]; then
	setsid -c bash -i </dev/ttyS0 >/dev/ttyS0 2>&1
	rc=$?
else
	# The kernel's console is ttyS0; the command has ttyS1 to itself.
	bash /tmp/out/cmd </dev/null >/dev/ttyS1 2>&1
	rc=$?
fi
dmesg > /tmp/out/dmesg
echo "$rc" > /tmp/out/rc
sync
umount /tmp/out
busybox poweroff -f
