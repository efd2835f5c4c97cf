// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"

const char *const stop_names[STOP_REASONS] = {
	"none", "packets", "bytes", "bql", "empty", "txq",
};

static const char *const pkt_labels[PKT_BUCKETS] = {
	"1", "2-3", "4-7", "8-15", "16-31", "32-63", "64-127", "128+",
};

static const char *const byte_labels[BYTE_BUCKETS] = {
	"<1500", "1500-2999", "3000-5999", "6000-11999", "12000-23999",
	"24000-47999", "48000-95999", "96000+",
};

int pkt_bucket(uint64_t packets)
{
	int b = 0;

	while (packets > 1 && b < PKT_BUCKETS - 1) {
		packets >>= 1;
		b++;
	}
	return b;
}

int byte_bucket(uint64_t bytes)
{
	uint64_t top = 1500;
	int b = 0;

	while (bytes >= top && b < BYTE_BUCKETS - 1) {
		top *= 2;
		b++;
	}
	return b;
}

const char *pkt_bucket_label(int b)
{
	return pkt_labels[b];
}

const char *byte_bucket_label(int b)
{
	return byte_labels[b];
}

/* The number after "NAME:" in @line, if there is one. */
static bool field(const char *line, const char *name, uint64_t *val)
{
	size_t len = strlen(name);
	const char *p = line;

	while ((p = strstr(p, name))) {
		if ((p == line || p[-1] == ' ' || p[-1] == '{') && p[len] == ':') {
			*val = strtoull(p + len + 1, NULL, 10);
			return true;
		}
		p += len;
	}
	return false;
}

bool hist_parse_line(const char *line, struct hist_entry *e)
{
	uint64_t stop = 0;

	memset(e, 0, sizeof(*e));
	if (strncmp(line, "{ ", 2) || !field(line, "packets", &e->packets) ||
	    !field(line, "hitcount", &e->count))
		return false;
	field(line, "bytes", &e->bytes);
	field(line, "stop", &stop);
	e->stop = stop < STOP_REASONS ? stop : STOP_NONE;
	return true;
}

void hist_parse(const char *text, struct deq_stats *st)
{
	const char *line = text;
	struct hist_entry e;
	uint64_t dropped;

	while (line && *line) {
		if (!strncmp(line, "    Dropped:", 12) &&
		    field(line, "Dropped", &dropped))
			st->dropped += dropped;
		if (hist_parse_line(line, &e) && e.packets) {
			st->dequeues += e.count;
			st->packets += e.packets * e.count;
			st->bytes += e.bytes * e.count;
			if (e.packets > st->largest)
				st->largest = e.packets;
			st->by_packets[pkt_bucket(e.packets)] += e.count;
			if (st->has_bytes) {
				st->by_bytes[byte_bucket(e.bytes)] += e.count;
				st->by_stop[e.stop] += e.count;
			}
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
}

void deq_stats_sub(struct deq_stats *now, const struct deq_stats *then)
{
	int i;

	now->dequeues -= then->dequeues;
	now->packets -= then->packets;
	now->bytes -= then->bytes;
	now->dropped -= then->dropped;
	for (i = 0; i < PKT_BUCKETS; i++)
		now->by_packets[i] -= then->by_packets[i];
	for (i = 0; i < BYTE_BUCKETS; i++)
		now->by_bytes[i] -= then->by_bytes[i];
	for (i = 0; i < STOP_REASONS; i++)
		now->by_stop[i] -= then->by_stop[i];
}
