/* Getting configuration from the file system: reading a file safely (size cap, regular file,
 * the trust rule of trust.c on the very descriptor read), folders, and the environment. Each
 * document read goes through parse.c and joins the collection (config.c). */
#define _DEFAULT_SOURCE /* realpath, readlink */
#include "config_private.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct clrie_config_options default_options = {.trust_check = true};

/* Parses data as the file `name` and adds the outcome to config. */
static int load_document(struct clrie_config *config, const char *data, size_t len,
                         const char *name, const char *base_dir,
                         const struct clrie_config_options *opts)
{
    struct file_result r;
    clrie_config__file_result_init(&r, name);
    clrie_config__parse_document(&r, data, len, base_dir, opts);
    int ret = clrie_config__commit(config, &r);
    if (ret == 0 && r.errors > 0)
        ret = len > CLRIE_CONFIG_MAX_FILE_SIZE ? -EFBIG : -EILSEQ;
    clrie_config__file_result_finish(&r);
    return ret;
}

int clrie_config_load_memory(struct clrie_config *config, const void *data, size_t len,
                             const char *name, const char *base_dir,
                             const struct clrie_config_options *opts)
{
    if (!config || (!data && len > 0))
        return -EINVAL;
    return load_document(config, data ? data : "", len, name ? name : "<memory>", base_dir,
                         opts ? opts : &default_options);
}

/* The canonical path of the file open on fd (malloc'd), or NULL. */
static char *canonical_of(int fd, const char *path)
{
    char link[64], target[PATH_MAX];
    snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, target, sizeof(target) - 1);
    if (n > 0 && target[0] == '/') {
        target[n] = '\0';
        return strdup(target);
    }
    return realpath(path, NULL);
}

/* The folder part of a canonical path, in place. */
static void cut_to_folder(char *canonical)
{
    char *slash = strrchr(canonical, '/');
    if (slash == canonical)
        slash[1] = '\0';
    else if (slash)
        *slash = '\0';
}

/* Reads at most limit + 1 bytes, so a file that grew past the limit is noticed. */
static int read_capped(int fd, char *buf, size_t limit, size_t *len)
{
    size_t n = 0;
    while (n <= limit) {
        ssize_t got = read(fd, buf + n, limit + 1 - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return -errno;
        if (got == 0)
            break;
        n += (size_t)got;
    }
    *len = n;
    return 0;
}

/* origin: the environment variable that listed path, or NULL. */
static int load_file_from(struct clrie_config *config, const char *path,
                          const struct clrie_config_options *opts, const char *origin)
{
    char why[CLRIE_CONFIG_REASON_SIZE + 128], buf[128];
    char *data = NULL, *folder = NULL;
    int ret = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        ret = -errno;
        snprintf(why, sizeof(why), "cannot open: %s",
                 clrie_config__strerror(-ret, buf, sizeof(buf)));
        goto refuse;
    }
    if (S_ISDIR(st.st_mode)) {
        ret = -EISDIR;
        snprintf(why, sizeof(why), "is a folder, not a configuration file");
        goto refuse;
    }
    if (!S_ISREG(st.st_mode)) {
        ret = -EINVAL;
        snprintf(why, sizeof(why), "not a regular file");
        goto refuse;
    }
    folder = canonical_of(fd, path);
    if (!folder) {
        ret = errno ? -errno : -ENOMEM;
        if (ret == -ENOMEM)
            goto out;
        snprintf(why, sizeof(why), "cannot tell where the file is: %s",
                 clrie_config__strerror(-ret, buf, sizeof(buf)));
        goto refuse;
    }
    if (opts->trust_check) {
        char reason[CLRIE_CONFIG_REASON_SIZE];
        ret = clrie_config__trust_stat(&st, folder, reason, sizeof(reason));
        if (ret != 0) {
            snprintf(why, sizeof(why), "%s" TRUST_HINT, reason);
            goto refuse;
        }
    }
    cut_to_folder(folder);
    if (st.st_size > CLRIE_CONFIG_MAX_FILE_SIZE) {
        ret = -EFBIG;
        snprintf(why, sizeof(why), "the file is larger than %d bytes", CLRIE_CONFIG_MAX_FILE_SIZE);
        goto refuse;
    }
    data = malloc(CLRIE_CONFIG_MAX_FILE_SIZE + 1);
    if (!data) {
        ret = -ENOMEM;
        goto out;
    }
    size_t len = 0;
    ret = read_capped(fd, data, CLRIE_CONFIG_MAX_FILE_SIZE, &len);
    if (ret != 0) {
        snprintf(why, sizeof(why), "cannot read: %s",
                 clrie_config__strerror(-ret, buf, sizeof(buf)));
        goto refuse;
    }
    ret = load_document(config, data, len, path, folder, opts);
    goto out;

refuse:
    if (clrie_config__report(config, CLRIE_CONFIG_ERROR, path, "%s%s%s%s", why,
                             origin ? " (listed in " : "", origin ? origin : "",
                             origin ? ")" : "") != 0)
        ret = -ENOMEM;
out:
    if (fd >= 0)
        close(fd);
    free(data);
    free(folder);
    return ret;
}

