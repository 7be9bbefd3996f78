/* The tables made from the syscall table (include/quietpoll/syscalls.def). */
#include "quietpoll/syscalls.h"

const qp_sys_info qp_sys_table[QP_SYS_COUNT] = {
#define QP_SYSCALL(name, wrap, strace_name, class, wait_args, record, ret, params, args) \
    [QP_SYS_##name] = {#name, #strace_name, QP_CLASS_##class, QP_WAIT_ARGS_##wait_args,  \
                       QP_ARGS_##record},
#define QP_STRACE(strace_name, class, wait_args)
#define QP_LIBC(name)
#include "quietpoll/syscalls.def"
#undef QP_SYSCALL
#undef QP_STRACE
#undef QP_LIBC
};

const qp_strace_name qp_strace_names[] = {
#define QP_SYSCALL(name, wrap, strace_name, class, wait_args, record, ret, params, args) \
    {#strace_name, QP_CLASS_##class, QP_WAIT_ARGS_##wait_args},
#define QP_STRACE(strace_name, class, wait_args) \
    {#strace_name, QP_CLASS_##class, QP_WAIT_ARGS_##wait_args},
#define QP_LIBC(name)
#include "quietpoll/syscalls.def"
#undef QP_SYSCALL
#undef QP_STRACE
#undef QP_LIBC
};

const size_t qp_strace_names_count = sizeof qp_strace_names / sizeof qp_strace_names[0];

const char *const qp_wrap_symbols[] = {
#define QP_SYSCALL(name, wrap, strace_name, class, wait_args, record, ret, params, args) #name,
#define QP_STRACE(strace_name, class, wait_args)
#define QP_LIBC(name) #name,
#define QP_ALIAS(name, target, wrap, ret, params, args, target_args, check) #name,
#define QP_UNMODELLED(name, wrap, ret, params, args) #name,
#include "quietpoll/syscalls.def"
#undef QP_SYSCALL
#undef QP_STRACE
#undef QP_LIBC
#undef QP_ALIAS
#undef QP_UNMODELLED
    NULL,
};

const char *qp_sys_name(unsigned sys)
{
    return sys < QP_SYS_COUNT ? qp_sys_table[sys].strace_name : "?";
}

bool qp_sys_is_wait(unsigned sys)
{
    return sys < QP_SYS_COUNT && qp_sys_table[sys].sys_class == QP_CLASS_WAIT;
}

bool qp_sys_is_receive(unsigned sys)
{
    return sys < QP_SYS_COUNT && qp_sys_table[sys].sys_class == QP_CLASS_RECEIVE;
}

bool qp_sys_is_send(unsigned sys)
{
    return sys < QP_SYS_COUNT && qp_sys_table[sys].sys_class == QP_CLASS_SEND;
}

bool qp_sys_is_resolver(unsigned sys)
{
    return sys < QP_SYS_COUNT && qp_sys_table[sys].args == QP_ARGS_RESOLVE;
}

bool qp_sys_is_vdso(unsigned sys)
{
    if (sys >= QP_SYS_COUNT)
        return false;
    unsigned args = qp_sys_table[sys].args;
    return args == QP_ARGS_CLOCK || args == QP_ARGS_CLOCK_RES;
}
