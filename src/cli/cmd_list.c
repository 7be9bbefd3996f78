/* quietpoll list */
#include <stdio.h>
#include <string.h>

#include "cli.h"

int cmd_list(int argc, char **argv)
{
    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("usage: quietpoll list [--machines | --absent]\n\nPrints the machines, their variants "
               "(name, the properties each must fire or 'pass', origin, summary), the properties,\n"
               "and the machines this build was made without and why.\n"
               "--machines: the machine names alone, one per line.\n"
               "--absent: the machines this build was made without, a line each: name, a tab, why.\n");
        return CLI_EXIT_OK;
    }
    if (argc == 2 && strcmp(argv[1], "--machines") == 0) {
        for (size_t i = 0; i < qp_registry_get()->count; i++)
            printf("%s\n", qp_registry_get()->machines[i]->name);
        return CLI_EXIT_OK;
    }
    const qp_registry *r = qp_registry_get();
    if (argc == 2 && strcmp(argv[1], "--absent") == 0) {
        for (size_t i = 0; i < r->absent_count; i++)
            printf("%s\t%s\n", r->absent[i].name, r->absent[i].why);
        return CLI_EXIT_OK;
    }
    if (argc > 1)
        return cli_usage_error("list", "takes no arguments but --machines or --absent");
    for (size_t i = 0; i < qp_registry_get()->count; i++) {
        const qp_machine *m = qp_registry_get()->machines[i];
        printf("%s: %s\n", m->name, m->summary);
        for (size_t v = 0; v < m->variants_count; v++)
            printf("  %-18s %-15s %-32s %s\n", m->variants[v].name, m->variants[v].expect,
                   m->variants[v].origin, m->variants[v].summary);
        printf("\n");
    }
    printf("properties:\n");
    for (unsigned p = 0; p < QP_PROP_COUNT; p++)
        printf("  %-15s %s\n", qp_property_name(p), qp_property_summary(p));
    if (r->absent_count > 0) {
        printf("\nnot in this build:\n");
        for (size_t i = 0; i < r->absent_count; i++)
            printf("  %s: %s\n", r->absent[i].name, r->absent[i].why);
    }
    return CLI_EXIT_OK;
}