int clrie_config_load_file(struct clrie_config *config, const char *path,
                           const struct clrie_config_options *opts)
{
    if (!config || !path)
        return -EINVAL;
    return load_file_from(config, path, opts ? opts : &default_options, NULL);
}

static bool is_config_name(const char *name)
{
    size_t n = strlen(name);
    if (name[0] == '.')
        return false;
    return (n > 7 && strcmp(name + n - 7, ".config") == 0) ||
           (n > 4 && strcmp(name + n - 4, ".xml") == 0);
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int load_folder(struct clrie_config *config, const char *path,
                       const struct clrie_config_options *opts, const char *origin)
{
    char buf[128];
    DIR *dir = opendir(path);
    if (!dir) {
        int err = errno;
        if (clrie_config__report(
                config, CLRIE_CONFIG_ERROR, path, "cannot read the folder: %s%s%s%s",
                clrie_config__strerror(err, buf, sizeof(buf)), origin ? " (listed in " : "",
                origin ? origin : "", origin ? ")" : "") != 0)
            return -ENOMEM;
        return -err;
    }
    char **names = NULL;
    size_t count = 0, capacity = 0;
    int ret = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        if (!is_config_name(e->d_name))
            continue;
        if (count == capacity) {
            size_t wanted = capacity ? capacity * 2 : 16;
            char **bigger = realloc(names, wanted * sizeof(*names));
            if (!bigger) {
                ret = -ENOMEM;
                break;
            }
            names = bigger;
            capacity = wanted;
        }
        if (!(names[count] = strdup(e->d_name))) {
            ret = -ENOMEM;
            break;
        }
        count++;
    }
    closedir(dir);
    if (ret == 0 && count == 0 &&
        clrie_config__report(
            config, CLRIE_CONFIG_WARNING, path, "the folder has no *.config or *.xml file%s%s%s",
            origin ? " (listed in " : "", origin ? origin : "", origin ? ")" : "") != 0)
        ret = -ENOMEM;
    if (names)
        qsort(names, count, sizeof(*names), compare_names);
    for (size_t i = 0; i < count && ret != -ENOMEM; i++) {
        char *child = clrie_config__path_join(path, names[i]);
        int r = child ? load_file_from(config, child, opts, origin) : -ENOMEM;
        if (ret == 0 || r == -ENOMEM)
            ret = r;
        free(child);
    }
    for (size_t i = 0; i < count; i++)
        free(names[i]);
    free(names);
    return ret;
}

static int load_path_from(struct clrie_config *config, const char *path,
                          const struct clrie_config_options *opts, const char *origin)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return load_folder(config, path, opts, origin);
    return load_file_from(config, path, opts, origin);
}

