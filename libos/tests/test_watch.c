/* clrie/os/watch.h on real folders: a quiet folder lets the wait run out, a file made or
 * written in it ends the wait, a stop from another thread ends a wait without a deadline and
 * every later one, and what is not a folder is refused. The folder's name is outside ASCII. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "clrie/os/thread.h"
#include "clrie/os/watch.h"
#include "support.h"

/* "ü-ñ-中" in UTF-8: outside ASCII, and beyond Latin-1. */
#define WIDE_NAME "\xc3\xbc-\xc3\xb1-\xe4\xb8\xad"

/* How long a test waits for what must happen before it calls it missing. */
#define PATIENCE_MS 10000

static void changes_in_the_folder_end_the_wait(void **state)
{
    (void)state;
    char *root = test_tree_new();
    test_tree_mkdir(root, WIDE_NAME);
    char *folder = test_path(root, WIDE_NAME);
    struct clrie_os_watch *watch = NULL;
    assert_int_equal(clrie_os_watch_open(folder, &watch), 0);

    assert_int_equal(clrie_os_watch_wait(watch, 50), 0); /* nothing happened */
    test_tree_write(root, WIDE_NAME "/points.xml", "<a/>", 4);
    assert_int_equal(clrie_os_watch_wait(watch, PATIENCE_MS), 1);
    /* The changes of one write may come as one answer or as several: drain them. */
    while (clrie_os_watch_wait(watch, 200) == 1) {
    }
    test_tree_write(root, WIDE_NAME "/points.xml", "<b/>", 4); /* written again */
    assert_int_equal(clrie_os_watch_wait(watch, PATIENCE_MS), 1);

    clrie_os_watch_close(watch);
    free(folder);
    test_tree_free(root);
}

struct waiter {
    struct clrie_os_watch *watch;
    atomic_int result;
};

static void wait_forever(void *arg)
{
    struct waiter *w = arg;
    atomic_store(&w->result, clrie_os_watch_wait(w->watch, CLRIE_OS_WATCH_FOREVER));
}

static void a_stop_ends_a_wait_without_deadline(void **state)
{
    (void)state;
    char *root = test_tree_new();
    struct clrie_os_watch *watch = NULL;
    assert_int_equal(clrie_os_watch_open(root, &watch), 0);
    struct waiter w = {.watch = watch, .result = 99};
    struct clrie_os_thread thread;
    assert_int_equal(clrie_os_thread_start(&thread, wait_forever, &w), 0);
    clrie_os_sleep_ms(100); /* most likely waiting by now; a stop before the wait works too */
    clrie_os_watch_stop(watch);
    clrie_os_thread_join(&thread);
    assert_int_equal(atomic_load(&w.result), -ECANCELED);
    assert_int_equal(clrie_os_watch_wait(watch, 10), -ECANCELED);
    clrie_os_watch_close(watch);
    test_tree_free(root);
}

static void only_a_folder_is_watched(void **state)
{
    (void)state;
    char *root = test_tree_new();
    test_tree_write(root, "file", "x", 1);
    char *file = test_path(root, "file");
    char *missing = test_path(root, "missing");
    struct clrie_os_watch *watch = NULL;
    assert_int_equal(clrie_os_watch_open(missing, &watch), -ENOENT);
    assert_int_equal(clrie_os_watch_open(file, &watch), -ENOTDIR);
    assert_null(watch);
    clrie_os_watch_close(NULL);
    free(file);
    free(missing);
    test_tree_free(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(changes_in_the_folder_end_the_wait),
        cmocka_unit_test(a_stop_ends_a_wait_without_deadline),
        cmocka_unit_test(only_a_folder_is_watched),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
