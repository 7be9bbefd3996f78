/* The syscall table (include/quietpoll/syscalls.def) and what is made from
 * it: check-strace's names are in byte order (it searches them), every os
 * table row has its id, name, class and record kind, every record kind has
 * its printer, and every wrapped function is named once. */
#include <string.h>

#include "check.h"
#include "quietpoll/host.h"
#include "quietpoll/syscalls.h"
#include "quietpoll/trace.h"

static void test_strace_names_are_sorted(void)
{
    CHECK(qp_strace_names_count > QP_SYS_COUNT);
    for (size_t i = 1; i < qp_strace_names_count; i++) {
        if (strcmp(qp_strace_names[i - 1].name, qp_strace_names[i].name) > 0)
            fprintf(stderr, "syscalls.def: %s comes after %s\n", qp_strace_names[i].name,
                    qp_strace_names[i - 1].name);
        CHECK(strcmp(qp_strace_names[i - 1].name, qp_strace_names[i].name) <= 0);
    }
}

static void test_every_row_is_whole(void)
{
    for (unsigned sys = 0; sys < QP_SYS_COUNT; sys++) {
        const qp_sys_info *info = &qp_sys_table[sys];
        CHECK(info->name != NULL && info->strace_name != NULL);
        CHECK_STR(qp_sys_name(sys), info->strace_name);
        /* a wait has the layout strace prints it with, and nothing else does */
        CHECK((info->sys_class == QP_CLASS_WAIT) == (info->wait_args != QP_WAIT_ARGS_NONE));
        CHECK_EQ_I(qp_sys_is_wait(sys), info->sys_class == QP_CLASS_WAIT);
        CHECK_EQ_I(qp_sys_is_receive(sys), info->sys_class == QP_CLASS_RECEIVE);
    }
    CHECK_STR(qp_sys_name(QP_SYS_recv), "recvfrom"); /* as strace shows glibc's recv */
    CHECK_STR(qp_sys_name(QP_SYS_eventfd), "eventfd2");
    CHECK_STR(qp_sys_name(QP_SYS_COUNT), "?");
}

/* The trace printer's table has a row for every record kind: each call
 * prints as strace names it, "name(...) = ...". */
static void test_every_row_prints_its_name(void)
{
    for (unsigned sys = 0; sys < QP_SYS_COUNT; sys++) {
        qp_rec rec = {.type = QP_REC_SYSCALL, .call = {.sys = (uint8_t)sys}};
        char buf[512], want[64];
        qp_trace_format_rec(buf, sizeof buf, &rec);
        snprintf(want, sizeof want, "[pid %d] 00:00:00.000000000 %s(", QP_PID_BASE,
                 qp_sys_name(sys));
        if (strncmp(buf, want, strlen(want)) != 0)
            fprintf(stderr, "%s's record prints as: %s\n", qp_sys_name(sys), buf);
        CHECK(strncmp(buf, want, strlen(want)) == 0);
        CHECK(strstr(buf, ") = ") != NULL);
    }
}

/* The host backend is made from the table: a row without its host entry
 * could never be held to Linux. */
static void test_every_row_has_a_host_entry(void)
{
    qp_os host;
    qp_host_os_init(&host);
    unsigned missing = 0;
#define QP_SYSCALL(name, wrap, strace_name, class, wait_args, record, ret, params, args)         \
    if (host.name == NULL) {                                                                       \
        fprintf(stderr, "syscalls.def: %s has no host entry (src/host/host.c)\n", #name);        \
        missing++;                                                                                 \
    }
#define QP_STRACE(strace_name, class, wait_args)
#define QP_LIBC(name)
#include "quietpoll/syscalls.def"
#undef QP_SYSCALL
#undef QP_STRACE
#undef QP_LIBC
    CHECK_EQ_U(missing, 0);
}

static void test_wrapped_names_are_unique(void)
{
    size_t count = 0;
    for (const char *const *s = qp_wrap_symbols; *s != NULL; s++, count++)
        for (const char *const *t = qp_wrap_symbols; t != s; t++)
            CHECK(strcmp(*s, *t) != 0);
    CHECK(count >= QP_SYS_COUNT); /* every os table call, and the clock's libc functions */
}

int main(void)
{
    static const test_case tests[] = {
        TEST(test_strace_names_are_sorted),
        TEST(test_every_row_is_whole),
        TEST(test_every_row_prints_its_name),
        TEST(test_wrapped_names_are_unique),
        TEST(test_every_row_has_a_host_entry),
    };
    return check_run(tests, sizeof tests / sizeof tests[0]);
}
