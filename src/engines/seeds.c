/* Finding a machine's always-seeds: its corpus and its reproducers. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "quietpoll/prop.h"

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

static void add_dir(qp_path_list *list, const char *dir)
{
    struct dirent **names;
    int n = scandir(dir, &names, NULL, by_name);
    if (n < 0)
        return; /* no such directory: no seeds from it */
    for (int i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
        struct stat st;
        if (names[i]->d_name[0] != '.' && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
            char **grown = realloc(list->paths, (list->count + 1) * sizeof *grown);
            char *copy = strdup(path);
            if (grown == NULL || copy == NULL)
                abort();
            list->paths = grown;
            list->paths[list->count++] = copy;
        }
        free(names[i]);
    }
    free(names);
}

bool qp_list_files(const char *dir, qp_path_list *out)
{
    struct stat st;
    out->paths = NULL;
    out->count = 0;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return false;
    add_dir(out, dir);
    return true;
}

void qp_always_seeds(const char *root, const qp_machine *machine, qp_path_list *out)
{
    out->paths = NULL;
    out->count = 0;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/corpus/fuzz_%s", root, machine->name);
    add_dir(out, dir);
    snprintf(dir, sizeof dir, "%s/reproducers/%s", root, machine->name);
    add_dir(out, dir);
}

void qp_path_list_free(qp_path_list *list)
{
    for (size_t i = 0; i < list->count; i++)
        free(list->paths[i]);
    free(list->paths);
    list->paths = NULL;
    list->count = 0;
}
