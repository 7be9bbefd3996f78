/* The failure database on disk (see include/quietpoll/db.h). */
#include "quietpoll/db.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *qp_db_dir(void)
{
    const char *db = getenv("QP_DB");
    if (db == NULL || *db == '\0')
        return QP_DB_DEFAULT;
    return strcmp(db, "none") == 0 ? NULL : db;
}

static void variant_dir(const char *db, const char *machine, const char *variant, char *dir,
                        size_t size)
{
    snprintf(dir, size, "%s/%s/%s", db, machine, variant);
}

void qp_db_entries(const char *db, const char *machine, const char *variant, qp_path_list *out)
{
    char dir[4096];
    variant_dir(db, machine, variant, dir, sizeof dir);
    qp_list_files(dir, out);
    size_t kept = 0; /* entries only: a half-written "ID.tape.tmpPID" is none */
    for (size_t i = 0; i < out->count; i++) {
        size_t len = strlen(out->paths[i]);
        if (len > 5 && strcmp(out->paths[i] + len - 5, ".tape") == 0)
            out->paths[kept++] = out->paths[i];
        else
            free(out->paths[i]);
    }
    out->count = kept;
}

void qp_db_entry_path(const char *db, const char *machine, const char *variant, const char *id,
                      char *path, size_t path_size)
{
    snprintf(path, path_size, "%s/%s/%s/%s.tape", db, machine, variant, id);
}

/* mkdir -p of dir's components, the last one included */
bool qp_make_dirs(const char *dir)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        return false;
    }
    for (char *p = path + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char c = *p;
        *p = '\0';
        if (mkdir(path, 0777) != 0 && errno != EEXIST)
            return false;
        if (c == '\0')
            return true;
        *p = c;
    }
}

bool qp_db_store(const char *db, const char *machine, const char *variant, const char *id,
                 const qp_tape_buf *tape, char *path, size_t path_size, bool *known)
{
    char dir[4096];
    variant_dir(db, machine, variant, dir, sizeof dir);
    qp_db_entry_path(db, machine, variant, id, path, path_size);
    struct stat st;
    *known = stat(path, &st) == 0;
    if (*known)
        return true;
    if (!qp_make_dirs(dir))
        return false;
    /* write then rename: parallel runs never see half an entry */
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
    if (!qp_tape_buf_write(tape, tmp))
        return false;
    if (rename(tmp, path) != 0) {
        int saved = errno;
        remove(tmp);
        errno = saved;
        return false;
    }
    return true;
}

bool qp_db_note_gap(const char *db, const char *machine, const char *variant, const char *call)
{
    char path[4200], line[512], want[512];
    snprintf(path, sizeof path, "%s/%s", db, QP_DB_GAPS_FILE);
    snprintf(want, sizeof want, "%s\t%s\t%s\n", machine, variant, call);
    FILE *in = fopen(path, "r");
    if (in != NULL) {
        bool there = false;
        while (!there && fgets(line, sizeof line, in) != NULL)
            there = strcmp(line, want) == 0;
        fclose(in);
        if (there)
            return true;
    }
    if (!qp_make_dirs(db))
        return false;
    FILE *out = fopen(path, "a");
    if (out == NULL)
        return false;
    bool ok = fputs(want, out) >= 0;
    return fclose(out) == 0 && ok;
}

bool qp_db_holds(const char *db, const char *path)
{
    size_t n = strlen(db);
    return strncmp(path, db, n) == 0 && path[n] == '/';
}
