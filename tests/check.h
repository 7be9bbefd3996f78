/* A tiny test harness: checks that print both operands and keep going,
 * and a main that runs the listed tests and exits non-zero on any failure. */
#ifndef QUIETPOLL_TESTS_CHECK_H
#define QUIETPOLL_TESTS_CHECK_H

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

extern int check_failures;

#define CHECK(cond)                                                                        \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond);       \
            check_failures++;                                                              \
        }                                                                                  \
    } while (0)

#define CHECK_EQ_U(a, b)                                                                   \
    do {                                                                                   \
        uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);                                   \
        if (a_ != b_) {                                                                    \
            fprintf(stderr, "%s:%d: %s == %s failed: %" PRIu64 " != %" PRIu64 "\n",        \
                    __FILE__, __LINE__, #a, #b, a_, b_);                                   \
            check_failures++;                                                              \
        }                                                                                  \
    } while (0)

#define CHECK_EQ_I(a, b)                                                                   \
    do {                                                                                   \
        int64_t a_ = (int64_t)(a), b_ = (int64_t)(b);                                      \
        if (a_ != b_) {                                                                    \
            fprintf(stderr, "%s:%d: %s == %s failed: %" PRId64 " != %" PRId64 "\n",        \
                    __FILE__, __LINE__, #a, #b, a_, b_);                                   \
            check_failures++;                                                              \
        }                                                                                  \
    } while (0)

#define CHECK_STR(a, b)                                                                    \
    do {                                                                                   \
        const char *a_ = (a), *b_ = (b);                                                   \
        if (strcmp(a_, b_) != 0) {                                                         \
            fprintf(stderr, "%s:%d: %s == %s failed: \"%s\" != \"%s\"\n", __FILE__,        \
                    __LINE__, #a, #b, a_, b_);                                             \
            check_failures++;                                                              \
        }                                                                                  \
    } while (0)

typedef struct test_case {
    const char *name;
    void (*fn)(void);
} test_case;

#define TEST(fn) {#fn, fn}

int check_run(const test_case *tests, size_t count);

#endif
