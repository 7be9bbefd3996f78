/* /dev/null, and the root directory: the two files the sim has, for the
 * fd a library keeps in reserve (libuv's uv__emfile_trick opens one of
 * them, closes it to accept a connection past EMFILE, and opens it again).
 * The sim has no file system beyond them: open of any other path is
 * ENOENT.
 *
 * Linux's rules (drivers/char/mem.c null_fops, fs/open.c, fs/namei.c):
 * - open: a NULL path is EFAULT, "" ENOENT; O_DIRECTORY on /dev/null is
 *   ENOTDIR; "/" opened for writing (O_WRONLY, O_RDWR) is EISDIR; the
 *   access mode 3 (O_ACCMODE) gives an fd that neither reads nor writes
 *   (EBADF), as Linux's does. O_CREAT and O_TRUNC on /dev/null change
 *   nothing; O_NONBLOCK is F_GETFL's (neither ever blocks). The fd is the
 *   lowest free one.
 * - /dev/null: a read returns 0 (end of file), a write takes everything;
 *   an fd opened the other way is EBADF. The root: a read is EISDIR.
 * - poll: neither has a poll of its own: DEFAULT_POLLMASK, readable and
 *   writable at once; epoll_ctl refuses them (EPERM: a file without poll).
 * - ioctl: neither has one of its own: FIONREAD is ENOTTY.
 * - the world has no events on them. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "sim_internal.h"

enum { FILE_NULL, FILE_ROOT }; /* qp_obj.end: which of the two */

/* Opened for reading, for writing: from the access mode (qp_obj.index). */
static bool can_read(const qp_obj *obj)
{
    return (obj->index & O_ACCMODE) == O_RDONLY || (obj->index & O_ACCMODE) == O_RDWR;
}

static bool can_write(const qp_obj *obj)
{
    return (obj->index & O_ACCMODE) == O_WRONLY || (obj->index & O_ACCMODE) == O_RDWR;
}

static int null_rw_error(const qp_obj *obj, bool write)
{
    if (!(write ? can_write(obj) : can_read(obj)))
        return EBADF;
    return obj->end == FILE_ROOT && !write ? EISDIR : 0;
}

static int64_t null_read(qp_sim *sim, qp_rec *rec, qp_obj *obj, int fd, void *buf, size_t count)
{
    (void)fd;
    (void)buf;
    (void)count;
    int err = null_rw_error(obj, false);
    return err != 0 ? qp__sim_exit(sim, rec, -1, err) : qp__sim_exit(sim, rec, 0, 0);
}

static int64_t null_write(qp_sim *sim, qp_rec *rec, qp_obj *obj, int fd, const void *buf,
                          size_t count)
{
    (void)fd;
    (void)buf;
    int err = null_rw_error(obj, true);
    return err != 0 ? qp__sim_exit(sim, rec, -1, err) : qp__sim_exit(sim, rec, (int64_t)count, 0);
}

const qp_kind qp__kind_null = {
    .name = "/dev/null",
    .rw_error = null_rw_error,
    .read = null_read,
    .write = null_write,
};

int qp__sim_open(qp_os *os, const char *path, int flags, mode_t mode)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    qp__sim_enter(sim, &rec, QP_SYS_open);
    rec.call.open.flags = flags;
    rec.call.open.mode = (uint32_t)mode;
    rec.call.open.path_null = path == NULL;
    if (path == NULL)
        return (int)qp__sim_exit(sim, &rec, -1, EFAULT);
    strncpy(rec.call.open.path, path, sizeof rec.call.open.path - 1);
    unsigned file;
    if (strcmp(path, "/dev/null") == 0)
        file = FILE_NULL;
    else if (strcmp(path, "/") == 0)
        file = FILE_ROOT;
    else
        return (int)qp__sim_exit(sim, &rec, -1, ENOENT); /* the sim has no other file */
    if (file == FILE_NULL && (flags & O_DIRECTORY))
        return (int)qp__sim_exit(sim, &rec, -1, ENOTDIR);
    if (file == FILE_ROOT && ((flags & O_ACCMODE) == O_WRONLY || (flags & O_ACCMODE) == O_RDWR))
        return (int)qp__sim_exit(sim, &rec, -1, EISDIR);
    int fd = qp__sim_alloc_fd(sim, QP_OBJ_NULL);
    if (fd < 0)
        return (int)qp__sim_exit(sim, &rec, -1, EMFILE);
    if (qp__sim_enfile_undo(sim, fd)) /* path_openat: alloc_empty_file after the fd */
        return (int)qp__sim_exit(sim, &rec, -1, ENFILE);
    sim->objs[fd].end = (uint8_t)file;
    sim->objs[fd].index = (uint8_t)(flags & O_ACCMODE);
    sim->objs[fd].blocking = !(flags & O_NONBLOCK);
    return (int)qp__sim_exit(sim, &rec, fd, 0);
}
