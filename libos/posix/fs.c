/* Files and folders on POSIX systems (clrie/os/fs.h). */
#define _GNU_SOURCE /* realpath, asprintf */
#include "clrie/os/fs.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int clrie_os_is_separator(char c)
{
    return c == '/';
}

int clrie_os_path_is_absolute(const char *path)
{
    return path[0] == '/';
}

int clrie_os_path_absolute(const char *path, char **out)
{
    if (path[0] == '/') {
        *out = strdup(path);
        return *out ? 0 : -ENOMEM;
    }
    char *cwd = getcwd(NULL, 0);
    if (!cwd)
        return -errno;
    int n = asprintf(out, "%s/%s", cwd, path);
    free(cwd);
    return n < 0 ? -ENOMEM : 0;
}

int clrie_os_path_canonical(const char *path, char **out)
{
    char *resolved = realpath(path, NULL);
    if (!resolved)
        return -errno;
    *out = resolved;
    return 0;
}

int clrie_os_path_kind(const char *path, enum clrie_os_kind *kind)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return -errno;
    *kind = S_ISREG(st.st_mode)   ? CLRIE_OS_FILE
            : S_ISDIR(st.st_mode) ? CLRIE_OS_DIRECTORY
                                  : CLRIE_OS_OTHER;
    return 0;
}

struct clrie_os_dir {
    DIR *dir;
};

int clrie_os_dir_open(const char *path, struct clrie_os_dir **out)
{
    struct clrie_os_dir *d = malloc(sizeof(*d));
    if (!d)
        return -ENOMEM;
    d->dir = opendir(path);
    if (!d->dir) {
        int error = errno;
        free(d);
        return -error;
    }
    *out = d;
    return 0;
}

int clrie_os_dir_next(struct clrie_os_dir *dir, const char **name)
{
    for (;;) {
        errno = 0;
        struct dirent *entry = readdir(dir->dir);
        if (!entry)
            return errno ? -errno : 0;
        if (strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0) {
            *name = entry->d_name;
            return 1;
        }
    }
}

void clrie_os_dir_close(struct clrie_os_dir *dir)
{
    if (!dir)
        return;
    closedir(dir->dir);
    free(dir);
}
