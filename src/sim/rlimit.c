/* getrlimit and setrlimit: RLIMIT_NOFILE, the fds a process may have
 * (kernel/sys.c do_prlimit, fs/file.c alloc_fd), as quietpoll conform
 * checks them against the kernel:
 * - the limits start at Linux's defaults, 1024 and 4096 (INR_OPEN_CUR,
 *   INR_OPEN_MAX); a soft limit above the hard one is EINVAL, a hard limit
 *   above fs.nr_open (1048576) EPERM; raising the hard limit is taken as
 *   a process with CAP_SYS_RESOURCE does; a resource past RLIM_NLIMITS is
 *   EINVAL; a NULL limit does nothing and succeeds (glibc passes it to
 *   prlimit64, which then neither reads nor sets).
 * - every call that makes an fd fails with EMFILE once the lowest free fd
 *   is at the soft limit (the sim's own limit, QP_SIM_FDS_MAX, stays under
 *   it); fds open above a lowered limit stay open.
 * - the other resources are not modelled: getrlimit reads RLIM_INFINITY,
 *   setrlimit takes what it is given and keeps nothing. */
#include <errno.h>
#include <sys/resource.h>

#include "sim_internal.h"

#define NOFILE_CUR_DEFAULT 1024 /* INR_OPEN_CUR */
#define NOFILE_MAX_DEFAULT 4096 /* INR_OPEN_MAX */
#define NR_OPEN 1048576         /* fs.nr_open */

uint64_t qp__sim_nofile(const qp_sim *sim)
{
    return sim->nofile_max != 0 ? sim->nofile_cur : NOFILE_CUR_DEFAULT;
}

static uint64_t nofile_max(const qp_sim *sim)
{
    return sim->nofile_max != 0 ? sim->nofile_max : NOFILE_MAX_DEFAULT;
}

int qp__sim_getrlimit(qp_os *os, int resource, struct rlimit *rlim)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    qp__sim_enter(sim, &rec, QP_SYS_getrlimit);
    rec.call.rlimit.resource = resource;
    if (resource < 0 || resource >= RLIM_NLIMITS)
        return (int)qp__sim_exit(sim, &rec, -1, EINVAL);
    if (rlim == NULL)
        return (int)qp__sim_exit(sim, &rec, 0, 0); /* prlimit64 with no limit to read */
    rlim->rlim_cur = rlim->rlim_max = RLIM_INFINITY;
    if (resource == RLIMIT_NOFILE) {
        rlim->rlim_cur = qp__sim_nofile(sim);
        rlim->rlim_max = nofile_max(sim);
    }
    rec.call.rlimit.has_value = true;
    rec.call.rlimit.cur = rlim->rlim_cur;
    rec.call.rlimit.max = rlim->rlim_max;
    return (int)qp__sim_exit(sim, &rec, 0, 0);
}

int qp__sim_setrlimit(qp_os *os, int resource, const struct rlimit *rlim)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    qp__sim_enter(sim, &rec, QP_SYS_setrlimit);
    rec.call.rlimit.resource = resource;
    if (resource < 0 || resource >= RLIM_NLIMITS)
        return (int)qp__sim_exit(sim, &rec, -1, EINVAL);
    if (rlim == NULL)
        return (int)qp__sim_exit(sim, &rec, 0, 0); /* prlimit64 with no limit to set */
    rec.call.rlimit.has_value = true;
    rec.call.rlimit.cur = rlim->rlim_cur;
    rec.call.rlimit.max = rlim->rlim_max;
    if (resource < 0 || resource >= RLIM_NLIMITS || rlim->rlim_cur > rlim->rlim_max)
        return (int)qp__sim_exit(sim, &rec, -1, EINVAL);
    if (resource != RLIMIT_NOFILE)
        return (int)qp__sim_exit(sim, &rec, 0, 0);
    if (rlim->rlim_max > NR_OPEN)
        return (int)qp__sim_exit(sim, &rec, -1, EPERM);
    sim->nofile_cur = rlim->rlim_cur;
    sim->nofile_max = rlim->rlim_max;
    return (int)qp__sim_exit(sim, &rec, 0, 0);
}
