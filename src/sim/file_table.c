/* The system's file table (fs.file-max) as the world fills and frees it:
 * ENFILE, the system-wide limit, beside RLIMIT_NOFILE's EMFILE (rlimit.c).
 *
 * Linux counts every open file (struct file) of every process in nr_files,
 * and alloc_empty_file (fs/file_table.c) fails with ENFILE once it reaches
 * files_stat.max_files, for a process without CAP_SYS_ADMIN; the file is
 * counted out again when its last reference goes (__fput, file_free), which
 * a close of its last fd does before returning. So ENFILE comes from every
 * call that makes a new open file, and from no call that makes only an fd
 * (dup, dup2, dup3, F_DUPFD: they take a reference to the same file):
 *   socket          sock_map_fd: get_unused_fd_flags (EMFILE) first, then
 *                   sock_alloc_file -> alloc_file_pseudo (ENFILE)
 *   accept, accept4 __sys_accept4_file: get_unused_fd_flags (EMFILE), then
 *                   do_accept -> sock_alloc_file (ENFILE), both before the
 *                   protocol's accept: the connection stays queued and the
 *                   listener readable, and an empty queue gives ENFILE,
 *                   not EAGAIN
 *   socketpair      __sys_socketpair: both fds (EMFILE), the sockets
 *                   (EAFNOSUPPORT...), then two sock_alloc_file (ENFILE)
 *   pipe, pipe2     __do_pipe_flags: create_pipe_files (two files: ENFILE)
 *                   first, then the fds (EMFILE)
 *   epoll_create/1, eventfd, timerfd_create
 *                   get_unused_fd_flags (EMFILE), then anon_inode_getfile
 *                   (ENFILE)
 *   open            do_sys_openat2: get_unused_fd_flags (EMFILE), then
 *                   path_openat's alloc_empty_file (ENFILE) before the path
 *                   is looked up
 *
 * The world (QP_EV_FILE_TABLE) holds the other processes' files: an event
 * of size n leaves n files free beyond those the program holds now (0: the
 * table is full), so the program's own files then count against it, a
 * close giving its file back; size QP_FILE_TABLE_FREED closes the other
 * processes' files again, and the table is far from full, as before the
 * first event. The other processes fill it while the program serves, from
 * its first wait (poll, select, epoll_wait and their kin) on: an event
 * before that takes effect then, as the last such event says, so that what
 * is tested is the program's answer to ENFILE, not a setup that cannot
 * make its files (a server that cannot start; libevent's event_base_new
 * even exits the process: evsig_init_'s event_sock_err). The program's
 * files are its open files (an fd's home: a
 * dup's fd is no file of its own), the world's ends of pipe targets among
 * them. Not modelled: CAP_SYS_ADMIN's exemption (the program is taken as
 * unprivileged), and the percpu counter's slack (max_files is exact).
 *
 * The conformance suite cannot make ENFILE on its host (it would have to
 * fill the whole system's table): tests/test_file_table.c holds these
 * rules, call by call. */
#include "sim_internal.h"

/* The program's open files: fd entries that are their file's home. */
static uint64_t program_files(const qp_sim *sim)
{
    uint64_t files = 0;
    for (int fd = QP_SIM_FIRST_FD; fd < sim->fds_high; fd++)
        files += sim->objs[fd].type != QP_OBJ_NONE && sim->objs[fd].type != QP_OBJ_ALIAS;
    return files;
}

bool qp__sim_files_room(const qp_sim *sim, unsigned count)
{
    return !sim->file_table_limited || program_files(sim) + count <= sim->file_table_max;
}

static void fill(qp_sim *sim, uint32_t size)
{
    sim->file_table_limited = size != QP_FILE_TABLE_FREED;
    sim->file_table_max = program_files(sim) + size;
}

void qp__file_table_event(qp_sim *sim, const qp_event *ev)
{
    if (sim->file_table_serving) {
        fill(sim, ev->size);
        return;
    }
    sim->file_table_deferred = true;
    sim->file_table_deferred_size = ev->size;
}

void qp__file_table_serving(qp_sim *sim)
{
    sim->file_table_serving = true;
    if (sim->file_table_deferred)
        fill(sim, sim->file_table_deferred_size);
}

bool qp__sim_enfile(const qp_sim *sim, unsigned count)
{
    return qp__sim_has_free_fds(sim, count) && !qp__sim_files_room(sim, count);
}

bool qp__sim_enfile_undo(qp_sim *sim, int fd)
{
    if (qp__sim_files_room(sim, 0))
        return false;
    sim->objs[fd].type = QP_OBJ_NONE;
    return true;
}
