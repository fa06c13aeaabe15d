/* Shared by the tests that read what the mock or cushim wrote on stderr. Include after
 * cmocka.h. */
#ifndef CUSHIM_TEST_STDERR_OF_H
#define CUSHIM_TEST_STDERR_OF_H

#include <stdio.h>
#include <unistd.h>

/* Runs fn with stderr going to a file, and returns what it wrote (static storage). */
static inline const char *stderr_of(void (*fn)(void)) {
    static char text[4096];
    fflush(stderr);
    FILE *tmp = tmpfile();
    assert_non_null(tmp);
    int saved = dup(2);
    assert_true(saved >= 0);
    assert_true(dup2(fileno(tmp), 2) >= 0);
    fn();
    fflush(stderr);
    assert_true(dup2(saved, 2) >= 0);
    close(saved);
    rewind(tmp);
    size_t n = fread(text, 1, sizeof text - 1, tmp);
    text[n] = '\0';
    fclose(tmp);
    return text;
}

#endif
