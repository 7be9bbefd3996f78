/* What each syscall name means to the checks: the syscall table's names
 * (include/quietpoll/syscalls.def, in byte order), by binary search; names
 * it does not hold are "other". */
#include <string.h>

#include "strace_internal.h"

static const qp_strace_name other = {"", QP_CLASS_OTHER, QP_WAIT_ARGS_NONE};

/* strcmp of (name, size) against a NUL-terminated entry */
static int compare(const char *name, size_t size, const char *entry)
{
    size_t entry_size = strlen(entry);
    int c = memcmp(name, entry, size < entry_size ? size : entry_size);
    if (c != 0)
        return c;
    return size < entry_size ? -1 : size > entry_size;
}

const qp_strace_name *qp__strace_sys_find(const char *name, size_t size)
{
    size_t lo = 0, hi = qp_strace_names_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = compare(name, size, qp_strace_names[mid].name);
        if (c == 0)
            return &qp_strace_names[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return &other;
}
