/* The corpus's nameserver (nameserver.h). */
#include "nameserver.h"

#include <arpa/inet.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#define DNS_HEADER_BYTES 12
#define A_RECORD_BYTES 16

/* The query's header and question (what follows, as an EDNS record, is
 * dropped) turned into an answer with one A record. */
static size_t answer(unsigned char *msg, size_t size, size_t buf_size)
{
    static const unsigned char record[A_RECORD_BYTES] = {0xc0, 0x0c, 0, 1, 0, 1, 0, 0,
                                                         0,    60,   0, 4, 127, 0, 0, 1};
    size_t end = DNS_HEADER_BYTES;
    while (end < size && msg[end] != 0)
        end += (size_t)msg[end] + 1u; /* a label of the name */
    end += 1 + 4;                     /* the root label, the type and the class */
    if (size < DNS_HEADER_BYTES || end > size || end + sizeof record > buf_size)
        return 0;
    size = end;
    msg[2] |= 0x80; /* QR: a response */
    msg[3] = 0x80;  /* RA, no error */
    msg[6] = 0;     /* one answer */
    msg[7] = 1;
    memset(msg + 8, 0, 4);
    memcpy(msg + size, record, sizeof record);
    return size + sizeof record;
}

static void *serve(void *arg)
{
    nameserver *ns = arg;
    for (unsigned long received = 1;; received++) {
        unsigned char msg[512];
        struct sockaddr_in from;
        socklen_t from_size = sizeof from;
        ssize_t n = recvfrom(ns->fd, msg, sizeof msg - A_RECORD_BYTES, 0,
                             (struct sockaddr *)&from, &from_size);
        if (n <= 0)
            return NULL; /* stopped, or NAMESERVER_IDLE_MS without a query */
        if (ns->drop_every > 0 && received % ns->drop_every == 0)
            continue;
        size_t size = answer(msg, (size_t)n, sizeof msg);
        if (size > 0)
            sendto(ns->fd, msg, size, 0, (struct sockaddr *)&from, from_size);
    }
}

int nameserver_start(nameserver *ns, unsigned drop_every)
{
    ns->drop_every = drop_every;
    ns->fd = socket(AF_INET, SOCK_DGRAM, 0);
    memset(&ns->addr, 0, sizeof ns->addr);
    ns->addr.sin_family = AF_INET;
    ns->addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t addr_size = sizeof ns->addr;
    struct timeval idle = {NAMESERVER_IDLE_MS / 1000, (NAMESERVER_IDLE_MS % 1000) * 1000};
    if (ns->fd < 0 || bind(ns->fd, (struct sockaddr *)&ns->addr, sizeof ns->addr) != 0 ||
        getsockname(ns->fd, (struct sockaddr *)&ns->addr, &addr_size) != 0 ||
        setsockopt(ns->fd, SOL_SOCKET, SO_RCVTIMEO, &idle, sizeof idle) != 0)
        return -1;
    return pthread_create(&ns->thread, NULL, serve, ns) == 0 ? 0 : -1;
}

void nameserver_stop(nameserver *ns)
{
    shutdown(ns->fd, SHUT_RDWR); /* its recvfrom returns 0 */
    pthread_join(ns->thread, NULL);
    close(ns->fd);
}
