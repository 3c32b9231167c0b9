/* The trust rule: who may have changed a file that decides what code runs in the process.
 * One implementation for every such file: configuration files (files.c), the Modules they
 * name (paths.c), and, through clrie_config_module_check (module.c), the plugins added
 * through the API, the raw profiler hook and the engine the proxy loads. */
#define _DEFAULT_SOURCE /* S_ISVTX */
#include "config_private.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void clrie_config__why(char *why, size_t why_len, const char *fmt, ...)
{
    if (!why || why_len == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, why_len, fmt, ap);
    va_end(ap);
}

static bool owned_by_us_or_root(uid_t uid)
{
    return uid == 0 || uid == geteuid();
}

/* The rule for one folder above a file owned by file_uid. */
static int check_folder(const char *folder, uid_t file_uid, char *why, size_t why_len)
{
    struct stat st;
    if (stat(folder, &st) != 0) {
        int err = errno;
        char buf[128];
        clrie_config__why(why, why_len, "the folder '%s' cannot be examined: %s", folder,
                          clrie_config__strerror(err, buf, sizeof(buf)));
        return -err;
    }
    if (!owned_by_us_or_root(st.st_uid)) {
        clrie_config__why(why, why_len,
                          "the folder '%s' is owned by another user than the current one or "
                          "root (owner %u, mode %04o)",
                          folder, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
        return -EPERM;
    }
    if (!(st.st_mode & (S_IWGRP | S_IWOTH)))
        return 0;
    if (!(st.st_mode & S_ISVTX)) {
        clrie_config__why(why, why_len,
                          "the folder '%s' is writable by group or others and not sticky "
                          "(owner %u, mode %04o)",
                          folder, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
        return -EACCES;
    }
    if (!owned_by_us_or_root(file_uid)) {
        clrie_config__why(why, why_len,
                          "the folder '%s' is writable by others (sticky, mode %04o) and the "
                          "file is owned by another user than the current one or root "
                          "(owner %u)",
                          folder, (unsigned)(st.st_mode & 07777), (unsigned)file_uid);
        return -EACCES;
    }
    return 0;
}

int clrie_config__trust_stat(const struct stat *st, const char *canonical_path, char *why,
                             size_t why_len)
{
    if (!canonical_path || canonical_path[0] != '/')
        return -EINVAL;
    if (st->st_mode & (S_IWGRP | S_IWOTH)) {
        clrie_config__why(why, why_len,
                          "the file is writable by group or others (owner %u, mode %04o)",
                          (unsigned)st->st_uid, (unsigned)(st->st_mode & 07777));
        return -EACCES;
    }
    if (!owned_by_us_or_root(st->st_uid)) {
        clrie_config__why(why, why_len,
                          "the file is owned by another user than the current one or root "
                          "(owner %u, mode %04o)",
                          (unsigned)st->st_uid, (unsigned)(st->st_mode & 07777));
        return -EPERM;
    }
    size_t len = strlen(canonical_path);
    if (len >= PATH_MAX)
        return -ENAMETOOLONG;
    char folder[PATH_MAX];
    memcpy(folder, canonical_path, len + 1);
    for (;;) {
        char *slash = strrchr(folder, '/');
        if (!slash)
            return 0;
        if (slash == folder) {
            /* the root folder itself, after every folder below it */
            if (folder[1] == '\0')
                return 0;
            folder[1] = '\0';
        } else {
            *slash = '\0';
        }
        int r = check_folder(folder, st->st_uid, why, why_len);
        if (r != 0)
            return r;
    }
}

int clrie_config__fstat(int fd, struct stat *st, char *why, size_t why_len)
{
    if (fstat(fd, st) == 0)
        return 0;
    int err = errno;
    char buf[128];
    clrie_config__why(why, why_len, "cannot examine the file: %s",
                      clrie_config__strerror(err, buf, sizeof(buf)));
    return -err;
}

int clrie_config_trust_check(int fd, const char *canonical_path, char *why, size_t why_len)
{
    struct stat st;
    if (!canonical_path)
        return -EINVAL;
    int r = clrie_config__fstat(fd, &st, why, why_len);
    return r ? r : clrie_config__trust_stat(&st, canonical_path, why, why_len);
}
