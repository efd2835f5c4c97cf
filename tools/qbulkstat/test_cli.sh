#!/bin/bash
# qbulkstat's command line, without root or tracefs: usage, --help and
# the exit codes that come before any tracing. Prints TAP.
#   test_cli.sh QBULKSTAT
set -u
tool=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0

# run WANT_STATUS ARGS...: run the tool, ok if it exits WANT_STATUS
run() {
	local want=$1 status

	shift
	n=$((n + 1))
	"$tool" "$@" > "$tmp/out" 2> "$tmp/err"
	status=$?
	if [ "$status" = "$want" ]; then
		echo "ok $n - qbulkstat $* exits $want"
	else
		echo "not ok $n - qbulkstat $* exits $status, not $want"
	fi
}

# expect DESCRIPTION COMMAND...: a check on the last run's output
expect() {
	n=$((n + 1))
	if "${@:2}"; then
		echo "ok $n - $1"
	else
		echo "not ok $n - $1"
	fi
}

run 0 --help
expect "--help prints the usage on stdout" grep -q '^usage: qbulkstat' "$tmp/out"
expect "--help lists the exit codes" grep -q '^Exit status: 0, 1' "$tmp/out"
run 0 -h
run 2
expect "no interface: the usage on stderr" grep -q '^usage: qbulkstat' "$tmp/err"
run 2 -x lo
run 2 -i 0 lo
run 2 -i -1 lo
run 2 -p -j lo
run 2 lo lo
run 1 nosuchif0
expect "an unknown interface is one line naming it" \
	test "$(cat "$tmp/err")" = "qbulkstat: no interface nosuchif0"
echo "1..$n"
