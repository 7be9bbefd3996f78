/* dup, dup2, dup3, and fcntl's F_DUPFD and F_DUPFD_CLOEXEC: another fd of
 * the same open file (fd.c keeps the files), as fs/file.c gives them:
 * - dup(oldfd): the lowest free fd (ksys_dup); EBADF for an oldfd not
 *   open, then EMFILE when no fd below RLIMIT_NOFILE's soft limit is free.
 * - dup3(oldfd, newfd, flags): flags other than O_CLOEXEC are EINVAL, then
 *   oldfd == newfd is EINVAL, then a newfd at or above the soft limit (a
 *   negative one too: the kernel takes it unsigned) EBADF, then an oldfd
 *   not open EBADF (ksys_dup3). An open newfd is closed first, silently
 *   (do_dup2): its file goes if that was its last fd.
 * - dup2(oldfd, newfd): dup3 with no flags, but oldfd == newfd returns
 *   newfd when it is open (EBADF when not).
 * - F_DUPFD and F_DUPFD_CLOEXEC with from: EINVAL when from (taken
 *   unsigned) is at or above the soft limit, else the lowest free fd from
 *   it on, EMFILE when none below the limit is (f_dupfd).
 * The new fd has FD_CLOEXEC only from dup3's O_CLOEXEC or F_DUPFD_CLOEXEC.
 *
 * The sim models no standard fds (every call on 0, 1 and 2 is EBADF, and a
 * process's first fd is 3): a newfd below 3 is EBADF too, where Linux
 * would replace stdin, stdout or stderr. A newfd past the sim's own fds
 * (QP_SIM_FDS_MAX) is the sim's limit, a trace line, and EMFILE. */
#include <errno.h>
#include <fcntl.h>

#include "sim_internal.h"

static void dup_enter(qp_sim *sim, qp_rec *rec, unsigned sys, int oldfd, int newfd, int flags)
{
    qp__sim_enter_fd(sim, rec, sys, oldfd);
    rec->call.dup.newfd = newfd;
    rec->call.dup.flags = flags;
}

int qp__sim_dup(qp_os *os, int oldfd)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    dup_enter(sim, &rec, QP_SYS_dup, oldfd, -1, 0);
    if (qp__sim_obj(sim, oldfd) == NULL)
        return (int)qp__sim_bad_fd(sim, &rec);
    int newfd = qp__sim_free_fd(sim, QP_SIM_FIRST_FD);
    if (newfd < 0)
        return (int)qp__sim_exit(sim, &rec, -1, EMFILE);
    qp__sim_dup_to(sim, oldfd, newfd, false);
    return (int)qp__sim_exit(sim, &rec, newfd, 0);
}

/* dup3's checks from newfd's on, and its work: ends the call. */
static int dup_onto(qp_sim *sim, qp_rec *rec, int oldfd, int newfd, bool cloexec)
{
    if ((uint64_t)(unsigned)newfd >= qp__sim_nofile(sim))
        return (int)qp__sim_exit(sim, rec, -1, EBADF);
    if (qp__sim_obj(sim, oldfd) == NULL || newfd < QP_SIM_FIRST_FD)
        return (int)qp__sim_bad_fd(sim, rec);
    if (newfd >= QP_SIM_FDS_MAX) {
        qp__sim_limit(sim, QP_LIMIT_FDS, QP_SIM_FDS_MAX);
        return (int)qp__sim_exit(sim, rec, -1, EMFILE);
    }
    if (qp__sim_obj(sim, newfd) != NULL)
        qp__sim_release_fd(sim, newfd);
    qp__sim_dup_to(sim, oldfd, newfd, cloexec);
    return (int)qp__sim_exit(sim, rec, newfd, 0);
}

int qp__sim_dup2(qp_os *os, int oldfd, int newfd)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    dup_enter(sim, &rec, QP_SYS_dup2, oldfd, newfd, 0);
    if (oldfd == newfd)
        return qp__sim_obj(sim, oldfd) != NULL ? (int)qp__sim_exit(sim, &rec, newfd, 0)
                                               : (int)qp__sim_bad_fd(sim, &rec);
    return dup_onto(sim, &rec, oldfd, newfd, false);
}

int qp__sim_dup3(qp_os *os, int oldfd, int newfd, int flags)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    dup_enter(sim, &rec, QP_SYS_dup3, oldfd, newfd, flags);
    if ((flags & ~O_CLOEXEC) || oldfd == newfd)
        return (int)qp__sim_exit(sim, &rec, -1, EINVAL);
    return dup_onto(sim, &rec, oldfd, newfd, (flags & O_CLOEXEC) != 0);
}

int64_t qp__sim_dupfd(qp_sim *sim, qp_rec *rec, int fd, long from, bool cloexec)
{
    unsigned from_fd = (unsigned)(int)from; /* do_fcntl's argi, f_dupfd's unsigned from */
    if (from_fd >= qp__sim_nofile(sim))
        return qp__sim_exit(sim, rec, -1, EINVAL);
    int newfd = qp__sim_free_fd(sim, from_fd >= QP_SIM_FDS_MAX ? QP_SIM_FDS_MAX : (int)from_fd);
    if (newfd < 0)
        return qp__sim_exit(sim, rec, -1, EMFILE);
    qp__sim_dup_to(sim, fd, newfd, cloexec);
    return qp__sim_exit(sim, rec, newfd, 0);
}
