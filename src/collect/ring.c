/*
 * ring.c: one perf ring buffer. The kernel writes records at data_head;
 * we read up to it (acquire: the records are visible once the head is)
 * and hand the space back by storing data_tail (release: we are done
 * reading before the kernel may overwrite). Records are 8-byte aligned and
 * the data area is a power of two of pages, so a header never wraps; a
 * record may, and is then copied whole into the caller's bounce buffer.
 */
#include "config.h"

#include "collect/collect-int.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int ring__map(struct ring *r, int fd, uint32_t pages)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), len = (pages + 1) * page;
	void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	if (m == MAP_FAILED)
		return -errno;
	r->fd = fd;
	r->meta = m;
	r->data = (char *)m + page;
	r->size = (uint64_t)pages * page;
	r->len = len;
	return 0;
}

void ring__unmap(struct ring *r)
{
	if (r->meta)
		munmap(r->meta, r->len);
	r->meta = NULL;
	r->data = NULL;
}

int ring__drain(struct ring *r, char *bounce, struct collect_sink *sink,
		struct collect_stats *st)
{
	uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->meta->data_tail, mask = r->size - 1;
	int ret = 0;

	while (tail < head) {
		uint64_t off = tail & mask;
		const struct perf_event_header *h = (const void *)(r->data + off);
		const char *rec = (const char *)h;
		size_t size = h->size;

		if (size < sizeof(*h) || size > head - tail) {
			tail = head;	/* corrupt: drop what is there */
			break;
		}
		if (off + size > r->size) {
			size_t first = (size_t)(r->size - off);

			memcpy(bounce, r->data + off, first);
			memcpy(bounce + first, r->data, size - first);
			rec = bounce;
		}
		if (h->type == PERF_RECORD_LOST && size >= 24) {
			uint64_t lost;

			/* header, id, lost */
			memcpy(&lost, rec + 16, sizeof(lost));
			st->lost_records++;
			st->lost_events += lost;
		}
		ret = sink->record(sink, rec, size);
		tail += size;
		if (ret)
			break;
		st->records++;
		st->samples += h->type == PERF_RECORD_SAMPLE;
		st->bytes += size;
	}
	__atomic_store_n(&r->meta->data_tail, tail, __ATOMIC_RELEASE);
	return ret;
}
