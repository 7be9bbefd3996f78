/* The registry of every machine this build has (builtin_machines.c, which
 * meson generates): quietpoll's own programs use it. */
#ifndef QUIETPOLL_BUILTIN_H
#define QUIETPOLL_BUILTIN_H

#include "quietpoll/machine.h"

extern const qp_registry qp_builtin_registry;

#endif
