/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Dequeue statistics from the qdisc:qdisc_dequeue histogram trigger: parse
 * the text of its 'hist' file and summarise it.
 */
#ifndef QBULKSTAT_HIST_H
#define QBULKSTAT_HIST_H

#include <stdbool.h>
#include <stdint.h>

/* Stop reasons, as the event's 'stop' field numbers them */
enum { STOP_NONE, STOP_PACKETS, STOP_BYTES, STOP_BQL, STOP_EMPTY, STOP_TXQ,
       STOP_REASONS };

extern const char *const stop_names[STOP_REASONS];

/* Buckets of packets per dequeue: 1, 2-3, 4-7, ... 64-127, 128 and more */
#define PKT_BUCKETS 8
/* Buckets of bytes per dequeue: below 1500, 1500-2999, ... 96000 and more */
#define BYTE_BUCKETS 8

struct deq_stats {
	uint64_t dequeues;	/* dequeues that returned packets */
	uint64_t packets;
	uint64_t bytes;
	uint64_t largest;	/* most packets in one dequeue */
	uint64_t by_packets[PKT_BUCKETS];
	uint64_t by_bytes[BYTE_BUCKETS];
	uint64_t by_stop[STOP_REASONS];
	uint64_t dropped;	/* events the histogram could not count */
	bool has_bytes;		/* the kernel reports bytes and stop reasons */
};

/* One histogram entry: dequeues of the same size, bytes and stop reason. */
struct hist_entry {
	uint64_t packets;
	uint64_t bytes;
	unsigned int stop;
	uint64_t count;
};

/*
 * Parse one line of a 'hist' file. Returns true for an entry line; the
 * key fields the trigger does not have are left at 0.
 */
bool hist_parse_line(const char *line, struct hist_entry *e);

/* Add all the entries of a 'hist' file's text to @st; bytes, byte buckets
 * and stop reasons only where @st->has_bytes is set. Its "Dropped:" total
 * (events lost when the histogram's map was full) goes to @st->dropped.
 */
void hist_parse(const char *text, struct deq_stats *st);

/* @now - @then, entry by entry (histograms only grow). */
void deq_stats_sub(struct deq_stats *now, const struct deq_stats *then);

int pkt_bucket(uint64_t packets);
int byte_bucket(uint64_t bytes);
/* Printable label of a bucket, such as "4-7" or "1500-2999". */
const char *pkt_bucket_label(int b);
const char *byte_bucket_label(int b);

#endif
