/* How a row of the syscall table is called: its caller made from the row
 * itself (include/quietpoll/syscalls.def), each parameter declared with the
 * row's own type and given the value its recipe made, so that a row needs no
 * code to be called; and a row's parameters found by their names, for the
 * steps that read an argument by what it is (a timeout, flags, a slot). */
#include <string.h>

#include "calls.h"
#include "quietpoll/syscalls.h"

/* The n-th of a parenthesised list of parameters or arguments. */
#define CF_AT0(x0, ...) x0
#define CF_AT1(x0, x1, ...) x1
#define CF_AT2(x0, x1, x2, ...) x2
#define CF_AT3(x0, x1, x2, x3, ...) x3
#define CF_AT4(x0, x1, x2, x3, x4, ...) x4
#define CF_AT5(x0, x1, x2, x3, x4, x5, ...) x5
#define CF_AT6(x0, x1, x2, x3, x4, x5, x6, ...) x6
#define CF_APPLY(macro, args) macro args
#define CF_AT(n, list) CF_APPLY(CF_AT##n, (QP_UNPAREN list, ~))
#define CF_COUNT(...) CF_COUNT_(__VA_ARGS__ __VA_OPT__(, ) 7, 6, 5, 4, 3, 2, 1, 0, ~)
#define CF_COUNT_(x0, x1, x2, x3, x4, x5, x6, n, ...) n
#define CF_CAT(a, b) CF_CAT_(a, b)
#define CF_CAT_(a, b) a##b

/* Parameter n declared as the row has it, holding value v[n]. */
#define CF_DECL(n, params, args)                                                                   \
    CF_AT(n, params) = (__typeof__(CF_AT(n, args)))(uintptr_t)v[n];
#define CF_DECLS_0(p, a)
#define CF_DECLS_1(p, a) CF_DECL(0, p, a)
#define CF_DECLS_2(p, a) CF_DECLS_1(p, a) CF_DECL(1, p, a)
#define CF_DECLS_3(p, a) CF_DECLS_2(p, a) CF_DECL(2, p, a)
#define CF_DECLS_4(p, a) CF_DECLS_3(p, a) CF_DECL(3, p, a)
#define CF_DECLS_5(p, a) CF_DECLS_4(p, a) CF_DECL(4, p, a)
#define CF_DECLS_6(p, a) CF_DECLS_5(p, a) CF_DECL(5, p, a)
#define CF_DECLS_7(p, a) CF_DECLS_6(p, a) CF_DECL(6, p, a)
#define CF_DECLS(params, args) CF_CAT(CF_DECLS_, CF_COUNT params)(params, args)

#define QP_SYSCALL(name, wrap, strace_name, class, wait_args, record, ret, params, args)         \
    static int64_t call_##name(qp_os *os, const uint64_t *v)                                      \
    {                                                                                              \
        (void)v;                                                                                   \
        CF_DECLS(params, args)                                                                     \
        return (int64_t)os->name QP_OS_ARGS(os, QP_UNPAREN args);                                 \
    }
#define QP_STRACE(strace_name, class, wait_args)
#define QP_LIBC(name)
#include "quietpoll/syscalls.def"
#undef QP_SYSCALL
#undef QP_STRACE
#undef QP_LIBC

static int64_t (*const callers[QP_SYS_COUNT])(qp_os *os, const uint64_t *v) = {
#define QP_SYSCALL(name, wrap, strace_name, class, wait_args, record, ret, params, args)         \
    [QP_SYS_##name] = call_##name,
#define QP_STRACE(strace_name, class, wait_args)
#define QP_LIBC(name)
#include "quietpoll/syscalls.def"
#undef QP_SYSCALL
#undef QP_STRACE
#undef QP_LIBC
};

/* Each row's parameter names, as the row lists its arguments: "(fd, buf, count)". */
static const char *const row_args[QP_SYS_COUNT] = {
#define QP_SYSCALL(name, wrap, strace_name, class, wait_args, record, ret, params, args)         \
    [QP_SYS_##name] = #args,
#define QP_STRACE(strace_name, class, wait_args)
#define QP_LIBC(name)
#include "quietpoll/syscalls.def"
#undef QP_SYSCALL
#undef QP_STRACE
#undef QP_LIBC
};

int qp__cf_row_param(unsigned sys, const char *param)
{
    if (sys >= QP_SYS_COUNT)
        return -1;
    size_t want = strlen(param);
    const char *p = row_args[sys];
    for (int i = 0; *p != '\0'; i++) {
        while (*p == '(' || *p == ' ' || *p == ',')
            p++;
        size_t n = strcspn(p, ", )");
        if (n == want && strncmp(p, param, n) == 0)
            return i;
        p += n;
        if (*p == ')' || *p == '\0')
            break;
    }
    return -1;
}

int64_t qp_cf_step_arg(const qp_cf_step *st, const char *param, int64_t otherwise)
{
    if (st->op != QP_CF_CALL)
        return otherwise;
    int i = qp__cf_row_param(st->sys, param);
    return i >= 0 && i < st->args_count ? st->args[i].value : otherwise;
}

unsigned qp_cf_step_slot(const qp_cf_step *st)
{
    if (st->op != QP_CF_CALL)
        return st->slot;
    for (unsigned i = 0; i < st->args_count; i++)
        if (st->args[i].kind == QP_CF_ARG_SLOT)
            return (unsigned)st->args[i].value;
    return QP_CF_NO_SLOT;
}

int32_t qp_cf_step_flags(const qp_cf_step *st)
{
    return (int32_t)qp_cf_step_arg(st, "flags", st->flags);
}

int64_t qp__cf_row_call(qp_os *os, unsigned sys, const uint64_t *v)
{
    return callers[sys](os, v);
}
