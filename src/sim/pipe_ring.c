/* A pipe's buffers: a ring of QP_PIPE_SLOTS slots, each a page of bytes
 * (fs/pipe.c's pipe_buffer: a page, its offset and its length). A write
 * first merges what it can into the newest buffer (while that buffer's page
 * has room: pipe_write's "merge" of a partial page), then takes new slots a
 * page at a time; a write of up to QP_PIPE_BUF bytes is all or nothing. A
 * read copies the bytes out in order; a slot is freed only when its buffer
 * is fully consumed, so a pipe with one byte left in each of its 16 buffers
 * is full. A slot's bytes are page[used - len, used): a merge appends at
 * used, a read takes from used - len. */
#include <assert.h>
#include <string.h>

#include "sim_internal.h"

uint32_t qp__pipe_occupancy(const qp_pipe *p)
{
    return p->head - p->tail;
}

void qp__pipe_check_ring(const qp_pipe *p)
{
    assert(qp__pipe_occupancy(p) <= QP_PIPE_SLOTS);
    uint64_t bytes = 0;
    for (uint32_t i = p->tail; i != p->head; i++) {
        unsigned slot = i % QP_PIPE_SLOTS;
        assert(p->len[slot] >= 1); /* a slot is freed when it is read empty */
        assert(p->len[slot] <= p->used[slot]);
        assert(p->used[slot] <= QP_PAGE_SIZE);
        bytes += p->len[slot];
    }
    assert(bytes == p->bytes);
}

size_t qp__pipe_take(qp_pipe *p, uint8_t (*pages)[QP_PAGE_SIZE], uint8_t *out, size_t count)
{
    size_t done = 0;
    while (done < count && qp__pipe_occupancy(p) > 0) {
        unsigned slot = p->tail % QP_PIPE_SLOTS;
        size_t n = count - done < p->len[slot] ? count - done : p->len[slot];
        if (out != NULL)
            memcpy(out + done, pages[slot] + (p->used[slot] - p->len[slot]), n);
        p->len[slot] -= (uint32_t)n;
        done += n;
        if (p->len[slot] == 0)
            p->tail++;
    }
    p->bytes -= done;
    return done;
}

/* n bytes of in (NULL: zeros) into page at off. Not inlined: gcc inlines
 * a copy it knows is at most a page as rep movsq, and libc's memcpy is
 * faster (the pipe machine's runs spend a third of their time here). */
__attribute__((noinline)) static void fill(uint8_t *page, size_t off, const uint8_t *in, size_t n)
{
    if (in != NULL)
        memcpy(page + off, in, n);
    else
        memset(page + off, 0, n);
}

size_t qp__pipe_put(qp_pipe *p, uint8_t (*pages)[QP_PAGE_SIZE], const uint8_t *in, size_t count)
{
    size_t remainder = count % QP_PAGE_SIZE;
    unsigned newest = (p->head - 1) % QP_PIPE_SLOTS;
    bool can_merge = qp__pipe_occupancy(p) > 0 && remainder > 0 &&
                     p->used[newest] + remainder <= QP_PAGE_SIZE;
    if (count <= QP_PIPE_BUF && !can_merge && qp__pipe_occupancy(p) == QP_PIPE_SLOTS)
        return 0;
    size_t done = 0;
    if (can_merge) {
        fill(pages[newest], p->used[newest], in, remainder);
        p->len[newest] += (uint32_t)remainder;
        p->used[newest] += (uint32_t)remainder;
        done = remainder;
    }
    while (done < count && qp__pipe_occupancy(p) < QP_PIPE_SLOTS) {
        unsigned slot = p->head % QP_PIPE_SLOTS;
        size_t n = count - done < QP_PAGE_SIZE ? count - done : QP_PAGE_SIZE;
        fill(pages[slot], 0, in == NULL ? NULL : in + done, n);
        p->len[slot] = p->used[slot] = (uint32_t)n;
        p->head++;
        done += n;
    }
    p->bytes += done;
    return done;
}
