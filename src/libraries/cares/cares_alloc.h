/* c-ares's memory, tracked (ares_library_init_mem): a run cut short inside
 * c-ares (the budget spent, the trace full: the simulator longjmps out of
 * the library) leaves what the interrupted calls held in their locals, which
 * ares_destroy() cannot see; the harness frees it after ares_destroy(). */
#ifndef QUIETPOLL_CARES_ALLOC_H
#define QUIETPOLL_CARES_ALLOC_H

#include <stddef.h>

/* c-ares's allocator: ares_library_init_mem(flags, qp_cares_malloc,
 * qp_cares_free, qp_cares_realloc). */
void *qp_cares_malloc(size_t size);
void qp_cares_free(void *p);
void *qp_cares_realloc(void *p, size_t size);

/* Frees every block c-ares still holds: after ares_destroy(), nothing of a
 * run's is c-ares's any more. Returns how many there were. */
size_t qp_cares_free_orphans(void);

#endif