int clrie_config_load_path(struct clrie_config *config, const char *path,
                           const struct clrie_config_options *opts)
{
    if (!config || !path)
        return -EINVAL;
    return load_path_from(config, path, opts ? opts : &default_options, NULL);
}

/* The value of the first NAME=VALUE entry for name, as getenv would find it. */
static const char *lookup(char *const *envp, const char *name)
{
    size_t n = strlen(name);
    for (char *const *e = envp; *e; e++)
        if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
            return *e + n + 1;
    return NULL;
}

static bool has_prefix(const char *entry, const char *prefix)
{
    return strncmp(entry, prefix, strlen(prefix)) == 0;
}

static bool some_variable_has_prefix(char *const *envp, const char *prefix)
{
    for (char *const *e = envp; *e; e++)
        if (has_prefix(*e, prefix))
            return true;
    return false;
}

const char *clrie_config_env_prefix(char *const *envp)
{
    if (!envp)
        return NULL;
    if (some_variable_has_prefix(envp, CLRIE_CONFIG_ENV_PREFIX))
        return CLRIE_CONFIG_ENV_PREFIX;
    if (some_variable_has_prefix(envp, CLRIE_CONFIG_ENV_PREFIX_64))
        return CLRIE_CONFIG_ENV_PREFIX_64;
    return NULL;
}

/* On aarch64, when ARM64 variables are in effect: a warning for each CLRIE_CONFIG_ENV_PREFIX_64
 * variable, which is then ignored. */
static int report_ignored(struct clrie_config *config, char *const *envp, const char *prefix)
{
    if (strcmp(prefix, CLRIE_CONFIG_ENV_PREFIX_64) == 0)
        return 0;
    for (char *const *e = envp; *e; e++) {
        const char *equals = strchr(*e, '=');
        if (!has_prefix(*e, CLRIE_CONFIG_ENV_PREFIX_64) || !equals)
            continue;
        char *variable = strndup(*e, (size_t)(equals - *e));
        if (!variable)
            return -ENOMEM;
        int r = clrie_config__report(config, CLRIE_CONFIG_WARNING, variable,
                                     "ignored: " CLRIE_CONFIG_ENV_PREFIX "* variables are set, "
                                     "and they take precedence");
        free(variable);
        if (r == -ENOMEM)
            return r;
    }
    return 0;
}

int clrie_config_load_env(struct clrie_config *config, char *const *envp)
{
    if (!config || !envp)
        return -EINVAL;
    const char *disable = lookup(envp, CLRIE_CONFIG_ENV_DISABLE_TRUST);
    struct clrie_config_options opts = {.trust_check = !(disable && strcmp(disable, "1") == 0)};
    const char *prefix = clrie_config_env_prefix(envp);
    if (!prefix)
        return 0;
    const size_t prefix_len = strlen(prefix);
    int ret = report_ignored(config, envp, prefix);
    for (char *const *e = envp; *e && ret != -ENOMEM; e++) {
        if (strncmp(*e, prefix, prefix_len) != 0)
            continue;
        const char *equals = strchr(*e + prefix_len, '=');
        if (!equals)
            continue; /* not a variable at all: environ entries always have '=' */
        char *variable = strndup(*e, (size_t)(equals - *e));
        char *list = strdup(equals + 1);
        if (!variable || !list) {
            free(variable);
            free(list);
            return -ENOMEM;
        }
        char *part = list;
        for (;;) {
            char *colon = strchr(part, ':');
            if (colon)
                *colon = '\0';
            int r;
            if (*part)
                r = load_path_from(config, part, &opts, variable);
            else
                r = clrie_config__report(config, CLRIE_CONFIG_WARNING, variable,
                                         "an empty entry in the path list is ignored");
            if (r == -ENOMEM || (ret == 0 && r != 0))
                ret = r;
            if (!colon || ret == -ENOMEM)
                break;
            part = colon + 1;
        }
        free(variable);
        free(list);
    }
    return ret;
}
