/* The machines a program runs, and lookups by name. The registry is set
 * once at start-up (qp_registry_use) and only read after that. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quietpoll/oracle.h"

#include "quietpoll/machine.h"

static const qp_machine *const models[] = {
    &qp_machine_timed_read, &qp_machine_selector, &qp_machine_pipe,
    &qp_machine_timer_loop, &qp_machine_dgram, &qp_machine_accept_loop,
    &qp_machine_connect_deadline, &qp_machine_flow_writer,
};
static const qp_registry models_only = {models, sizeof models / sizeof models[0], NULL, 0};
static const qp_registry *registry = &models_only;

void qp_registry_use(const qp_registry *r)
{
    registry = r;
}

const qp_registry *qp_registry_get(void)
{
    return registry;
}

const qp_machine *qp_machine_find(const char *name)
{
    for (size_t i = 0; i < registry->count; i++)
        if (strcmp(registry->machines[i]->name, name) == 0)
            return registry->machines[i];
    return NULL;
}

const char *qp_machine_missing(const char *name)
{
    for (size_t i = 0; i < registry->absent_count; i++)
        if (strcmp(registry->absent[i].name, name) == 0)
            return registry->absent[i].why;
    return NULL;
}

uint32_t qp_variant_expected(const qp_variant *v)
{
    if (strcmp(v->expect, "pass") == 0)
        return 0;
    uint32_t set;
    size_t bad_len;
    if (!qp_property_set_parse(v->expect, &set, &bad_len) || set == 0) {
        fprintf(stderr, "quietpoll: variant %s expects '%s', which names no property\n", v->name,
                v->expect);
        abort();
    }
    return set;
}

uint32_t qp_variant_known_default(const qp_machine *machine, size_t variant)
{
    assert(variant < machine->variants_count);
    return machine->real_library ? qp_variant_expected(&machine->variants[variant]) : 0;
}

void qp_asks_each_op_marked(const qp_schedule *sched, unsigned wait_sys, qp_work_asked *out)
{
    out->ops_marked = (uint32_t)sched->ops_count;
    out->wait_calls = UINT64_C(1) << wait_sys;
}

long qp_variant_find(const qp_machine *machine, const char *name)
{
    for (size_t i = 0; i < machine->variants_count; i++)
        if (strcmp(machine->variants[i].name, name) == 0)
            return (long)i;
    return -1;
}
