/* The engine log on POSIX files: the log file is never a way to hang or hijack the process
 * (a FIFO, a socket, a folder, a block device refused; links and folders others can write to
 * refused; character devices and the process's own stderr taken), its descriptor is not
 * inherited, a file that fails takes the lines to stderr, and a deleted one is made again. */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include "clrie/os/log_file.h"
#include "clrie/os/thread.h"
#include "log.h"
#include "log_testing.h"
#include "support.h"

#define WRITERS 8

/* log_test_to, where a log that blocks on opening fails the test through SIGALRM instead of
 * hanging it. */
static char *log_to(const char *path, const char *level, int *fd_out)
{
    alarm(10);
    char *text = log_test_to(path, level, fd_out);
    alarm(0);
    return text;
}

static void a_log_file_is_not_inherited_and_opened_to_append(void **state)
{
    char *tree = test_tree_new();
    char *file = test_path(tree, "engine.log");
    char *env[] = {log_test_env_entry("MicrosoftInstrumentationEngine_FileLogPath", file), NULL};
    struct clrie_pm_log log;
    assert_int_equal(clrie_pm_log_init(&log, env), 0);
    assert_true(log.fd >= 0);
    assert_true(fcntl(log.fd, F_GETFD) & FD_CLOEXEC);  /* a child process gets no copy */
    assert_true(fcntl(log.fd, F_GETFL) & O_APPEND);    /* lines of other processes survive */
    assert_false(fcntl(log.fd, F_GETFL) & O_NONBLOCK); /* opened without blocking, not written */
    clrie_pm_log_finish(&log);
    free(env[0]);
    free(file);
    test_tree_free(tree);
}

static void a_fifo_is_refused_without_blocking(void **state)
{
    char *tree = test_tree_new();
    char *fifo = test_path(tree, "engine.log");
    assert_int_equal(mkfifo(fifo, 0644), 0);
    /* Nobody reading: opening for writing would block for ever. */
    int fd = 0;
    char *text = log_to(fifo, NULL, &fd);
    assert_int_equal(fd, -1);
    log_test_assert_refused(text, fifo, "it is a FIFO" NOT_A_FILE);
    free(text);
    /* Somebody reading: the open succeeds, and what it opened is refused all the same. */
    int reader = open(fifo, O_RDONLY | O_NONBLOCK);
    assert_true(reader >= 0);
    text = log_to(fifo, NULL, &fd);
    assert_int_equal(fd, -1);
    log_test_assert_refused(text, fifo, "it is a FIFO" NOT_A_FILE);
    char buf[16];
    assert_true(read(reader, buf, sizeof(buf)) <= 0); /* not a byte went into the FIFO */
    close(reader);
    free(text);
    free(fifo);
    test_tree_free(tree);
}

static void a_socket_a_folder_or_a_block_device_is_refused(void **state)
{
    char *tree = test_tree_new();
    char *sock_path = test_path(tree, "engine.sock");
    int sock = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    assert_true(strlen(sock_path) < sizeof(addr.sun_path));
    strcpy(addr.sun_path, sock_path);
    assert_int_equal(bind(sock, (struct sockaddr *)&addr, sizeof(addr)), 0);
    assert_int_equal(listen(sock, 1), 0);
    char *text = log_to(sock_path, NULL, NULL);
    log_test_assert_refused(text, sock_path, "it is a socket" NOT_A_FILE);
    free(text);
    close(sock);

    /* The file in a log folder is itself a folder. */
    char name[64];
    snprintf(name, sizeof(name), "logs/ProfilerLog_%ld.txt", (long)getpid());
    test_tree_mkdir(tree, name);
    char *logs = test_path(tree, "logs");
    text = log_to(logs, NULL, NULL);
    log_test_assert_refused(text, logs, "it is a folder" NOT_A_FILE);
    free(text);

    struct stat st;
    if (stat("/dev/loop0", &st) == 0 && S_ISBLK(st.st_mode)) {
        text = log_to("/dev/loop0", NULL, NULL);
        log_test_assert_refused(text, "/dev/loop0", "it is a block device" NOT_A_FILE);
        free(text);
    }
    free(logs);
    free(sock_path);
    test_tree_free(tree);
}

