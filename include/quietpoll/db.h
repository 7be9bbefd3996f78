/* The failure database: every shrunk failure that prop or the fuzz scripts
 * find is kept, and later runs of the same machine and variant replay it
 * before anything random, the way Hypothesis keeps its examples.
 *
 * The database is a directory: QP_DB, or .quietpoll/ in the working
 * directory; QP_DB=none turns it off. A failure is the file
 * DB/<machine>/<variant>/<finding id>.tape holding its shrunk tape. An entry
 * that no longer fails when replayed is removed by the run that saw it pass. */
#ifndef QUIETPOLL_DB_H
#define QUIETPOLL_DB_H

#include <stdbool.h>
#include <stddef.h>

#include "quietpoll/prop.h"

#define QP_DB_DEFAULT ".quietpoll"

/* The database directory (QP_DB, or QP_DB_DEFAULT), or NULL when QP_DB=none. */
const char *qp_db_dir(void);

/* The entries of machine/variant in db, sorted by name (none when the
 * directory does not exist). The caller frees with qp_path_list_free. */
void qp_db_entries(const char *db, const char *machine, const char *variant, qp_path_list *out);

/* The path of the entry id of machine/variant, into path. */
void qp_db_entry_path(const char *db, const char *machine, const char *variant, const char *id,
                      char *path, size_t path_size);

/* Stores tape as the entry id of machine/variant (creating the directories);
 * sets *known when the entry was there already (it is then left as it is).
 * Writes the entry's path into path. False with errno set when it cannot. */
bool qp_db_store(const char *db, const char *machine, const char *variant, const char *id,
                 const qp_tape_buf *tape, char *path, size_t path_size, bool *known);

/* Is path an entry of db (under db/)? */
bool qp_db_holds(const char *db, const char *path);

/* The gaps: calls the code under test made that the simulator does not
 * model (QP_PROP_UNMODELLED). They are no findings of the code, so they
 * get no entry; the file DB/gaps.tsv keeps one line per machine, variant
 * and call ("MACHINE\tVARIANT\tCALL"), for `quietpoll list --gaps`.
 * qp_db_note_gap adds one (creating the directory) unless it is there
 * already; false with errno set when it cannot. */
/* mkdir -p: dir and every directory above it; false with errno set. */
bool qp_make_dirs(const char *dir);

#define QP_DB_GAPS_FILE "gaps.tsv"
bool qp_db_note_gap(const char *db, const char *machine, const char *variant, const char *call);

#endif
