/* What the quietpoll subcommands share: looking up machines and variants,
 * reading input files, and exiting 2 with a clear message on bad input. */
#ifndef QUIETPOLL_CLI_H
#define QUIETPOLL_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "quietpoll/machine.h"
#include "quietpoll/prop.h"
#include "quietpoll/run.h"

#define CLI_EXIT_OK 0
#define CLI_EXIT_VIOLATION 1
#define CLI_EXIT_USAGE 2
#define CLI_EXIT_SKIP 77 /* nothing to do here (meson counts it a skip) */

/* Each exits 2 with a message on stderr when the lookup or read fails. */
const qp_machine *cli_machine(const char *name);
size_t cli_variant(const qp_machine *machine, const char *name);
void cli_read_tape(const char *path, qp_tape_buf *buf);
uint64_t cli_number(const char *option, const char *text);

/* The argument of --known: a comma-separated list of properties, or
 * "expected" for v's expected set (as a fuzz target takes them by default);
 * NULL: none. Those properties are counted, not violations: a run goes on
 * past them (qp_oracle.known). Exits 2 on a name that is no property. */
/* --known ARG for machine's variant: a property list, 'expected' (the variant's
 * expectation) or 'target' (what its fuzz target takes for known by default:
 * qp_variant_known_default); 0 for no --known. */
/* The program running (its argv[0]: quietpoll, build/quietpoll, a library's
 * own mylib-quietpoll), for the commands that reports print to replay. */
extern const char *cli_program;

uint32_t cli_known(const char *cmd, const char *arg, const qp_machine *machine, size_t variant);

/* Prints the message and "see quietpoll CMD --help", returns 2. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Reruns minimal and prints its report, with how it was found and shrunk,
 * its finding id and db_note (what the failure database said, or NULL); the
 * shrink's wall time goes to stderr, so stdout is the same every run. */
/* Fork mode (prop --fork): when not 0, cli_run runs each input in a child
 * with this wall-clock limit. */
extern uint64_t cli_fork_timeout_ms;

/* Runs data through machine/variant, in a child under fork mode; a child
 * killed at the limit leaves its trace in run and a hang as its violation,
 * one that died of a signal a crash. Returns whether a property fired. */
bool cli_run(qp_run *run, const qp_machine *machine, size_t variant, const uint8_t *data,
             size_t size);

void cli_report_shrunk(qp_run *run, const qp_machine *machine, size_t variant, const char *found,
                       const qp_tape_buf *original, const qp_tape_buf *minimal,
                       const qp_shrink_stats *stats, const char *minimal_path,
                       const char *db_note);

int cmd_list(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_shrink(int argc, char **argv);
int cmd_prop(int argc, char **argv);
int cmd_live(int argc, char **argv);
int cmd_check_strace(int argc, char **argv);
int cmd_audit(int argc, char **argv);
int cmd_finding(int argc, char **argv);
int cmd_conform(int argc, char **argv);

#endif