static void character_devices_are_log_files(void **state)
{
    int fd = 0;
    char *text = log_to("/dev/null", NULL, &fd);
    assert_true(fd >= 0);
    assert_string_equal(text, ""); /* everything went to /dev/null */
    free(text);
    /* /dev/stderr is a link (to /proc/self/fd/2) in a folder only root writes to: followed. */
    text = log_to("/dev/stderr", NULL, &fd);
    assert_true(fd >= 0);
    assert_int_equal(log_test_count(text, "]:after\n"), 1);
    assert_null(strstr(text, "cannot open"));
    free(text);
}

/* Under a service manager or a container, stderr is often a pipe or a socket: /dev/stderr is
 * then no FIFO or socket planted by anyone, but where the log would go anyway. */
static void dev_stderr_is_a_log_file_even_when_it_is_a_pipe_or_a_socket(void **state)
{
    for (int kind = 0; kind < 2; kind++) {
        int ends[2];
        assert_int_equal(kind ? socketpair(AF_UNIX, SOCK_STREAM, 0, ends) : pipe(ends), 0);
        int reader = ends[0], writer = ends[1];
        int saved = dup(STDERR_FILENO);
        dup2(writer, STDERR_FILENO);
        close(writer);
        char *env[] = {(char *)"MicrosoftInstrumentationEngine_FileLogPath=/dev/stderr", NULL};
        struct clrie_pm_log log;
        alarm(10);
        assert_int_equal(clrie_pm_log_init(&log, env), 0);
        alarm(0);
        int fd = log.fd;
        CLRIE_PM_LOG_ERROR(&log, "through %s", kind ? "a socket" : "a pipe");
        clrie_pm_log_finish(&log);
        dup2(saved, STDERR_FILENO);
        close(saved);
        if (kind)
            shutdown(reader, SHUT_WR);
        char text[512] = "";
        ssize_t n = read(reader, text, sizeof(text) - 1);
        close(reader);
        text[n > 0 ? n : 0] = '\0';
        assert_true(fd >= 0);
        assert_null(strstr(text, "cannot open"));
        assert_non_null(strstr(text, kind ? "]:through a socket\n" : "]:through a pipe\n"));
    }
}

static void a_link_in_a_folder_others_can_write_to_is_not_followed(void **state)
{
    char *tree = test_tree_new();
    test_tree_write(tree, "victim.txt", "precious\n", 9);
    char *victim = test_path(tree, "victim.txt");
    const unsigned modes[] = {0777, 01777, 0775};
    for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
        char folder[32], rel[64];
        snprintf(folder, sizeof(folder), "shared%zu", i);
        snprintf(rel, sizeof(rel), "%s/engine.log", folder);
        test_tree_symlink(tree, rel, victim);
        test_tree_chmod(tree, folder, modes[i]);
        char *link = test_path(tree, rel);
        char *text = log_to(link, NULL, NULL);
        log_test_assert_refused(
            text, link, "it is a symbolic link in a folder that group or others can write to");
        free(text);
        free(link);
    }
    char *kept = test_read_file(victim, NULL);
    assert_string_equal(kept, "precious\n");
    free(kept);

    /* In a folder only its owner writes to, a link is the owner's choice and is followed. */
    test_tree_symlink(tree, "private/engine.log", victim);
    char *link = test_path(tree, "private/engine.log");
    char *text = log_to(link, NULL, NULL);
    assert_string_equal(text, "");
    kept = test_read_file(victim, NULL);
    assert_int_equal(strncmp(kept, "precious\nLogError[", 18), 0);
    free(kept);
    free(text);
    free(link);
    free(victim);
    test_tree_free(tree);
}

