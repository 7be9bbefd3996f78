/* Every machine, and lookups by name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quietpoll/oracle.h"

#include "quietpoll/machine.h"

const qp_machine *const qp_machines[] = {
    &qp_machine_timed_read,
    &qp_machine_selector,
    &qp_machine_pipe,
    &qp_machine_timer_loop,
    &qp_machine_dgram,
#ifdef QP_HAVE_UDNS
    &qp_machine_udns,
#endif
#ifdef QP_HAVE_LIBUV
    &qp_machine_libuv,
#endif
#ifdef QP_HAVE_LIBEVENT
    &qp_machine_libevent,
#endif
#ifdef QP_HAVE_CARES
    &qp_machine_cares,
#endif
};
const size_t qp_machines_count = sizeof qp_machines / sizeof qp_machines[0];

const qp_machine *qp_machine_find(const char *name)
{
    for (size_t i = 0; i < qp_machines_count; i++)
        if (strcmp(qp_machines[i]->name, name) == 0)
            return qp_machines[i];
    return NULL;
}

uint32_t qp_variant_expected(const qp_variant *v)
{
    if (strcmp(v->expect, "pass") == 0)
        return 0;
    uint32_t set = 0;
    char name[64];
    for (const char *p = v->expect; *p != '\0';) {
        size_t len = strcspn(p, ",");
        int property = -1;
        if (len < sizeof name) {
            memcpy(name, p, len);
            name[len] = '\0';
            property = qp_property_parse(name);
        }
        if (property < 0) {
            fprintf(stderr, "quietpoll: variant %s expects '%s', which names no property\n",
                    v->name, v->expect);
            abort();
        }
        set |= UINT32_C(1) << property;
        p += len + (p[len] == ',');
    }
    return set;
}

long qp_variant_find(const qp_machine *machine, const char *name)
{
    for (size_t i = 0; i < machine->variants_count; i++)
        if (strcmp(machine->variants[i].name, name) == 0)
            return (long)i;
    return -1;
}

const char *qp_machine_missing(const char *name)
{
#ifndef QP_HAVE_UDNS
    if (strcmp(name, "udns") == 0)
        return "this build has no udns machine: libudns.a (Debian: libudns-dev) was not found "
               "when meson configured it (or -Dudns=disabled); install it and reconfigure";
#endif
#ifndef QP_HAVE_LIBEVENT
    if (strcmp(name, "libevent") == 0)
        return "this build has no libevent machine: libevent_core.a or libevent_pthreads.a "
               "(Debian: libevent-dev) was not found when meson configured it (or "
               "-Dlibevent=disabled); install it and reconfigure";
#endif
#ifndef QP_HAVE_LIBUV
    if (strcmp(name, "libuv") == 0)
        return "this build has no libuv machine: libuv_a.a (Debian: libuv1-dev) was not found "
               "when meson configured it (or -Dlibuv=disabled); install it and reconfigure";
#endif
#ifndef QP_HAVE_CARES
    if (strcmp(name, "cares") == 0)
        return "this build has no cares machine: libcares.a (Debian: libc-ares-dev) was not "
               "found when meson configured it (or -Dcares=disabled); install it and reconfigure";
#endif
    (void)name;
    return NULL;
}
