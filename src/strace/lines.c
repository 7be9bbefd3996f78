/* Bytes to lines in fixed memory. A line that fits is handed over where it
 * lies in the input when it can be, or from the buffer when it was split
 * across feeds. A longer line keeps its first head_max bytes (the pid, the
 * time, the name and the first arguments) and its last tail_max bytes (the
 * result and the duration), joined. A trailing '\r' is dropped. */
#include <assert.h>
#include <string.h>

#include "strace_internal.h"

static void clear(qp__strace_lines *lines)
{
    lines->head_size = 0;
    lines->overflowed = false;
    lines->ring_pos = 0;
    lines->ring_full = false;
}

void qp__strace_lines_init(qp__strace_lines *lines, size_t head_max, size_t tail_max)
{
    lines->head_max = head_max == 0 || head_max > QP_STRACE_LINE_HEAD_MAX ? QP_STRACE_LINE_HEAD_MAX
                                                                          : head_max;
    lines->tail_max = tail_max == 0 || tail_max > QP_STRACE_LINE_TAIL_MAX ? QP_STRACE_LINE_TAIL_MAX
                                                                          : tail_max;
    clear(lines);
}

static void emit(qp__strace_line_fn *fn, void *ctx, const char *text, size_t size, bool truncated)
{
    if (size > 0 && text[size - 1] == '\r')
        size--;
    fn(ctx, text, size, truncated);
}

/* Keeps the last bytes of an overlong line. */
static void ring_add(qp__strace_lines *l, const char *bytes, size_t size)
{
    assert(l->ring_pos < l->tail_max && l->tail_max <= QP_STRACE_LINE_TAIL_MAX);
    if (size >= l->tail_max) {
        memcpy(l->ring, bytes + size - l->tail_max, l->tail_max);
        l->ring_pos = 0;
        l->ring_full = true;
        return;
    }
    while (size > 0) {
        size_t room = l->tail_max - l->ring_pos;
        size_t n = size < room ? size : room;
        memcpy(l->ring + l->ring_pos, bytes, n);
        l->ring_pos += n;
        bytes += n;
        size -= n;
        if (l->ring_pos == l->tail_max) {
            l->ring_pos = 0;
            l->ring_full = true;
        }
    }
}

/* Adds bytes (no newline among them) to the line being gathered. */
static void gather(qp__strace_lines *l, const char *bytes, size_t size)
{
    assert(l->head_size <= l->head_max);
    size_t room = l->head_max - l->head_size;
    size_t n = size < room ? size : room;
    memcpy(l->buf + l->head_size, bytes, n);
    l->head_size += n;
    if (n < size) {
        l->overflowed = true;
        ring_add(l, bytes + n, size - n);
    }
}

static void flush(qp__strace_lines *l, qp__strace_line_fn *fn, void *ctx)
{
    size_t size = l->head_size;
    if (l->overflowed) {
        /* the ring, oldest byte first, after the head */
        if (l->ring_full) {
            size_t older = l->tail_max - l->ring_pos;
            memcpy(l->buf + size, l->ring + l->ring_pos, older);
            memcpy(l->buf + size + older, l->ring, l->ring_pos);
            size += l->tail_max;
        } else {
            memcpy(l->buf + size, l->ring, l->ring_pos);
            size += l->ring_pos;
        }
    }
    assert(size <= sizeof l->buf);
    emit(fn, ctx, l->buf, size, l->overflowed);
    clear(l);
}

void qp__strace_lines_feed(qp__strace_lines *l, const char *bytes, size_t size,
                           qp__strace_line_fn *fn, void *ctx)
{
    const char *p = bytes, *end = bytes + size;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (nl == NULL) {
            gather(l, p, (size_t)(end - p));
            return;
        }
        size_t n = (size_t)(nl - p);
        if (l->head_size == 0 && !l->overflowed && n <= l->head_max) {
            emit(fn, ctx, p, n, false); /* the whole line lies in the input */
        } else {
            gather(l, p, n);
            flush(l, fn, ctx);
        }
        p = nl + 1;
    }
}

void qp__strace_lines_finish(qp__strace_lines *l, qp__strace_line_fn *fn, void *ctx)
{
    if (l->head_size > 0 || l->overflowed)
        flush(l, fn, ctx);
}
