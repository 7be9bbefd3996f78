/* Every machine, and lookups by name. */
#include <string.h>

#include "quietpoll/machine.h"

const qp_machine *const qp_machines[] = {
    &qp_machine_timed_read,
    &qp_machine_selector,
    &qp_machine_pipe,
};
const size_t qp_machines_count = sizeof qp_machines / sizeof qp_machines[0];

const qp_machine *qp_machine_find(const char *name)
{
    for (size_t i = 0; i < qp_machines_count; i++)
        if (strcmp(qp_machines[i]->name, name) == 0)
            return qp_machines[i];
    return NULL;
}

long qp_variant_find(const qp_machine *machine, const char *name)
{
    for (size_t i = 0; i < machine->variants_count; i++)
        if (strcmp(machine->variants[i].name, name) == 0)
            return (long)i;
    return -1;
}
