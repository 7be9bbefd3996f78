/* The real libraries' listeners under the system's file table (src/sim/
 * file_table.c), on schedules made for it: libuv 1.44's reserve fd lost to
 * ENFILE between uv__emfile_trick's close and its reopen, after which
 * uv__server_io hands UV_EMFILE to the connection callback and accepts
 * again with no wait between (joyent/libuv #1189; docs/CATALOG.md,
 * libuv_listener). Random trials rarely draw the race, so the variant's
 * catalogued verdict stays pass; this test holds the finding. A build
 * without libuv skips (77). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "../src/machines/builtin.h"
#include "check.h"
#include "helpers.h"
#include "quietpoll/units.h"

#define START_NS (1000 * QP_NS_PER_S)
#define AT_US(us) (START_NS + (uint64_t)(us) * QP_NS_PER_US)

/* 4 peers at an fd limit 2 above what the server holds, the table filled
 * (0 left) at +1 ms + fill_us, freed at 300 ms. */
static qp_schedule race(unsigned fill_us)
{
    qp_schedule s = {.start_ns = START_NS, .cost_ns = 1000};
    s.ops[s.ops_count++] = (qp_op){.timeout_ns = 50 * QP_NS_PER_MS, .size = 1};
    const qp_event events[] = {
        {.at_ns = AT_US(1000), .kind = QP_EV_CONNECT, .size = 4},
        {.at_ns = AT_US(1000 + fill_us), .kind = QP_EV_FILE_TABLE, .size = 0},
        {.at_ns = AT_US(20000), .kind = QP_EV_CONNECT, .size = 3},
        {.at_ns = AT_US(300000), .kind = QP_EV_FILE_TABLE, .size = QP_FILE_TABLE_FREED},
    };
    for (size_t e = 0; e < sizeof events / sizeof events[0]; e++)
        s.events[s.events_count++] = events[e];
    return s;
}

/* Does the run's trace hold a failed openat of "/" (the reserve's reopen)
 * with ENFILE, and after it accept4 ENFILE twice with no wait between? */
static bool reserve_lost_then_loops(const qp_trace *trace)
{
    bool lost = false;
    unsigned in_a_row = 0;
    for (size_t i = 0; i < trace->count; i++) {
        const qp_rec *r = &trace->recs[i];
        if (r->type != QP_REC_SYSCALL)
            continue;
        if (qp_rec_is_call(r, QP_SYS_open) && r->call.ret == -1 && r->call.err == ENFILE)
            lost = true;
        else if (lost && qp_rec_is_call(r, QP_SYS_accept4) && r->call.err == ENFILE)
            in_a_row++;
        else if (lost && qp_sys_is_wait(r->call.sys))
            in_a_row = 0;
        if (in_a_row >= 2)
            return true;
    }
    return false;
}

static void test_libuv_reserve_lost_to_enfile_loops(void)
{
    const qp_machine *m = qp_machine_find("libuv_listener");
    qp_run *run = qp_run_new();
    unsigned found = 0;
    for (unsigned fill_us = 0; fill_us < 40; fill_us++) {
        qp_schedule s = race(fill_us);
        bool violated = run_schedule(run, m, 0, &s);
        if (!violated)
            continue;
        CHECK_EQ_I(run->oracle.violation.property, QP_PROP_SYSCALL_BOUND);
        CHECK(reserve_lost_then_loops(&run->trace));
        found++;
    }
    printf("libuv_listener/%s: syscall-bound in %u of 40 fills, each after the reserve's reopen "
           "failed with ENFILE\n",
           m->variants[0].name, found);
    CHECK(found >= 1);
    qp_run_free(run);
}

int main(void)
{
    qp_registry_use(&qp_builtin_registry);
    if (qp_machine_find("libuv_listener") == NULL) {
        printf("skip: this build has no libuv_listener machine\n");
        return 77;
    }
    static const test_case tests[] = {
        TEST(test_libuv_reserve_lost_to_enfile_loops),
    };
    return check_run(tests, sizeof tests / sizeof tests[0]);
}
