/* c-ares's memory, tracked (see cares_alloc.h): each block carries a header
 * linking it into one list of the blocks c-ares holds. The list is
 * process-wide, as c-ares's allocator is; runs on one thread use it. */
#include "cares_alloc.h"

#include <stdalign.h>
#include <stdlib.h>

typedef struct block {
    struct block *prev, *next;
    alignas(max_align_t) unsigned char data[];
} block;

static block held = {&held, &held};

static void link_in(block *b)
{
    b->prev = &held;
    b->next = held.next;
    held.next->prev = b;
    held.next = b;
}

static void unlink_out(block *b)
{
    b->prev->next = b->next;
    b->next->prev = b->prev;
}

static block *block_of(void *p)
{
    return (block *)((unsigned char *)p - offsetof(block, data));
}

void *qp_cares_malloc(size_t size)
{
    block *b = malloc(sizeof(block) + size);
    if (b == NULL)
        return NULL;
    link_in(b);
    return b->data;
}

void qp_cares_free(void *p)
{
    if (p == NULL)
        return;
    block *b = block_of(p);
    unlink_out(b);
    free(b);
}

void *qp_cares_realloc(void *p, size_t size)
{
    if (p == NULL)
        return qp_cares_malloc(size);
    block *b = block_of(p);
    unlink_out(b);
    block *moved = realloc(b, sizeof(block) + size);
    if (moved == NULL) {
        link_in(b); /* the old block stays c-ares's */
        return NULL;
    }
    link_in(moved);
    return moved->data;
}

size_t qp_cares_free_orphans(void)
{
    size_t count = 0;
    while (held.next != &held) {
        block *b = held.next;
        unlink_out(b);
        free(b);
        count++;
    }
    return count;
}
