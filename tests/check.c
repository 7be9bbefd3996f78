#include "check.h"

int check_failures;

int check_run(const test_case *tests, size_t count)
{
    int failed_tests = 0;
    for (size_t i = 0; i < count; i++) {
        int before = check_failures;
        tests[i].fn();
        bool ok = check_failures == before;
        printf("%s %s\n", ok ? "ok  " : "FAIL", tests[i].name);
        failed_tests += !ok;
    }
    printf("%zu passed, %d failed\n", count - (size_t)failed_tests, failed_tests);
    return failed_tests ? 1 : 0;
}
