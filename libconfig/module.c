/* What a module must be before anyone loads it: a complete image of this machine's format
 * (elf.c, pe.c: Meson names the native one as CLRIE_CONFIG_NATIVE_FORMAT) and, when asked, a
 * file the trust rule (trust.c) accepts. */
#include "config_private.h"
#include "image.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "clrie/os/file.h"

/* Measures the open file and runs format's check on it. */
static int check_file(struct clrie_os_file *file, const struct image_format *format, char *why,
                      size_t why_len)
{
    struct clrie_os_file_info info;
    int r = clrie_os_file_info(file, &info);
    if (r != 0) {
        char buf[128];
        clrie_config__why(why, why_len, "cannot examine the file: %s",
                          clrie_os_strerror(-r, buf, sizeof(buf)));
        return r;
    }
    struct image img = {.file = file, .size = info.size};
    return format->check(&img, why, why_len);
}

static int check_descriptor(int fd, const struct image_format *format, char *why, size_t why_len)
{
    struct clrie_os_file *file = NULL;
    int r = clrie_os_file_wrap(fd, &file);
    if (r != 0) {
        clrie_config__why(why, why_len, "not an open file");
        return r;
    }
    r = check_file(file, format, why, why_len);
    clrie_os_file_close(file);
    return r;
}

int clrie_config_elf_check_fd(int fd, char *why, size_t why_len)
{
    return check_descriptor(fd, &clrie_config__elf_format, why, why_len);
}

int clrie_config_image_check_fd(int fd, char *why, size_t why_len)
{
    return check_descriptor(fd, &CLRIE_CONFIG_NATIVE_FORMAT, why, why_len);
}

int clrie_config_module_check(const char *path, unsigned checks, char **canonical, char *why,
                              size_t why_len)
{
    char buf[128];
    if (!path) {
        clrie_config__why(why, why_len, "no path");
        return -EINVAL;
    }
    char *resolved = NULL;
    int ret = clrie_os_path_canonical(path, &resolved);
    if (ret != 0) {
        clrie_config__why(why, why_len, "%s", clrie_os_strerror(-ret, buf, sizeof(buf)));
        return ret;
    }
    struct clrie_os_file *file = NULL;
    struct clrie_os_file_info info;
    ret = clrie_os_file_open(resolved, CLRIE_OS_OPEN_NO_FOLLOW, &file);
    if (ret == 0)
        ret = clrie_os_file_info(file, &info);
    if (ret != 0) {
        clrie_config__why(why, why_len, "cannot open '%s': %s", resolved,
                          clrie_os_strerror(-ret, buf, sizeof(buf)));
        goto out;
    }
    if (info.kind != CLRIE_OS_FILE) {
        ret = -EINVAL;
        clrie_config__why(why, why_len, "'%s' is not a regular file", resolved);
        goto out;
    }
    if ((checks & CLRIE_CONFIG_CHECK_TRUST) &&
        (ret = clrie_config__trust_file(file, resolved, why, why_len)) != 0)
        goto out;
    if (checks & CLRIE_CONFIG_CHECK_IMAGE)
        ret = check_file(file, &CLRIE_CONFIG_NATIVE_FORMAT, why, why_len);
out:
    clrie_os_file_close(file);
    if (ret == 0 && canonical)
        *canonical = resolved;
    else
        free(resolved);
    return ret;
}
