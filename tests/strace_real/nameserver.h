/* A tiny nameserver for the corpus's resolvers: a thread with a UDP socket
 * on 127.0.0.1 that answers each A query with 127.0.0.1, dropping every
 * drop_every-th one it receives (0: none), until it is stopped or
 * NAMESERVER_IDLE_MS pass without a query. */
#ifndef STRACE_REAL_NAMESERVER_H
#define STRACE_REAL_NAMESERVER_H

#include <netinet/in.h>
#include <pthread.h>

#define NAMESERVER_IDLE_MS 2000

typedef struct nameserver {
    int fd;
    unsigned drop_every;
    struct sockaddr_in addr; /* where it listens */
    pthread_t thread;
} nameserver;

/* 0, or -1 (errno) */
int nameserver_start(nameserver *ns, unsigned drop_every);
void nameserver_stop(nameserver *ns);

#endif
