// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of hist.c, on 'hist' files as the kernel writes them; with a
 * file argument, on that file (tests/qbulkstat-guest.sh gives it one the
 * kernel under test wrote).
 */
#include <stdio.h>
#include <string.h>

#include "hist.h"

static int failed, count;

#define CHECK(cond) do {						\
	count++;							\
	if (!(cond)) {							\
		failed++;						\
		printf("not ok %d - %s (line %d)\n", count, #cond, __LINE__); \
	} else {							\
		printf("ok %d - %s\n", count, #cond);			\
	}								\
} while (0)

/* A patched kernel: keys packets, bytes and stop */
static const char patched[] =
	"# event histogram\n"
	"#\n"
	"# trigger info: hist:keys=packets,bytes,stop:vals=hitcount:sort=hitcount:size=8192 if ifindex == 3 && skbaddr != 0 [active]\n"
	"#\n"
	"\n"
	"{ packets:          1, bytes:       1000, stop:          1 } hitcount:        297\n"
	"{ packets:          2, bytes:       2000, stop:          2 } hitcount:         10\n"
	"{ packets:         65, bytes:      65000, stop:          3 } hitcount:          3\n"
	"\n"
	"Totals:\n"
	"    Hits: 310\n"
	"    Entries: 3\n"
	"    Dropped: 4\n";

/* The base kernel: packets only */
static const char base[] =
	"# event histogram\n"
	"{ packets:          1 } hitcount:         12\n"
	"{ packets:          9 } hitcount:          2\n";

static void test_buckets(void)
{
	CHECK(pkt_bucket(1) == 0);
	CHECK(pkt_bucket(2) == 1 && pkt_bucket(3) == 1);
	CHECK(pkt_bucket(4) == 2 && pkt_bucket(7) == 2);
	CHECK(pkt_bucket(127) == 6 && pkt_bucket(128) == 7);
	CHECK(pkt_bucket(5000) == PKT_BUCKETS - 1);
	CHECK(byte_bucket(0) == 0 && byte_bucket(1499) == 0);
	CHECK(byte_bucket(1500) == 1 && byte_bucket(2999) == 1);
	CHECK(byte_bucket(3000) == 2);
	CHECK(byte_bucket(95999) == 6 && byte_bucket(96000) == 7);
	CHECK(!strcmp(pkt_bucket_label(2), "4-7"));
	CHECK(!strcmp(byte_bucket_label(1), "1500-2999"));
}

static void test_line(void)
{
	struct hist_entry e;

	CHECK(hist_parse_line("{ packets:          2, bytes:       2000, stop:          4 } hitcount:         10", &e));
	CHECK(e.packets == 2 && e.bytes == 2000 && e.stop == 4 && e.count == 10);
	CHECK(!hist_parse_line("    Hits: 310", &e));
	CHECK(!hist_parse_line("# trigger info: hist:keys=packets,bytes,stop", &e));
	/* An unknown stop reason counts as none */
	CHECK(hist_parse_line("{ packets: 1, bytes: 60, stop: 77 } hitcount: 1", &e));
	CHECK(e.stop == STOP_NONE);
}

static void test_patched(void)
{
	struct deq_stats st = { .has_bytes = true };

	hist_parse(patched, &st);
	CHECK(st.dequeues == 310);
	CHECK(st.packets == 297 + 2 * 10 + 65 * 3);
	CHECK(st.bytes == 297000 + 20000 + 195000);
	CHECK(st.largest == 65);
	CHECK(st.by_packets[0] == 297 && st.by_packets[1] == 10 &&
	      st.by_packets[6] == 3);
	CHECK(st.by_bytes[0] == 297 && st.by_bytes[1] == 10 &&
	      st.by_bytes[6] == 3);
	CHECK(st.by_stop[STOP_PACKETS] == 297 && st.by_stop[STOP_BYTES] == 10 &&
	      st.by_stop[STOP_BQL] == 3 && st.by_stop[STOP_EMPTY] == 0);
	CHECK(st.dropped == 4);
}

static void test_base(void)
{
	struct deq_stats st = { 0 };

	hist_parse(base, &st);
	CHECK(st.dequeues == 14 && st.packets == 30 && st.largest == 9);
	CHECK(st.bytes == 0 && st.by_stop[STOP_NONE] == 0);
	CHECK(st.by_packets[0] == 12 && st.by_packets[3] == 2);
	CHECK(st.dropped == 0);
}

static void test_sub(void)
{
	struct deq_stats then = { .has_bytes = true };
	struct deq_stats now = { .has_bytes = true };

	hist_parse(patched, &then);
	hist_parse(patched, &now);
	hist_parse("{ packets: 4, bytes: 4000, stop: 4 } hitcount: 5\n"
		   "    Dropped: 6\n", &now);
	deq_stats_sub(&now, &then);
	CHECK(now.dropped == 6);
	CHECK(now.dequeues == 5 && now.packets == 20 && now.bytes == 20000);
	CHECK(now.by_packets[2] == 5 && now.by_packets[0] == 0);
	CHECK(now.by_stop[STOP_EMPTY] == 5 && now.by_stop[STOP_PACKETS] == 0);
}

/*
 * A 'hist' file the running kernel wrote: what hist_parse() finds must
 * match the totals the kernel prints at its end.
 */
static void test_file(const char *path)
{
	struct deq_stats st = { .has_bytes = true };
	unsigned long long hits = 0, entries = 0, dropped = 1;
	static char text[1 << 20];
	char line[512];
	struct hist_entry e;
	unsigned long long n = 0;
	size_t len = 0;
	FILE *f;

	f = fopen(path, "r");
	CHECK(f != NULL);
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (hist_parse_line(line, &e))
			n++;
		sscanf(line, " Hits: %llu", &hits);
		sscanf(line, " Entries: %llu", &entries);
		sscanf(line, " Dropped: %llu", &dropped);
		if (len + strlen(line) < sizeof(text)) {
			strcpy(text + len, line);
			len += strlen(line);
		}
	}
	fclose(f);
	hist_parse(text, &st);
	CHECK(entries > 0 && n == entries);
	CHECK(hits > 0 && st.dequeues == hits);
	CHECK(dropped == 0 && st.dropped == dropped);
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		test_file(argv[1]);
		printf("1..%d\n", count);
		return failed ? 1 : 0;
	}
	test_buckets();
	test_line();
	test_patched();
	test_base();
	test_sub();
	printf("1..%d\n", count);
	return failed ? 1 : 0;
}
