/* The trust rule on POSIX systems (clrie/config.h, clrie_config_trust_check): owners and
 * permission bits of the file and of every folder above it, as OpenSSH's StrictModes. */
#define _DEFAULT_SOURCE /* S_ISVTX */
#include "config_private.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clrie/os/file.h"

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
                          clrie_os_strerror(err, buf, sizeof(buf)));
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

int clrie_config__trust_file(struct clrie_os_file *file, const char *canonical_path, char *why,
                             size_t why_len)
{
    if (!canonical_path || canonical_path[0] != '/')
        return -EINVAL;
    struct stat file_st, *st = &file_st;
    if (fstat((int)clrie_os_file_native(file), st) != 0) {
        int err = errno;
        char buf[128];
        clrie_config__why(why, why_len, "cannot examine the file: %s",
                          clrie_os_strerror(err, buf, sizeof(buf)));
        return -err;
    }
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
