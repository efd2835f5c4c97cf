// SPDX-License-Identifier: GPL-2.0
/*
 * qbulkstat: how the qdisc layer bulks on one interface, live.
 *
 *   qbulkstat [-1] [-p | -j] [-i SECONDS] IFACE
 *
 * Sets a histogram trigger on the qdisc:qdisc_dequeue tracepoint for
 * IFACE and shows, every interval, the dequeues of that interval: packets
 * and bytes per dequeue, why bulks stopped (where the kernel reports it)
 * and, where the driver counts them, doorbells per packet. -1 shows one
 * interval and exits; -p prints "KEY VALUE" lines for scripts instead of
 * the table, -j one JSON object per interval. The trigger is removed on
 * exit. Exits 0, 1 on an error, 2 on a usage error (qbulkstat.rst).
 */
#include <errno.h>
#include <getopt.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <tracefs.h>

#include "hist.h"

#define SYSTEM	"qdisc"
#define EVENT	"qdisc_dequeue"

struct doorbells {
	uint64_t doorbells, xmit_more, flushes;
	bool found;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* Why the tracepoint cannot be used, in words an operator can act on. */
static const char *tracing_problem(void)
{
	const char *dir = tracefs_tracing_dir();

	if (!dir)
		return "tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)";
	if (access(dir, R_OK | X_OK))
		return "cannot read tracefs (run as root)";
	if (!tracefs_event_file_exists(NULL, SYSTEM, EVENT, "format"))
		return "this kernel has no qdisc:qdisc_dequeue tracepoint (CONFIG_NET_SCHED and CONFIG_TRACING)";
	if (!tracefs_event_file_exists(NULL, SYSTEM, EVENT, "hist"))
		return "this kernel has no histogram triggers (CONFIG_HIST_TRIGGERS)";
	return NULL;
}

/* Whether the event carries the fields the qbulk series adds. The stop
 * field is a u8 on 6.12 and an enum qdisc_bulk_stop on 7.3: a field named
 * stop of either type will do.
 */
static bool event_has_bytes(void)
{
	char *format;
	bool ok;

	format = tracefs_event_file_read(NULL, SYSTEM, EVENT, "format", NULL);
	ok = format && (strstr(format, "field:u8 stop;") ||
			strstr(format, "field:enum qdisc_bulk_stop stop;")) &&
	     strstr(format, "field:unsigned int bytes;");
	free(format);
	return ok;
}

static int trigger_write(const char *trigger)
{
	if (tracefs_event_file_write(NULL, SYSTEM, EVENT, "trigger",
				     trigger) < 0)
		return -errno;
	return 0;
}

static int read_stats(struct deq_stats *st, bool has_bytes)
{
	char *text = tracefs_event_file_read(NULL, SYSTEM, EVENT, "hist", NULL);

	if (!text)
		return -errno;
	memset(st, 0, sizeof(*st));
	st->has_bytes = has_bytes;
	hist_parse(text, st);
	free(text);
	return 0;
}

/* Sum NAME's per-queue doorbell counters from ethtool -S (SIOCETHTOOL). */
static void read_doorbells(const char *ifname, struct doorbells *db)
{
	struct ethtool_gstrings *names = NULL;
	struct ethtool_stats *vals = NULL;
	struct {
		struct ethtool_sset_info info;
		uint32_t len;
	} sset = { .info = { .cmd = ETHTOOL_GSSET_INFO,
			     .sset_mask = 1ULL << ETH_SS_STATS } };
	struct ifreq ifr = { 0 };
	uint32_t n, i;
	int fd;

	memset(db, 0, sizeof(*db));
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		return;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = (void *)&sset;
	if (ioctl(fd, SIOCETHTOOL, &ifr) || !sset.info.sset_mask)
		goto out;
	n = sset.len;
	names = calloc(1, sizeof(*names) + n * ETH_GSTRING_LEN);
	vals = calloc(1, sizeof(*vals) + n * sizeof(uint64_t));
	if (!names || !vals)
		goto out;
	names->cmd = ETHTOOL_GSTRINGS;
	names->string_set = ETH_SS_STATS;
	names->len = n;
	ifr.ifr_data = (void *)names;
	if (ioctl(fd, SIOCETHTOOL, &ifr))
		goto out;
	vals->cmd = ETHTOOL_GSTATS;
	vals->n_stats = n;
	ifr.ifr_data = (void *)vals;
	if (ioctl(fd, SIOCETHTOOL, &ifr))
		goto out;
	for (i = 0; i < n; i++) {
		const char *s = (const char *)names->data + i * ETH_GSTRING_LEN;
		unsigned int q;
		char what[ETH_GSTRING_LEN];

		if (sscanf(s, "tx_queue_%u_%31s", &q, what) != 2)
			continue;
		if (!strcmp(what, "doorbells")) {
			db->doorbells += vals->data[i];
			db->found = true;
		} else if (!strcmp(what, "xmit_more")) {
			db->xmit_more += vals->data[i];
		} else if (!strcmp(what, "flushes")) {
			db->flushes += vals->data[i];
		}
	}
out:
	free(names);
	free(vals);
	close(fd);
}

static double ratio(uint64_t a, uint64_t b)
{
	return b ? (double)a / b : 0;
}

static void print_bar(const char *label, uint64_t n, uint64_t total)
{
	int width = total ? (int)(40 * n / total) : 0;

	printf("  %-12s %10llu %5.1f%% %.*s\n", label, (unsigned long long)n,
	       100 * ratio(n, total), width,
	       "########################################");
}

static void print_table(const char *ifname, double secs,
			const struct deq_stats *st, const struct doorbells *db)
{
	int i;

	printf("%s: %.1f s, %llu dequeues, %llu packets", ifname, secs,
	       (unsigned long long)st->dequeues,
	       (unsigned long long)st->packets);
	if (st->has_bytes)
		printf(", %llu bytes", (unsigned long long)st->bytes);
	printf("\n  %.2f packets per dequeue, largest %llu since start\n",
	       ratio(st->packets, st->dequeues),
	       (unsigned long long)st->largest);
	if (st->dropped)
		printf("  %llu dequeues not counted: the histogram is full\n",
		       (unsigned long long)st->dropped);
	printf("\npackets per dequeue\n");
	for (i = 0; i < PKT_BUCKETS; i++)
		print_bar(pkt_bucket_label(i), st->by_packets[i], st->dequeues);
	if (st->has_bytes) {
		printf("\nbytes per dequeue (%.0f on average)\n",
		       ratio(st->bytes, st->dequeues));
		for (i = 0; i < BYTE_BUCKETS; i++)
			print_bar(byte_bucket_label(i), st->by_bytes[i],
				  st->dequeues);
		printf("\nwhy bulks stopped\n");
		for (i = 0; i < STOP_REASONS; i++)
			print_bar(stop_names[i], st->by_stop[i], st->dequeues);
	} else {
		printf("\nbytes and stop reasons: not reported by this kernel\n");
	}
	if (db->found)
		printf("\ndoorbells per packet %.3f (doorbells %llu, xmit_more %llu, flushes %llu)\n",
		       ratio(db->doorbells + db->flushes,
			     db->doorbells + db->xmit_more),
		       (unsigned long long)db->doorbells,
		       (unsigned long long)db->xmit_more,
		       (unsigned long long)db->flushes);
	else
		printf("\ndoorbells: not reported by the driver of %s\n", ifname);
}

static void print_keys(const struct deq_stats *st, const struct doorbells *db)
{
	int i;

	printf("dequeues %llu\npackets %llu\nlargest %llu\ndropped %llu\n",
	       (unsigned long long)st->dequeues,
	       (unsigned long long)st->packets,
	       (unsigned long long)st->largest,
	       (unsigned long long)st->dropped);
	for (i = 0; i < PKT_BUCKETS; i++)
		printf("packets_per_dequeue %s %llu\n", pkt_bucket_label(i),
		       (unsigned long long)st->by_packets[i]);
	if (st->has_bytes) {
		printf("bytes %llu\n", (unsigned long long)st->bytes);
		for (i = 0; i < BYTE_BUCKETS; i++)
			printf("bytes_per_dequeue %s %llu\n",
			       byte_bucket_label(i),
			       (unsigned long long)st->by_bytes[i]);
		for (i = 0; i < STOP_REASONS; i++)
			printf("stop %s %llu\n", stop_names[i],
			       (unsigned long long)st->by_stop[i]);
	}
	if (db->found)
		printf("doorbells %llu\nxmit_more %llu\nflushes %llu\n",
		       (unsigned long long)db->doorbells,
		       (unsigned long long)db->xmit_more,
		       (unsigned long long)db->flushes);
}

/* One JSON object on one line: the figures of print_keys(). */
static void print_json(const char *ifname, double secs,
		       const struct deq_stats *st, const struct doorbells *db)
{
	const char *c;
	int i;

	/* An interface name may hold a quote or a backslash */
	printf("{\"interface\":\"");
	for (c = ifname; *c; c++)
		printf(*c == '"' || *c == '\\' ? "\\%c" : "%c", *c);
	printf("\",\"interval\":%g,\"dequeues\":%llu,"
	       "\"packets\":%llu,\"largest\":%llu,\"dropped\":%llu,"
	       "\"packets_per_dequeue\":{",
	       secs, (unsigned long long)st->dequeues,
	       (unsigned long long)st->packets,
	       (unsigned long long)st->largest,
	       (unsigned long long)st->dropped);
	for (i = 0; i < PKT_BUCKETS; i++)
		printf("%s\"%s\":%llu", i ? "," : "", pkt_bucket_label(i),
		       (unsigned long long)st->by_packets[i]);
	printf("}");
	if (st->has_bytes) {
		printf(",\"bytes\":%llu,\"bytes_per_dequeue\":{",
		       (unsigned long long)st->bytes);
		for (i = 0; i < BYTE_BUCKETS; i++)
			printf("%s\"%s\":%llu", i ? "," : "",
			       byte_bucket_label(i),
			       (unsigned long long)st->by_bytes[i]);
		printf("},\"stop\":{");
		for (i = 0; i < STOP_REASONS; i++)
			printf("%s\"%s\":%llu", i ? "," : "", stop_names[i],
			       (unsigned long long)st->by_stop[i]);
		printf("}");
	}
	if (db->found)
		printf(",\"doorbells\":%llu,\"xmit_more\":%llu,\"flushes\":%llu",
		       (unsigned long long)db->doorbells,
		       (unsigned long long)db->xmit_more,
		       (unsigned long long)db->flushes);
	printf("}\n");
}

static const char usage_text[] =
	"usage: qbulkstat [-1] [-p | -j] [-i SECONDS] IFACE\n"
	"Bulk dequeues of the qdiscs of IFACE, per interval.\n"
	"  -1, --once              one interval, then exit\n"
	"  -p, --keys              KEY VALUE lines instead of the table\n"
	"  -j, --json              one JSON object per interval\n"
	"  -i, --interval SECONDS  the interval (default 1)\n"
	"  -h, --help              this text\n"
	"Exit status: 0, 1 on an error, 2 on a usage error.\n";

static void usage(int status)
{
	fputs(usage_text, status ? stderr : stdout);
	exit(status);
}

static const struct option long_options[] = {
	{ "once", no_argument, NULL, '1' },
	{ "keys", no_argument, NULL, 'p' },
	{ "json", no_argument, NULL, 'j' },
	{ "interval", required_argument, NULL, 'i' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

int main(int argc, char **argv)
{
	struct doorbells db, db_prev, db_delta;
	struct deq_stats cur, prev, delta;
	bool once = false, keys = false, json = false;
	char trigger[256], remove[258];
	const char *problem, *ifname;
	unsigned int ifindex;
	bool has_bytes, gone = false;
	double secs = 1;
	int opt, err;

	while ((opt = getopt_long(argc, argv, "1pji:h", long_options,
				  NULL)) != -1) {
		switch (opt) {
		case '1':
			once = true;
			break;
		case 'p':
			keys = true;
			break;
		case 'j':
			json = true;
			break;
		case 'i':
			secs = atof(optarg);
			if (secs <= 0)
				usage(2);
			break;
		case 'h':
			usage(0);
			break;
		default:
			usage(2);
		}
	}
	if (optind != argc - 1 || (keys && json))
		usage(2);
	ifname = argv[optind];
	ifindex = if_nametoindex(ifname);
	if (!ifindex) {
		fprintf(stderr, "qbulkstat: no interface %s\n", ifname);
		return 1;
	}
	problem = tracing_problem();
	if (problem) {
		fprintf(stderr, "qbulkstat: %s\n", problem);
		return 1;
	}
	has_bytes = event_has_bytes();
	snprintf(trigger, sizeof(trigger),
		 "hist:keys=%s:vals=hitcount:size=8192 if ifindex == %u && skbaddr != 0",
		 has_bytes ? "packets,bytes,stop" : "packets", ifindex);
	err = trigger_write(trigger);
	if (err) {
		fprintf(stderr, "qbulkstat: cannot set a histogram on %s:%s: %s%s\n",
			SYSTEM, EVENT, strerror(-err),
			err == -EACCES || err == -EPERM ? " (run as root)" :
			err == -EEXIST ? " (another histogram is set)" : "");
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	/*
	 * Doorbells first: a packet dequeued between the two reads then counts
	 * in the interval with its doorbell, not without it. At the end of an
	 * interval the order is the other way round, for the same reason.
	 */
	read_doorbells(ifname, &db_prev);
	err = read_stats(&prev, has_bytes);
	while (!err && !stop) {
		struct timespec ts = { (time_t)secs,
				       (long)((secs - (time_t)secs) * 1e9) };

		if (nanosleep(&ts, NULL) && stop)
			break;
		if (if_nametoindex(ifname) != ifindex) {
			fprintf(stderr, "qbulkstat: interface %s is gone\n",
				ifname);
			gone = true;
			break;
		}
		err = read_stats(&cur, has_bytes);
		if (err)
			break;
		read_doorbells(ifname, &db);
		delta = cur;
		deq_stats_sub(&delta, &prev);
		prev = cur;
		db_delta = db;
		db_delta.doorbells -= db_prev.doorbells;
		db_delta.xmit_more -= db_prev.xmit_more;
		db_delta.flushes -= db_prev.flushes;
		db_prev = db;
		if (keys) {
			print_keys(&delta, &db_delta);
		} else if (json) {
			print_json(ifname, secs, &delta, &db_delta);
		} else {
			if (!once && isatty(STDOUT_FILENO))
				printf("\033[H\033[2J");
			print_table(ifname, secs, &delta, &db_delta);
		}
		fflush(stdout);
		if (once)
			break;
	}
	snprintf(remove, sizeof(remove), "!%s", trigger);
	trigger_write(remove);
	if (err)
		fprintf(stderr, "qbulkstat: reading the histogram: %s\n",
			strerror(-err));
	return err || gone ? 1 : 0;
}
