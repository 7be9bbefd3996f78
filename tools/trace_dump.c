/* qp-trace-dump: every variant's verdict and full trace for each input, to
 * compare builds byte for byte (gcc against clang, sanitizers on and off).
 *   qp-trace-dump [--machine M] [--random N] [--seed S] [FILE...] */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/machines/builtin.h"
#include "quietpoll/rng.h"
#include "quietpoll/run.h"

static void dump(qp_run *run, const qp_machine *m, const char *name, const uint8_t *data,
                 size_t size)
{
    for (size_t v = 0; v < m->variants_count; v++) {
        bool violated = qp_run_bytes(run, m, v, data, size);
        printf("== %s %s/%s: %s\n", name, m->name, m->variants[v].name,
               violated ? qp_property_name((unsigned)run->oracle.violation.property) : "pass");
        qp_run_describe(stdout, run);
        qp_run_print_trace(stdout, run);
    }
}

static int usage(void)
{
    fprintf(stderr, "usage: qp-trace-dump [--machine M] [--random N] [--seed S] [FILE...]\n");
    return 2;
}

int main(int argc, char **argv)
{
    qp_registry_use(&qp_builtin_registry);
    const qp_machine *m = &qp_machine_timed_read;
    unsigned long random_count = 0;
    uint64_t seed = 1;
    int first_file = argc;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--machine") == 0 && i + 1 < argc) {
            m = qp_machine_find(argv[++i]);
            if (m == NULL) {
                fprintf(stderr, "qp-trace-dump: unknown machine '%s'\n", argv[i]);
                return 2;
            }
        } else if (strcmp(argv[i], "--random") == 0 && i + 1 < argc) {
            random_count = strtoul(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            seed = strtoull(argv[++i], NULL, 10);
        } else if (argv[i][0] == '-') {
            return usage();
        } else {
            first_file = i;
            break;
        }
    }
    qp_run *run = qp_run_new();
    static uint8_t buf[QP_TAPE_MAX_BYTES];
    for (int i = first_file; i < argc; i++) {
        FILE *in = fopen(argv[i], "rb");
        if (in == NULL) {
            fprintf(stderr, "qp-trace-dump: %s: %s\n", argv[i], strerror(errno));
            return 2;
        }
        size_t size = fread(buf, 1, sizeof buf, in);
        fclose(in);
        dump(run, m, argv[i], buf, size);
    }
    uint64_t state = seed;
    for (unsigned long i = 0; i < random_count; i++) {
        size_t size = (size_t)(qp_splitmix64(&state) % 160);
        qp_random_bytes(&state, buf, size);
        char name[64];
        snprintf(name, sizeof name, "random-%lu", i);
        dump(run, m, name, buf, size);
    }
    qp_run_free(run);
    return 0;
}
