/* The conformance suite's object kinds, one row each (kinds.c): how both
 * backends make one, the fds it takes, what the world does on it, how
 * fuzz_conform draws its calls and actions, and its name. The backends,
 * the bounds, the printer and the drawer read the row; none of them tests
 * a kind. A kind is its enum qp_cf_obj_kind entry and its row. */
#ifndef QUIETPOLL_CONFORM_KINDS_H
#define QUIETPOLL_CONFORM_KINDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "quietpoll/conform.h"

struct drawer;

/* The world's other end of an object, which each backend makes with it
 * (the sim's schedule acts on it, the host's world.c drives a real one). */
enum qp_cf_peer {
    QP_CF_PEER_NONE,         /* no peer: the object is made through the os table */
    QP_CF_PEER_STREAM,       /* a connected stream: data, FIN, RST from the peer */
    QP_CF_PEER_UDP,          /* a UDP socket connected to its peer: datagrams, ICMP errors */
    QP_CF_PEER_UDP_UNCONN,   /* a UDP socket bound, not connected: the same */
};

/* Is peer a UDP socket's (datagrams and ICMP errors reach it)? */
static inline bool qp_cf_peer_dgram(unsigned peer)
{
    return peer == QP_CF_PEER_UDP || peer == QP_CF_PEER_UDP_UNCONN;
}

/* The sim's rooms: the objects of a kind the sim holds at once. */
enum qp_cf_room {
    QP_CF_ROOM_NONE, /* no limit but the fds */
    QP_CF_ROOM_PIPES,
    QP_CF_ROOM_EPOLLS,
    QP_CF_ROOM_DGRAMS,
    QP_CF_ROOM_PAIRS,
    QP_CF_ROOM_TIMERFDS,
    QP_CF_ROOM_TCPS,
    QP_CF_ROOM_COUNT
};

typedef struct qp_cf_room_row {
    const char *name;  /* "pipes" */
    unsigned max;      /* the sim's limit */
    bool reused;       /* a closed one's room is reused (a QP_CF_CREATE's counts once) */
} qp_cf_room_row;

extern const qp_cf_room_row qp_cf_rooms[QP_CF_ROOM_COUNT];

typedef struct qp_cf_kind {
    const char *name;          /* "pipe": qp_cf_obj_kind_name */
    uint8_t slots;             /* the fds it takes (1 or 2) */
    const char *slot_names[2]; /* of two slots: each one's name ("pipe read end") */
    bool one_way;              /* its first slot reads, its second writes (a pipe) */
    uint8_t peer;              /* enum qp_cf_peer */
    /* with no peer: makes it through os (both backends), its fds in fds;
       cloexec is the close-on-exec flag the host adds (0 in the sim) */
    int (*make)(qp_os *os, const qp_cf_obj *obj, int cloexec, int fds[2]);
    const char *make_call;     /* the call make makes, as the host names one it refuses */
    uint8_t room;              /* enum qp_cf_room */
    bool counter;              /* another thread's write writes the step's 8-byte value */
    bool ended_by_others;      /* a blocking read or write of it ends only by another thread */
    bool reads_block;          /* the sim's reads of it may block */
    bool timed;                /* its outcome depends on the host keeping its times */
    bool unbound_inet;         /* an inet socket made unbound: a listen binds it to the
                                  wildcard address unless bound first (qp_cf_check) */
    /* "(1, EFD_SEMAPHORE)": what the object's fields say, or NULL */
    void (*describe)(const qp_cf_obj *obj, char *buf, size_t size);
    /* fuzz_conform (the first QP_CF_DRAWN_KINDS kinds): the object's
       fields, a call on one of its slots, a world action on it */
    unsigned drawn_max; /* objects of the kind a drawn scenario has (0: its room's) */
    uint32_t sent_max;  /* bytes a drawn scenario sends on one of its slots (0: no bound) */
    void (*draw_obj)(struct drawer *d, qp_cf_obj *obj);
    void (*draw_io)(struct drawer *d, qp_cf_step *st, unsigned slot, bool write);
    void (*draw_action)(struct drawer *d, qp_cf_step *st, unsigned slot);
} qp_cf_kind;

extern const qp_cf_kind qp_cf_kinds[QP_CF_OBJ_KIND_COUNT];

/* The row of kind, NULL when there is none. */
const qp_cf_kind *qp_cf_kind_row(unsigned kind);
/* What a row lacks of the fields its kind needs (a name, an fd count, a
 * maker or a peer, draw functions when fuzz_conform draws it), or NULL. */
const char *qp_cf_kind_lacks(const qp_cf_kind *k, bool drawn);

#endif
