/* The assertion the C tests share: a failed condition is printed with its
 * file and line and counted in `failures` (each test returns non-zero then). */
#ifndef DV_TESTS_EXPECT_H
#define DV_TESTS_EXPECT_H

#include <stdio.h>

static int failures = 0;

#define EXPECT(cond)                                                            \
    do {                                                                        \
        if (!(cond)) {                                                          \
            fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond); \
            ++failures;                                                         \
        }                                                                       \
    } while (0)

#endif
