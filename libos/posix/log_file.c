/* The engine's log file on POSIX systems (clrie/os/log_file.h): opened without following what
 * others may have planted, and checked on the very descriptor opened. */
#define _DEFAULT_SOURCE /* S_ISVTX, O_PATH */
#define _GNU_SOURCE     /* O_PATH */
#include "clrie/os/log_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Why a log file was refused: what the path turned out to be. */
static const char *refusal(mode_t mode)
{
    if (S_ISFIFO(mode))
        return "it is a FIFO, not a regular file or a character device";
    if (S_ISSOCK(mode))
        return "it is a socket, not a regular file or a character device";
    if (S_ISDIR(mode))
        return "it is a folder, not a regular file or a character device";
    if (S_ISBLK(mode))
        return "it is a block device, not a regular file or a character device";
    return "it is not a regular file or a character device";
}

/* Group or others may write to the folder: they can plant a link or a FIFO in it. */
static bool shared_folder(int dirfd)
{
    struct stat st;
    return fstat(dirfd, &st) != 0 || (st.st_mode & (S_IWGRP | S_IWOTH)) != 0;
}

/* The process's own stderr, whatever it is: /dev/stderr under a pipe or a socket is what the
 * log would write to anyway, so it is no hazard. */
static bool is_stderr(const struct stat *st)
{
    struct stat err;
    return fstat(STDERR_FILENO, &err) == 0 && err.st_dev == st->st_dev && err.st_ino == st->st_ino;
}

/* Opens name in the folder dirfd for appending without blocking, then checks what it opened
 * (fstat on the descriptor, so nothing can be swapped in between). Returns the descriptor, in
 * blocking mode again, or -1 with *why or *error set. */
static int open_in(int dirfd, const char *name, int nofollow, const char **why, int *error)
{
    int fd =
        openat(dirfd, name,
               O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | nofollow, 0644);
    struct stat st;
    if (fd < 0) {
        *error = errno;
        if (*error == ELOOP && nofollow) {
            *why = "it is a symbolic link in a folder that group or others can write to";
        } else if (*error == ENXIO || *error == EISDIR) {
            /* A FIFO with no reader (ENXIO), a socket, a folder: say which, for the line. */
            if (fstatat(dirfd, name, &st, nofollow ? AT_SYMLINK_NOFOLLOW : 0) == 0 &&
                !S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode) && !S_ISLNK(st.st_mode)) {
                if (*error == ENXIO && is_stderr(&st)) { /* a socket cannot be opened */
                    fd = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 0);
                    *error = fd < 0 ? errno : 0;
                    return fd;
                }
                *why = refusal(st.st_mode);
            }
        }
        return -1;
    }
    if (fstat(fd, &st) != 0) {
        *error = errno;
        close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode) && !is_stderr(&st)) {
        *error = 0;
        *why = refusal(st.st_mode);
        close(fd);
        return -1;
    }
    /* Ordinary writes block: a terminal that is busy must not lose lines. */
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0)
        fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    return fd;
}

/* Opens the file FileLogPath names: the file itself, or ProfilerLog_<pid>.txt in a folder.
 * Returns the descriptor or -1 with *why (a refusal) or *error (an errno) set. */
static int open_log_file(const char *path, const char **why, int *error)
{
    int fd = -1, dirfd = -1, folder = -1;
    char *copy = strdup(path);
    if (!copy) {
        *error = ENOMEM;
        return -1;
    }
    /* The folder that holds the last component, and that component (never with a '/'). */
    size_t len = strlen(copy);
    while (len > 1 && copy[len - 1] == '/')
        copy[--len] = '\0';
    char *slash = strrchr(copy, '/');
    const char *dir = ".", *base = copy;
    if (slash) {
        base = slash + 1;
        dir = slash == copy ? "/" : copy;
        *slash = '\0';
    }
    if (!*base)
        base = ".";

    dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (dirfd < 0) {
        *error = errno;
        goto out;
    }
    /* The user's own folders are the user's choice (/dev/stderr is a link); a link in a folder
     * others can write to may have been planted there. */
    int nofollow = shared_folder(dirfd) ? O_NOFOLLOW : 0;
    fd = open_in(dirfd, base, nofollow, why, error);
    if (fd >= 0 || *error != EISDIR)
        goto out;

    /* A folder: ProfilerLog_<pid>.txt in it, where only its owner can put things (or where,
     * being sticky, others cannot replace what is not theirs). */
    *why = NULL;
    folder = openat(dirfd, base, O_PATH | O_DIRECTORY | O_CLOEXEC | nofollow);
    struct stat st;
    if (folder < 0 || fstat(folder, &st) != 0) {
        *error = errno;
        goto out;
    }
    if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX)) {
        *why = "it is a folder that group or others can write to and that is not sticky";
        goto out;
    }
    char name[64];
    snprintf(name, sizeof(name), "ProfilerLog_%ld.txt", (long)getpid());
    fd = open_in(folder, name, O_NOFOLLOW, why, error);
    if (fd < 0 && *error == ELOOP)
        *why = "the ProfilerLog file in the folder is a symbolic link, which is never followed";
out:
    if (folder >= 0)
        close(folder);
    if (dirfd >= 0)
        close(dirfd);
    free(copy);
    return fd;
}

int clrie_os_log_file_open(const char *path, int *fd, const char **why)
{
    int error = 0;
    *why = NULL;
    *fd = open_log_file(path, why, &error);
    if (*fd >= 0)
        return 0;
    return error ? -error : -EPERM;
}

bool clrie_os_log_file_deleted(int fd)
{
    struct stat st;
    return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 0;
}

int clrie_os_log_file_replace(int fd, const char *path, const void *first, size_t len,
                              const char **why)
{
    int fresh = -1;
    int r = clrie_os_log_file_open(path, &fresh, why);
    if (r != 0)
        return r;
    r = clrie_os_write_all(fresh, first, len);
    /* One step, so that a concurrent write goes to the old file or to the new one. */
    if (r == 0)
        r = dup3(fresh, fd, O_CLOEXEC) < 0 ? -errno : 0;
    close(fresh);
    return r;
}

int clrie_os_line_file_open(const char *path, bool truncate, int *fd)
{
    *fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | (truncate ? O_TRUNC : 0), 0644);
    return *fd < 0 ? -errno : 0;
}

int clrie_os_write_all(int fd, const void *text, size_t len)
{
    const char *p = text;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -errno;
        if (n == 0)
            return -EIO;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

void clrie_os_close(int fd)
{
    close(fd);
}

void clrie_os_debug_output(const char *text, size_t len)
{
    (void)text, (void)len;
}
