/* The target process on POSIX: /proc/<pid> says whether it runs and which user it runs as; the
 * engine's log file is given to that user (fchown, which only root may do for another user). */
#define _GNU_SOURCE
#include "target.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

int attach_target_exists(unsigned long pid)
{
    char proc[64];
    struct stat st;
    snprintf(proc, sizeof(proc), "/proc/%lu", pid);
    return stat(proc, &st) == 0 ? 0 : -ESRCH;
}

int attach_target_log_create(unsigned long pid, char **out)
{
    char proc[64];
    struct stat st;
    snprintf(proc, sizeof(proc), "/proc/%lu", pid);
    if (stat(proc, &st) != 0)
        return -ESRCH;
    const char *dir = getenv("TMPDIR");
    char *path = NULL;
    if (asprintf(&path, "%s/clrie-attach-%lu-XXXXXX.log", dir && *dir ? dir : "/tmp", pid) < 0)
        return -ENOMEM;
    int fd = mkstemps(path, 4);
    if (fd < 0) {
        int err = errno;
        free(path);
        return -err;
    }
    if (st.st_uid != geteuid() && fchown(fd, st.st_uid, (gid_t)-1) != 0) {
        int err = errno;
        close(fd);
        unlink(path);
        free(path);
        return -err;
    }
    close(fd);
    *out = path;
    return 0;
}

void attach_target_log_remove(const char *path)
{
    if (path)
        unlink(path);
}
