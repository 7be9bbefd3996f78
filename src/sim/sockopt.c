/* setsockopt and getsockopt: the options servers and clients set on their
 * sockets, kept and read back (net/core/sock.c sk_setsockopt and
 * sk_getsockopt, net/ipv4/tcp.c do_tcp_setsockopt, as quietpoll conform
 * checks them against the kernel):
 * - SOL_SOCKET: SO_REUSEADDR, SO_REUSEPORT, SO_KEEPALIVE (any value but 0
 *   reads back as 1), SO_LINGER (a struct linger), SO_SNDBUF and SO_RCVBUF
 *   (Linux keeps twice the value asked for, at least 4608 and 2304 bytes,
 *   at most twice net.core.wmem_max and rmem_max: the sim takes Linux's
 *   default maximum, 212992; a host configured otherwise differs there;
 *   before any is set: tcp_wmem's and tcp_rmem's defaults for TCP,
 *   net.core.wmem_default and rmem_default for UDP and AF_UNIX),
 *   SO_RCVLOWAT (0 is 1; a negative value is INT_MAX; TCP caps it at half
 *   the receive buffer once SO_RCVBUF was set, else at half tcp_rmem's
 *   maximum), SO_ERROR (read only: the pending error, cleared by reading;
 *   ENOPROTOOPT to set), SO_TYPE, SO_DOMAIN, SO_PROTOCOL, SO_ACCEPTCONN
 *   (read only); IPPROTO_TCP, on TCP sockets: TCP_NODELAY, and the
 *   keepalive's timers, as Redis's anetKeepAlive sets them: TCP_KEEPIDLE
 *   and TCP_KEEPINTVL (1 to 32767 s), TCP_KEEPCNT (1 to 127), EINVAL outside
 *   (do_tcp_setsockopt, tcp_sock_set_keepidle_locked: MAX_TCP_KEEPIDLE,
 *   MAX_TCP_KEEPINTVL, MAX_TCP_KEEPCNT), read back as set or as the sysctls'
 *   defaults (tcp_keepalive_time 7200 s, tcp_keepalive_intvl 75 s,
 *   tcp_keepalive_probes 9: a host configured otherwise differs there;
 *   do_tcp_getsockopt).
 * - setsockopt: a negative length is EINVAL; SOL_SOCKET and IPPROTO_TCP
 *   copy an int first: a shorter value is EINVAL, none EFAULT, whatever the
 *   option (a struct linger: fewer than its size is EINVAL); then an option
 *   the sim has not is ENOPROTOOPT. Another level: ENOPROTOOPT for TCP and
 *   UDP (ip_setsockopt), EOPNOTSUPP for AF_UNIX (it has no other level).
 * - getsockopt: a level but SOL_SOCKET (and TCP's own) is EOPNOTSUPP
 *   (ip_getsockopt; AF_UNIX has none), before the length is read; then no
 *   length is EFAULT, a negative one EINVAL; min(length, 4) bytes are
 *   written; a NULL value is EFAULT; an option the sim has not ENOPROTOOPT.
 * - a harness's stream, a UDP socket and a socketpair end keep their
 *   options as a TCP socket does; a harness's stream's SO_ERROR reads 0. */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>

#include "sim_internal.h"

#define SNDBUF_MIN 4608   /* SOCK_MIN_SNDBUF: 2 * (2048 + sizeof(struct sk_buff)) */
#define RCVBUF_MIN 2304   /* SOCK_MIN_RCVBUF */
#define BUF_MAX 212992    /* net.core.wmem_max, rmem_max: Linux's default */
#define TCP_RMEM_MAX 6291456 /* net.ipv4.tcp_rmem's third value */

const qp_sockopts qp__sockopts_default = {
    .sndbuf = 16384,  /* tcp_wmem's second value */
    .rcvbuf = 131072, /* tcp_rmem's second value */
    .rcvlowat = 1,
    .keepidle_s = 7200, /* net.ipv4.tcp_keepalive_time */
    .keepintvl_s = 75,  /* net.ipv4.tcp_keepalive_intvl */
    .keepcnt = 9,       /* net.ipv4.tcp_keepalive_probes */
};

const qp_sockopts qp__sockopts_dgram = {
    .sndbuf = 212992, /* net.core.wmem_default: Linux's default */
    .rcvbuf = 212992, /* net.core.rmem_default */
    .rcvlowat = 1,
};

