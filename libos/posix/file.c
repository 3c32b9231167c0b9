/* Reading files on POSIX systems (clrie/os/file.h). */
#define _DEFAULT_SOURCE /* readlink, realpath, pread */
#include "clrie/os/file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct clrie_os_file {
    int fd;
    int owned;        /* opened here, closed by clrie_os_file_close */
    const char *path; /* what it was opened as (NULL: wrapped), kept for clrie_os_file_path */
    char storage[];
};

static int make(int fd, int owned, const char *path, struct clrie_os_file **out)
{
    size_t len = path ? strlen(path) + 1 : 0;
    struct clrie_os_file *f = malloc(sizeof(*f) + len);
    if (!f)
        return -ENOMEM;
    f->fd = fd;
    f->owned = owned;
    f->path = path ? memcpy(f->storage, path, len) : NULL;
    *out = f;
    return 0;
}

int clrie_os_file_open(const char *path, unsigned flags, struct clrie_os_file **out)
{
    int mode = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
    if (flags & CLRIE_OS_OPEN_NO_FOLLOW)
        mode |= O_NOFOLLOW;
    int fd = open(path, mode);
    if (fd < 0)
        return -errno;
    int r = make(fd, 1, path, out);
    if (r != 0)
        close(fd);
    return r;
}

int clrie_os_file_wrap(int descriptor, struct clrie_os_file **out)
{
    if (descriptor < 0)
        return -EBADF;
    return make(descriptor, 0, NULL, out);
}

void clrie_os_file_close(struct clrie_os_file *file)
{
    if (!file)
        return;
    if (file->owned)
        close(file->fd);
    free(file);
}

int clrie_os_file_info(struct clrie_os_file *file, struct clrie_os_file_info *info)
{
    struct stat st;
    if (fstat(file->fd, &st) != 0)
        return -errno;
    info->kind = S_ISREG(st.st_mode)   ? CLRIE_OS_FILE
                 : S_ISDIR(st.st_mode) ? CLRIE_OS_DIRECTORY
                                       : CLRIE_OS_OTHER;
    info->size = st.st_size > 0 ? (uint64_t)st.st_size : 0;
    return 0;
}

int clrie_os_file_read(struct clrie_os_file *file, void *buf, size_t len, size_t *got)
{
    for (;;) {
        ssize_t n = read(file->fd, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -errno;
        *got = (size_t)n;
        return 0;
    }
}

int clrie_os_file_read_at(struct clrie_os_file *file, uint64_t offset, void *buf, size_t len,
                          size_t *got)
{
    size_t done = 0;
    while (done < len) {
        if (offset + done > (uint64_t)INT64_MAX)
            break;
        ssize_t n = pread(file->fd, (char *)buf + done, len - done, (off_t)(offset + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -errno;
        if (n == 0)
            break;
        done += (size_t)n;
    }
    *got = done;
    return 0;
}

int clrie_os_file_path(struct clrie_os_file *file, char **out)
{
    /* The kernel's name of the open file; where /proc is not mounted, the path it was opened
     * as, resolved. */
    char link[64], target[PATH_MAX];
    snprintf(link, sizeof(link), "/proc/self/fd/%d", file->fd);
    ssize_t n = readlink(link, target, sizeof(target) - 1);
    if (n > 0 && target[0] == '/') {
        target[n] = '\0';
        char *copy = strdup(target);
        if (!copy)
            return -ENOMEM;
        *out = copy;
        return 0;
    }
    if (!file->path)
        return -ENOENT;
    char *resolved = realpath(file->path, NULL);
    if (!resolved)
        return -errno;
    *out = resolved;
    return 0;
}

intptr_t clrie_os_file_native(const struct clrie_os_file *file)
{
    return file->fd;
}
