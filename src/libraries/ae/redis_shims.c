/* What ae leaves to the program that links it, as Redis's server provides
 * it (zmalloc.c, debug.c): the allocator ae calls (zmalloc, zrealloc,
 * zfree; Redis's abort when memory runs out, zmalloc_default_oom) and the
 * report of ae's panic() (aeApiPoll: an epoll_wait error other than EINTR)
 * and assert(), which end the process as Redis's do. The prototypes are
 * Redis's (zmalloc.h, redisassert.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void *zmalloc(size_t size);
void *zrealloc(void *ptr, size_t size);
void zfree(void *ptr);
void _serverPanic(const char *file, int line, const char *msg, ...)
    __attribute__((format(printf, 3, 4)));
void _serverAssert(const char *estr, const char *file, int line);

static void *or_abort(void *p, size_t size)
{
    if (p == NULL && size > 0) {
        fprintf(stderr, "ae: out of memory allocating %zu bytes\n", size);
        abort();
    }
    return p;
}

void *zmalloc(size_t size)
{
    return or_abort(malloc(size > 0 ? size : 1), size);
}

void *zrealloc(void *ptr, size_t size)
{
    if (size == 0) {
        free(ptr);
        return NULL;
    }
    return or_abort(realloc(ptr, size), size);
}

void zfree(void *ptr)
{
    free(ptr);
}

void _serverPanic(const char *file, int line, const char *msg, ...)
{
    va_list ap;
    va_start(ap, msg);
    fprintf(stderr, "ae: panic at %s:%d: ", file, line);
    vfprintf(stderr, msg, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}

void _serverAssert(const char *estr, const char *file, int line)
{
    fprintf(stderr, "ae: assertion failed at %s:%d: %s\n", file, line, estr);
    abort();
}