/* The IPPROTO_TCP options the sim keeps: where each is and its largest
 * value (0: any, a flag). */
typedef struct tcp_opt {
    int name;
    size_t offset;
    int32_t max;
} tcp_opt;

static const tcp_opt tcp_opts[] = {
    {TCP_NODELAY, offsetof(qp_sockopts, nodelay), 0},
    {TCP_KEEPIDLE, offsetof(qp_sockopts, keepidle_s), 32767},  /* MAX_TCP_KEEPIDLE */
    {TCP_KEEPINTVL, offsetof(qp_sockopts, keepintvl_s), 32767}, /* MAX_TCP_KEEPINTVL */
    {TCP_KEEPCNT, offsetof(qp_sockopts, keepcnt), 127},         /* MAX_TCP_KEEPCNT */
};

static const tcp_opt *tcp_opt_of(int name)
{
    for (size_t i = 0; i < sizeof tcp_opts / sizeof tcp_opts[0]; i++)
        if (tcp_opts[i].name == name)
            return &tcp_opts[i];
    return NULL;
}

/* Sets IPPROTO_TCP option t of o to val: 0 or an errno. */
static int set_tcp_opt(qp_sockopts *o, const tcp_opt *t, int val)
{
    char *field = (char *)o + t->offset;
    if (t->max == 0) {
        *(bool *)field = val != 0;
        return 0;
    }
    if (val < 1 || val > t->max)
        return EINVAL;
    *(int32_t *)field = val;
    return 0;
}

/* The value of IPPROTO_TCP option t of o. */
static int tcp_opt_value(const qp_sockopts *o, const tcp_opt *t)
{
    const char *field = (const char *)o + t->offset;
    return t->max == 0 ? *(const bool *)field : *(const int32_t *)field;
}

/* The protocol behind a socket: TCP (a TCP socket, a stream), UDP or AF_UNIX. */
enum proto { PROTO_TCP, PROTO_UDP, PROTO_UNIX };

static enum proto proto_of(const qp_obj *obj)
{
    return obj->type == QP_OBJ_DGRAM ? PROTO_UDP : obj->type == QP_OBJ_UNIX ? PROTO_UNIX : PROTO_TCP;
}

/* The options of the socket behind obj. */
static qp_sockopts *opts_of(qp_sim *sim, qp_obj *obj)
{
    switch (obj->type) {
    case QP_OBJ_TCP:
        return &sim->tcps[obj->index].opts;
    case QP_OBJ_DGRAM:
        return &sim->dgrams[obj->index].opts;
    case QP_OBJ_UNIX:
        return &sim->unix_pairs[obj->index].opts[obj->end];
    default:
        return obj->conn != 0 ? &qp__tcp_conn_of(sim, obj)->opts : &obj->opts;
    }
}

/* AF_INET6, for a TCP socket or a world's connection. */
static bool v6_of(qp_sim *sim, qp_obj *obj)
{
    if (obj->type == QP_OBJ_TCP)
        return sim->tcps[obj->index].v6;
    return obj->type == QP_OBJ_STREAM && obj->conn != 0 && qp__tcp_conn_of(sim, obj)->v6;
}

/* sock_setsockopt's SO_SNDBUF and SO_RCVBUF: twice the value, capped at
 * net.core.wmem_max (rmem_max), at least min; a negative value is taken as
 * an unsigned one (min_t(u32, ...)): the cap. */
static int32_t doubled(int32_t val, int32_t min)
{
    int64_t v = val < 0 ? BUF_MAX : val;
    if (v > BUF_MAX)
        v = BUF_MAX;
    v *= 2;
    return (int32_t)(v < min ? min : v);
}

/* Sets SOL_SOCKET's option name of o (a socket of protocol proto) to what
 * optval holds (sk_setsockopt; its int is copied in first: EINVAL for a
 * shorter value, EFAULT for none); 0 or an errno. */
