/* Replays inputs through a fuzz target without a fuzzing engine:
 *   fuzz_X [FILE|DIR]...    (no file: standard input)
 * Arguments of the form -flag=value and a bare -- are ignored, as OSS-Fuzz
 * passes libFuzzer flags to every target. A violation aborts, as it does
 * under the engine; otherwise the exit status is 0. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "quietpoll/fuzz.h"
#include "quietpoll/tape.h"

#define INPUT_BYTES_MAX (1u << 20)

static size_t replayed_count;

static int replay_stream(FILE *in, const char *path)
{
    static uint8_t buf[INPUT_BYTES_MAX];
    size_t size = fread(buf, 1, sizeof buf, in);
    if (ferror(in)) {
        fprintf(stderr, "%s: cannot read: %s\n", path, strerror(errno));
        return 2;
    }
    qp_fuzz_set_input_path(path);
    LLVMFuzzerTestOneInput(buf, size);
    replayed_count++;
    return 0;
}

static int replay_file(const char *path)
{
    FILE *in = fopen(path, "rb");
    if (in == NULL) {
        fprintf(stderr, "%s: cannot open: %s\n", path, strerror(errno));
        return 2;
    }
    int rc = replay_stream(in, path);
    fclose(in);
    return rc;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

static int replay_dir(const char *dir)
{
    struct dirent **names;
    int n = scandir(dir, &names, NULL, by_name);
    if (n < 0) {
        fprintf(stderr, "%s: cannot list: %s\n", dir, strerror(errno));
        return 2;
    }
    int rc = 0;
    for (int i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
        struct stat st;
        if (names[i]->d_name[0] != '.' && stat(path, &st) == 0 && S_ISREG(st.st_mode))
            rc |= replay_file(path);
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    LLVMFuzzerInitialize(&argc, &argv);
    int rc = 0, inputs = 0;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--") == 0 || (arg[0] == '-' && arg[1] != '\0' && strchr(arg, '=')))
            continue;
        inputs++;
        struct stat st;
        if (strcmp(arg, "-") == 0)
            rc |= replay_stream(stdin, "-");
        else if (stat(arg, &st) == 0 && S_ISDIR(st.st_mode))
            rc |= replay_dir(arg);
        else
            rc |= replay_file(arg);
    }
    if (inputs == 0)
        rc |= replay_stream(stdin, "-");
    fprintf(stderr, "%s: replayed %zu inputs, no violation\n", argv[0], replayed_count);
    return rc;
}