static void a_log_folder_others_can_write_to_is_refused_unless_sticky(void **state)
{
    char *tree = test_tree_new();
    test_tree_mkdir(tree, "open");
    test_tree_chmod(tree, "open", 0777);
    test_tree_mkdir(tree, "group");
    test_tree_chmod(tree, "group", 0775);
    const char *refused[] = {"open", "group"};
    for (size_t i = 0; i < 2; i++) {
        char *folder = test_path(tree, refused[i]);
        char *text = log_to(folder, NULL, NULL);
        log_test_assert_refused(
            text, folder,
            "it is a folder that group or others can write to and that is not sticky");
        free(text);
        free(folder);
    }

    /* Sticky, as /tmp: the file is made there, but a link planted in its place is refused. */
    test_tree_mkdir(tree, "sticky");
    test_tree_chmod(tree, "sticky", 01777);
    char *sticky = test_path(tree, "sticky");
    char *text = log_to(sticky, NULL, NULL);
    assert_string_equal(text, "");
    free(text);
    char rel[128];
    snprintf(rel, sizeof(rel), "sticky/ProfilerLog_%ld.txt", (long)getpid());
    char *file = test_path(tree, rel);
    text = test_read_file(file, NULL);
    assert_non_null(strstr(text, "]:after\n"));
    free(text);
    unlink(file);
    test_tree_write(tree, "victim.txt", "precious\n", 9);
    char *victim = test_path(tree, "victim.txt");
    assert_int_equal(symlink(victim, file), 0);
    text = log_to(sticky, NULL, NULL);
    log_test_assert_refused(
        text, sticky,
        "the ProfilerLog file in the folder is a symbolic link, which is never followed");
    free(text);
    char *kept = test_read_file(victim, NULL);
    assert_string_equal(kept, "precious\n");
    free(kept);
    free(victim);
    free(file);
    free(sticky);
    test_tree_free(tree);
}

static void a_failing_write_falls_back_to_stderr_once_and_says_so(void **state)
{
    char *env[] = {log_test_env_entry("MicrosoftInstrumentationEngine_FileLogPath", "/dev/full"),
                   log_test_env_entry("MicrosoftInstrumentationEngine_LogLevel", "Messages"), NULL};
    struct test_stderr *c = test_stderr_capture();
    struct clrie_pm_log log;
    assert_int_equal(clrie_pm_log_init(&log, env), 0);
    assert_true(log.fd >= 0); /* a character device: opened */
    CLRIE_PM_LOG_ERROR(&log, "first");
    CLRIE_PM_LOG_MESSAGE(&log, "second");
    CLRIE_PM_LOG_ERROR(&log, "third");
    clrie_pm_log_finish(&log);
    char *text = test_stderr_release(c);
    assert_int_equal(log_test_count(text,
                                    "writing to the log file '/dev/full' failed (No space left on "
                                    "device); logging to stderr from now on\n"),
                     1);
    assert_int_equal(log_test_count(text, "\n"), 4);
    /* The line that failed is not lost: it follows the explanation. */
    char *said = strstr(text, "failed (No space");
    char *first = strstr(text, "]:first\n");
    assert_true(said && first && said < first);
    assert_non_null(strstr(first, "]:second\n"));
    assert_non_null(strstr(first, "]:third\n"));
    free(text);
    for (char **e = env; *e; e++)
        free(*e);
}

static void write_to_full(void *arg)
{
    struct clrie_pm_log *log = arg;
    for (int i = 0; i < 50; i++)
        CLRIE_PM_LOG_ERROR(log, "line %d", i);
}

static void concurrent_failing_writes_say_so_once(void **state)
{
    char *env[] = {log_test_env_entry("MicrosoftInstrumentationEngine_FileLogPath", "/dev/full"),
                   NULL};
    struct test_stderr *c = test_stderr_capture();
    struct clrie_pm_log log;
    assert_int_equal(clrie_pm_log_init(&log, env), 0);
    struct clrie_os_thread threads[WRITERS];
    for (int i = 0; i < WRITERS; i++)
        clrie_os_thread_start(&threads[i], write_to_full, &log);
    for (int i = 0; i < WRITERS; i++)
        clrie_os_thread_join(&threads[i]);
    clrie_pm_log_finish(&log);
    char *text = test_stderr_release(c);
    assert_int_equal(log_test_count(text, "writing to the log file '/dev/full' failed"), 1);
    assert_int_equal(log_test_count(text, "\n"), WRITERS * 50 + 1);
    free(text);
    free(env[0]);
}

static void write_after(void *arg)
{
    struct clrie_pm_log *log = arg;
    for (int i = 0; i < 50; i++)
        CLRIE_PM_LOG_MESSAGE(log, "after %d", i);
}