static int set_socket_opt(qp_sockopts *o, enum proto proto, int name, const void *optval,
                          socklen_t optlen)
{
    if (optlen < sizeof(int))
        return EINVAL;
    if (optval == NULL)
        return EFAULT;
    int val;
    memcpy(&val, optval, sizeof val);
    switch (name) {
    case SO_LINGER: {
        struct linger l;
        if (optlen < sizeof l)
            return EINVAL;
        memcpy(&l, optval, sizeof l);
        o->linger_on = l.l_onoff != 0;
        o->linger_s = l.l_linger;
        return 0;
    }
    case SO_REUSEADDR:
        o->reuseaddr = val != 0;
        return 0;
    case SO_REUSEPORT:
        o->reuseport = val != 0;
        return 0;
    case SO_KEEPALIVE:
        o->keepalive = val != 0;
        return 0;
    case SO_SNDBUF:
        o->sndbuf = doubled(val, SNDBUF_MIN);
        return 0;
    case SO_RCVBUF:
        o->rcvbuf = doubled(val, RCVBUF_MIN);
        o->rcvbuf_locked = true;
        return 0;
    case SO_RCVLOWAT: {
        int64_t v = val < 0 ? INT_MAX : val == 0 ? 1 : val;
        /* tcp_set_rcvlowat caps it; other protocols take it as it is */
        int64_t cap = proto != PROTO_TCP ? INT_MAX
                      : o->rcvbuf_locked ? o->rcvbuf >> 1
                                         : TCP_RMEM_MAX >> 1;
        o->rcvlowat = (int32_t)(v < cap ? v : cap);
        return 0;
    }
    }
    return ENOPROTOOPT;
}

/* Sets option (level, name) of a socket of protocol proto: 0 or an errno.
 * AF_UNIX has no level but SOL_SOCKET (EOPNOTSUPP: no ops->setsockopt); a
 * UDP socket's other levels go to ip_setsockopt (ENOPROTOOPT but for
 * SOL_IP); TCP's: do_tcp_setsockopt copies its int first. */
static int set_opt(qp_sockopts *o, enum proto proto, int level, int name, const void *optval,
                   socklen_t optlen)
{
    if (level == SOL_SOCKET)
        return set_socket_opt(o, proto, name, optval, optlen);
    if (proto == PROTO_UNIX)
        return EOPNOTSUPP;
    if (level != IPPROTO_TCP || proto != PROTO_TCP)
        return ENOPROTOOPT;
    if (optlen < sizeof(int))
        return EINVAL;
    if (optval == NULL)
        return EFAULT;
    const tcp_opt *t = tcp_opt_of(name);
    if (t == NULL)
        return ENOPROTOOPT;
    int val;
    memcpy(&val, optval, sizeof val);
    return set_tcp_opt(o, t, val);
}

int qp__sim_setsockopt(qp_os *os, int fd, int level, int optname, const void *optval,
                       socklen_t optlen)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    qp_obj *obj = qp__sim_enter_fd(sim, &rec, QP_SYS_setsockopt, fd);
    rec.call.sockopt.level = level;
    rec.call.sockopt.name = optname;
    rec.call.sockopt.len = (int32_t)optlen;
    if (optval != NULL && optlen >= sizeof(int))
        memcpy(&rec.call.sockopt.value, optval, sizeof(int));
    if (obj == NULL)
        return (int)qp__sim_bad_fd(sim, &rec);
    if (!qp__kind(obj->type)->socket)
        return (int)qp__sim_exit(sim, &rec, -1, ENOTSOCK);
    if ((int)optlen < 0) /* do_sock_setsockopt */
        return (int)qp__sim_exit(sim, &rec, -1, EINVAL);
    int err = set_opt(opts_of(sim, obj), proto_of(obj), level, optname, optval, optlen);
    return (int)qp__sim_exit(sim, &rec, err != 0 ? -1 : 0, err);
}

/* The value of SOL_SOCKET's option name of socket obj, as sk_getsockopt
 * reads it (its pending error is taken): false for an option the sim has
 * not. */
