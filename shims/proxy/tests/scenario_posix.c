/* The proxy tests' part on POSIX (scenario.h): a scenario plays in a fork of the test whose
 * environment is emptied and refilled, its outcome coming back through a pipe. */
#define _GNU_SOURCE /* clearenv */
#include "scenario.h"

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "support.h"

const struct system_facts system_facts = {
    .not_a_module = "not a complete ELF shared object",
    .full_device = "/dev/full",
    .names_take_control_characters = true,
/* musl's dlclose never unmaps a library; glibc's does with the last reference. */
#if defined(__GLIBC__)
    .unload_unmaps = true,
#else
    .unload_unmaps = false,
#endif
};

/* The child: never returns. */
static void child(const struct scenario *sc, int result_fd, const char *log_path)
{
    alarm(60); /* a scenario that hangs (in open(), on a lock) fails instead of stalling */
    int log_fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (log_fd < 0 || dup2(log_fd, STDERR_FILENO) < 0)
        _exit(10);
    clearenv();
    for (size_t i = 0; sc->env[i]; i++)
        putenv((char *)sc->env[i]);
    if (sc->ordinary_user && !test_drop_root())
        _exit(11);
    struct outcome o = {0};
    int status = scenario_play(sc, &o);
    if (status != 0)
        _exit(status);
    if (write(result_fd, &o, sizeof(o)) != (ssize_t)sizeof(o))
        _exit(14);
    _exit(0);
}

struct outcome scenario_run(const char *tree, const struct scenario *sc)
{
    char *log_path = test_path(tree, "child-stderr.log");
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        child(sc, fds[1], log_path);
    }
    close(fds[1]);
    struct outcome o;
    ssize_t got = read(fds[0], &o, sizeof(o));
    close(fds[0]);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    o.log = test_read_file(log_path, NULL);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || got != (ssize_t)sizeof(o))
        fail_msg("scenario child failed (status %d); its stderr:\n%s", status,
                 o.log ? o.log : "(none)");
    unlink(log_path);
    free(log_path);
    return o;
}

int scenario_child_main(void)
{
    return -1;
}

void log_pipe_make(const char *tree, struct log_pipe *pipe)
{
    pipe->path = test_path(tree, "fifo.log");
    pipe->refusal = "it is a FIFO, not a regular file or a character device";
    pipe->server = -1;
    assert_int_equal(mkfifo(pipe->path, 0644), 0);
}

void log_pipe_free(struct log_pipe *pipe)
{
    free(pipe->path);
}
