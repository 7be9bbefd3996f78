/* The conformance suite: the tables of scenarios (scenarios.c, and one file
 * per object kind or call family, scenarios_<name>.c), as one list. */
#include "quietpoll/conform.h"
#include "suite.h"

typedef struct suite_table {
    const qp_cf_scenario *scenarios;
    const size_t *count;
} suite_table;

#define TABLE(name) {qp_cf_scenarios_##name, &qp_cf_scenarios_##name##_count}

static const suite_table tables[] = {
    {qp_cf_scenarios, &qp_cf_scenarios_count},
    QP_CF_SUITE_TABLES(TABLE)
};

size_t qp_cf_suite_count(void)
{
    size_t n = 0;
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++)
        n += *tables[t].count;
    return n;
}

const qp_cf_scenario *qp_cf_suite_at(size_t index)
{
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++) {
        if (index < *tables[t].count)
            return &tables[t].scenarios[index];
        index -= *tables[t].count;
    }
    return NULL;
}