static bool get_socket_opt(qp_sim *sim, qp_obj *obj, int name, int *val, struct linger *linger)
{
    const qp_sockopts *o = opts_of(sim, obj);
    enum proto proto = proto_of(obj);
    switch (name) {
    case SO_REUSEADDR: *val = o->reuseaddr; return true;
    case SO_REUSEPORT: *val = o->reuseport; return true;
    case SO_KEEPALIVE: *val = o->keepalive; return true;
    case SO_SNDBUF: *val = o->sndbuf; return true;
    case SO_RCVBUF: *val = o->rcvbuf; return true;
    case SO_RCVLOWAT: *val = o->rcvlowat; return true;
    case SO_TYPE:
        *val = proto == PROTO_UDP ? SOCK_DGRAM : SOCK_STREAM;
        return true;
    case SO_DOMAIN:
        *val = proto == PROTO_UNIX ? AF_UNIX : v6_of(sim, obj) ? AF_INET6 : AF_INET;
        return true;
    case SO_PROTOCOL:
        *val = proto == PROTO_UNIX ? 0 : proto == PROTO_UDP ? IPPROTO_UDP : IPPROTO_TCP;
        return true;
    case SO_ACCEPTCONN:
        *val = obj->type == QP_OBJ_TCP && sim->tcps[obj->index].state == QP_TCP_LISTENING;
        return true;
    case SO_LINGER:
        linger->l_onoff = o->linger_on;
        linger->l_linger = o->linger_s;
        return true;
    case SO_ERROR:
        *val = 0;
        if (obj->type == QP_OBJ_TCP) {
            *val = sim->tcps[obj->index].error;
            sim->tcps[obj->index].error = 0;
        } else if (obj->type == QP_OBJ_DGRAM) {
            *val = qp__dgram_take_error(&sim->dgrams[obj->index]) ? ECONNREFUSED : 0;
        } else if (obj->type == QP_OBJ_STREAM && obj->conn != 0) {
            /* a world connection's RST: its error (sock_error); a harness's
               stream keeps reading 0 here, as it always has */
            qp_stream *s = qp__stream_of(sim, obj);
            *val = s->error;
            s->error = 0;
        }
        return true;
    }
    return false;
}

/* getsockopt of a level but SOL_SOCKET: AF_UNIX has none (EOPNOTSUPP: no
 * ops->getsockopt), nor UDP IPPROTO_TCP; a TCP socket's other levels go
 * to ip_getsockopt (EOPNOTSUPP but for SOL_IP); 0 for TCP's own level. */
static int level_error(const qp_obj *obj, int level)
{
    return level == IPPROTO_TCP && proto_of(obj) == PROTO_TCP ? 0 : EOPNOTSUPP;
}

int qp__sim_getsockopt(qp_os *os, int fd, int level, int optname, void *optval, socklen_t *optlen)
{
    qp_sim *sim = qp__sim_of(os);
    qp_rec rec;
    qp_obj *obj = qp__sim_enter_fd(sim, &rec, QP_SYS_getsockopt, fd);
    rec.call.sockopt.level = level;
    rec.call.sockopt.name = optname;
    rec.call.sockopt.len = optlen != NULL ? (int32_t)*optlen : 0;
    if (obj == NULL)
        return (int)qp__sim_bad_fd(sim, &rec);
    if (!qp__kind(obj->type)->socket)
        return (int)qp__sim_exit(sim, &rec, -1, ENOTSOCK);
    if (level != SOL_SOCKET && level_error(obj, level) != 0)
        return (int)qp__sim_exit(sim, &rec, -1, level_error(obj, level));
    if (optlen == NULL)
        return (int)qp__sim_exit(sim, &rec, -1, EFAULT);
    if ((int)*optlen < 0)
        return (int)qp__sim_exit(sim, &rec, -1, EINVAL);
    int val = 0;
    struct linger linger = {0};
    const tcp_opt *t = level == SOL_SOCKET ? NULL : tcp_opt_of(optname);
    bool known = level == SOL_SOCKET ? get_socket_opt(sim, obj, optname, &val, &linger) : t != NULL;
    if (t != NULL)
        val = tcp_opt_value(opts_of(sim, obj), t);
    if (!known)
        return (int)qp__sim_exit(sim, &rec, -1, ENOPROTOOPT);
    bool is_linger = level == SOL_SOCKET && optname == SO_LINGER;
    socklen_t len = is_linger ? sizeof linger : sizeof val;
    if (*optlen < len)
        len = *optlen;
    if (len > 0 && optval == NULL)
        return (int)qp__sim_exit(sim, &rec, -1, EFAULT);
    if (len > 0)
        memcpy(optval, is_linger ? (const void *)&linger : (const void *)&val, len);
    *optlen = len;
    rec.call.sockopt.value = is_linger ? linger.l_onoff : val;
    rec.call.sockopt.len = (int32_t)len;
    return (int)qp__sim_exit(sim, &rec, 0, 0);
}
