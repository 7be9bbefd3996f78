/* Replays reproducers/MANIFEST.tsv both ways: each file makes its variant
 * fire exactly the expected property, and the machine's ref passes it.
 *   test_reproducers ROOT    (ROOT holds reproducers/) */
#include <errno.h>
#include <stdlib.h>

#include "check.h"
#include "helpers.h"
#include "quietpoll/oracle.h"
#include "../src/machines/builtin.h"

static const char *root;
static qp_run *run;

static bool read_file(const char *path, uint8_t *buf, size_t *size)
{
    FILE *in = fopen(path, "rb");
    if (in == NULL)
        return false;
    *size = fread(buf, 1, QP_TAPE_MAX_BYTES, in);
    fclose(in);
    return true;
}

static const char *verdict(void)
{
    return qp_run_violated(run) ? qp_property_name((unsigned)run->oracle.violation.property)
                                : "pass";
}

static void replay_row(int line_no, char *fields[5])
{
    char path[4096];
    snprintf(path, sizeof path, "%s/reproducers/%s", root, fields[0]);
    static uint8_t buf[QP_TAPE_MAX_BYTES];
    size_t size;
    if (!read_file(path, buf, &size)) {
        fprintf(stderr, "MANIFEST.tsv:%d: cannot read %s: %s\n", line_no, path, strerror(errno));
        check_failures++;
        return;
    }
    const qp_machine *m = qp_machine_find(fields[1]);
    const char *missing = qp_machine_missing(fields[1]);
    if (m == NULL && missing != NULL) {
        printf("%-40s skipped: %s\n", fields[0], missing);
        return;
    }
    long v = m ? qp_variant_find(m, fields[2]) : -1;
    if (v < 0) {
        fprintf(stderr, "MANIFEST.tsv:%d: unknown machine or variant %s/%s\n", line_no, fields[1],
                fields[2]);
        check_failures++;
        return;
    }
    /* a finding of a variant's set fires once the rest of its set is known,
       as the engines' set search and the fuzz targets take them */
    int property = qp_property_parse(fields[3]);
    uint32_t set = qp_variant_expected(&m->variants[v]);
    run->oracle.known = property >= 0 ? set & ~(UINT32_C(1) << property) : 0;
    qp_run_bytes(run, m, (size_t)v, buf, size);
    run->oracle.known = 0;
    if (strcmp(verdict(), fields[3]) != 0) {
        fprintf(stderr, "MANIFEST.tsv:%d: %s under %s/%s gave %s, expected %s\n", line_no, fields[0],
                fields[1], fields[2], verdict(), fields[3]);
        fprintf(stderr, "  replay: QP_VARIANT=%s build/fuzz_%s %s\n", fields[2], fields[1], path);
        check_failures++;
    }
    for (size_t ref = 0; ref < m->variants_count; ref++) {
        if (!qp_variant_is_ref(&m->variants[ref]))
            continue;
        qp_run_bytes(run, m, ref, buf, size);
        if (qp_run_violated(run)) {
            fprintf(stderr, "MANIFEST.tsv:%d: %s fails the reference %s/%s: %s\n", line_no,
                    fields[0], fields[1], m->variants[ref].name, verdict());
            check_failures++;
        }
    }
    printf("%-40s %s/%s -> %s, refs -> pass\n", fields[0], fields[1], fields[2], fields[3]);
}

static void test_manifest(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/reproducers/MANIFEST.tsv", root);
    FILE *in = fopen(path, "r");
    if (in == NULL) {
        fprintf(stderr, "cannot open %s: %s\n", path, strerror(errno));
        check_failures++;
        return;
    }
    char line[1024];
    int line_no = 0, rows = 0, version = -1;
    while (fgets(line, sizeof line, in)) {
        line_no++;
        line[strcspn(line, "\r\n")] = '\0';
        if (sscanf(line, "# tape-version: %d", &version) == 1 || line[0] == '#' || !line[0])
            continue;
        char *fields[5], *save = NULL;
        int n = 0;
        for (char *tok = strtok_r(line, "\t", &save); tok && n < 5; tok = strtok_r(NULL, "\t", &save))
            fields[n++] = tok;
        if (n < 5) {
            fprintf(stderr, "MANIFEST.tsv:%d: want 5 tab-separated fields\n", line_no);
            check_failures++;
            continue;
        }
        if (strcmp(fields[0], "file") == 0)
            continue; /* the header row */
        replay_row(line_no, fields);
        rows++;
    }
    fclose(in);
    if (version != QP_TAPE_VERSION) {
        fprintf(stderr,
                "MANIFEST.tsv says tape-version %d, the decoder is version %d: regenerate or "
                "migrate the reproducers with the decoder change\n",
                version, QP_TAPE_VERSION);
        check_failures++;
    }
    CHECK(rows > 0);
}

int main(int argc, char **argv)
{
    qp_registry_use(&qp_builtin_registry);
    if (argc != 2) {
        fprintf(stderr, "usage: test_reproducers ROOT\n");
        return 2;
    }
    root = argv[1];
    run = qp_run_new();
    static const test_case tests[] = {TEST(test_manifest)};
    int rc = check_run(tests, 1);
    qp_run_free(run);
    return rc;
}
