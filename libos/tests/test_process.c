/* clrie/os/process.h: the process's id, program and arguments (the test is started with the
 * arguments "first argument" and a UTF-8 one), and its clocks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clrie/os/fs.h"
#include "clrie/os/process.h"

static void who_the_process_is(void **state)
{
    (void)state;
    assert_true(clrie_os_process_id() > 0);
    char *program = NULL;
    assert_int_equal(clrie_os_process_program(&program), 0);
    assert_true(clrie_os_path_is_absolute(program));
    assert_non_null(strstr(program, "test-os-process"));
    free(program);

    char **argv = NULL;
    size_t argc = 0;
    assert_int_equal(clrie_os_process_arguments(&argv, &argc), 0);
    assert_true(argc >= 3);
    assert_null(argv[argc]);
    assert_string_equal(argv[argc - 2], "first argument");
    assert_string_equal(argv[argc - 1], "\xc3\xbc-\xe4\xb8\xad");
    clrie_os_process_arguments_free(argv);
}

static void clocks(void **state)
{
    (void)state;
    uint64_t start = clrie_os_monotonic_ns(), cpu = clrie_os_thread_cpu_ns();
    volatile uint64_t sink = 0;
    for (uint64_t i = 0; i < 50000000u; i++)
        sink += i;
    uint64_t elapsed = clrie_os_monotonic_ns() - start, used = clrie_os_thread_cpu_ns() - cpu;
    assert_true(sink > 0); /* the loop ran */
    assert_true(elapsed > 0 && elapsed < UINT64_C(120000000000));
    assert_true(used > 0);
    int64_t seconds = 0;
    uint32_t ns = 0;
    clrie_os_wall_clock(&seconds, &ns);
    assert_true(seconds > INT64_C(1767225600)); /* after 2026-01-01 */
    assert_true(ns < 1000000000u);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(who_the_process_is),
        cmocka_unit_test(clocks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