static void a_deleted_log_file_is_made_again_and_says_so_at_its_top(void **state)
{
    char *tree = test_tree_new();
    char *file = test_path(tree, "engine.log");
    char name[64];
    snprintf(name, sizeof(name), "ProfilerLog_%ld.txt", (long)getpid());
    char *in_folder = test_path(tree, name);
    /* The file named, and the one made in a folder named. */
    const char *paths[] = {file, tree}, *files[] = {file, in_folder};
    for (int p = 0; p < 2; p++) {
        char *env[] = {log_test_env_entry("MicrosoftInstrumentationEngine_FileLogPath", paths[p]),
                       log_test_env_entry("MicrosoftInstrumentationEngine_LogLevel", "Messages"),
                       NULL};
        struct test_stderr *c = test_stderr_capture();
        struct clrie_pm_log log;
        assert_int_equal(clrie_pm_log_init(&log, env), 0);
        CLRIE_PM_LOG_MESSAGE(&log, "before");
        assert_int_equal(unlink(files[p]), 0);
        struct clrie_os_thread threads[WRITERS];
        for (int i = 0; i < WRITERS; i++)
            clrie_os_thread_start(&threads[i], write_after, &log);
        for (int i = 0; i < WRITERS; i++)
            clrie_os_thread_join(&threads[i]);
        assert_false(clrie_os_log_file_deleted(log.fd));
        clrie_pm_log_finish(&log);
        char *err = test_stderr_release(c);
        assert_string_equal(err, ""); /* the app's stderr stays as bare */
        free(err);

        char *text = test_read_file(files[p], NULL);
        assert_non_null(text);
        char said[512];
        snprintf(said, sizeof(said),
                 "the log file '%s' was deleted; this is a new one at the same path\n",
                 paths[p]);
        assert_int_equal(log_test_count(text, said), 1);
        assert_true(strstr(text, said) < strstr(text, "]:after "));
        assert_null(strstr(text, "]:before"));
        assert_int_equal(log_test_count(text, "]:after "), WRITERS * 50);
        assert_int_equal(log_test_count(text, "\n"), WRITERS * 50 + 1);
        free(text);
        for (char **e = env; *e; e++)
            free(*e);
    }
    free(in_folder);
    free(file);
    test_tree_free(tree);
}

static void a_deleted_log_file_that_cannot_be_made_again_takes_the_lines_to_stderr(void **state)
{
    char *tree = test_tree_new();
    char *folder = test_path(tree, "logs");
    assert_int_equal(mkdir(folder, 0755), 0);
    char *file = test_path(tree, "logs/engine.log");
    char *env[] = {log_test_env_entry("MicrosoftInstrumentationEngine_FileLogPath", file), NULL};
    struct test_stderr *c = test_stderr_capture();
    struct clrie_pm_log log;
    assert_int_equal(clrie_pm_log_init(&log, env), 0);
    CLRIE_PM_LOG_ERROR(&log, "before");
    /* Its folder gone as well (modes would not stop root from making it again). */
    assert_int_equal(unlink(file), 0);
    assert_int_equal(rmdir(folder), 0);
    CLRIE_PM_LOG_ERROR(&log, "after");
    CLRIE_PM_LOG_ERROR(&log, "later");
    clrie_pm_log_finish(&log);
    char *text = test_stderr_release(c);
    char said[512];
    snprintf(said, sizeof(said),
             "the log file '%s' was deleted and cannot be made again (No such file or "
             "directory); logging to stderr from now on\n",
             file);
    assert_int_equal(log_test_count(text, said), 1);
    assert_true(strstr(text, said) < strstr(text, "]:after\n"));
    assert_non_null(strstr(text, "]:later\n"));
    assert_null(strstr(text, "]:before"));
    free(text);
    free(env[0]);
    free(file);
    free(folder);
    test_tree_free(tree);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_log_file_is_not_inherited_and_opened_to_append),
        cmocka_unit_test(a_fifo_is_refused_without_blocking),
        cmocka_unit_test(a_socket_a_folder_or_a_block_device_is_refused),
        cmocka_unit_test(character_devices_are_log_files),
        cmocka_unit_test(dev_stderr_is_a_log_file_even_when_it_is_a_pipe_or_a_socket),
        cmocka_unit_test(a_link_in_a_folder_others_can_write_to_is_not_followed),
        cmocka_unit_test(a_log_folder_others_can_write_to_is_refused_unless_sticky),
        cmocka_unit_test(a_failing_write_falls_back_to_stderr_once_and_says_so),
        cmocka_unit_test(concurrent_failing_writes_say_so_once),
        cmocka_unit_test(a_deleted_log_file_is_made_again_and_says_so_at_its_top),
        cmocka_unit_test(a_deleted_log_file_that_cannot_be_made_again_takes_the_lines_to_stderr),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
