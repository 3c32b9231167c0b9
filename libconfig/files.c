/* Getting configuration from the file system: reading a file safely (size cap, regular file,
 * the trust rule of trust.c on the very file read), folders, and the environment. Each
 * document read goes through parse.c and joins the collection (config.c). */
#include "config_private.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clrie/os/env.h"
#include "clrie/os/file.h"
#include "clrie/os/fs.h"
#include "clrie/os/strings.h"

/* The prefix read when no variable has the architecture's own: CLRIE's Linux name on aarch64,
 * as CLRIE does; elsewhere the architecture's own again (ConfigPath32_ on x86 never falls back
 * to the 64-bit variables, which name 64-bit plugins). */
#if defined(__aarch64__) || defined(_M_ARM64)
#define ENV_PREFIX_FALLBACK CLRIE_CONFIG_ENV_PREFIX_64
#else
#define ENV_PREFIX_FALLBACK CLRIE_CONFIG_ENV_PREFIX
#endif

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

/* The folder part of a canonical path, in place; a root ("/", "C:\\") keeps its separator. */
static void cut_to_folder(char *canonical)
{
    char *last = NULL;
    for (char *p = canonical; *p; p++)
        if (clrie_os_is_separator(*p))
            last = p;
    if (!last)
        return;
    bool root = last == canonical || (last == canonical + 2 && canonical[1] == ':');
    last[root ? 1 : 0] = '\0';
}

/* Reads at most limit + 1 bytes, so a file that grew past the limit is noticed. */
static int read_capped(struct clrie_os_file *file, char *buf, size_t limit, size_t *len)
{
    size_t n = 0;
    while (n <= limit) {
        size_t got = 0;
        int r = clrie_os_file_read(file, buf + n, limit + 1 - n, &got);
        if (r != 0)
            return r;
        if (got == 0)
            break;
        n += got;
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
    struct clrie_os_file *file = NULL;
    struct clrie_os_file_info info;
    ret = clrie_os_file_open(path, 0, &file);
    if (ret == 0)
        ret = clrie_os_file_info(file, &info);
    if (ret != 0) {
        snprintf(why, sizeof(why), "cannot open: %s", clrie_os_strerror(-ret, buf, sizeof(buf)));
        goto refuse;
    }
    if (info.kind == CLRIE_OS_DIRECTORY) {
        ret = -EISDIR;
        snprintf(why, sizeof(why), "is a folder, not a configuration file");
        goto refuse;
    }
    if (info.kind != CLRIE_OS_FILE) {
        ret = -EINVAL;
        snprintf(why, sizeof(why), "not a regular file");
        goto refuse;
    }
    ret = clrie_os_file_path(file, &folder);
    if (ret == -ENOMEM)
        goto out;
    if (ret != 0) {
        snprintf(why, sizeof(why), "cannot tell where the file is: %s",
                 clrie_os_strerror(-ret, buf, sizeof(buf)));
        goto refuse;
    }
    if (opts->trust_check) {
        char reason[CLRIE_CONFIG_REASON_SIZE];
        ret = clrie_config__trust_file(file, folder, reason, sizeof(reason));
        if (ret != 0) {
            snprintf(why, sizeof(why), "%s" TRUST_HINT, reason);
            goto refuse;
        }
    }
    cut_to_folder(folder);
    if (info.size > CLRIE_CONFIG_MAX_FILE_SIZE) {
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
    ret = read_capped(file, data, CLRIE_CONFIG_MAX_FILE_SIZE, &len);
    if (ret != 0) {
        snprintf(why, sizeof(why), "cannot read: %s", clrie_os_strerror(-ret, buf, sizeof(buf)));
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
    clrie_os_file_close(file);
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
    struct clrie_os_dir *dir = NULL;
    int err = clrie_os_dir_open(path, &dir);
    if (err != 0) {
        if (clrie_config__report(
                config, CLRIE_CONFIG_ERROR, path, "cannot read the folder: %s%s%s%s",
                clrie_os_strerror(-err, buf, sizeof(buf)), origin ? " (listed in " : "",
                origin ? origin : "", origin ? ")" : "") != 0)
            return -ENOMEM;
        return err;
    }
    char **names = NULL;
    size_t count = 0, capacity = 0;
    int ret = 0;
    const char *name;
    while ((err = clrie_os_dir_next(dir, &name)) == 1) {
        if (!is_config_name(name))
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
        if (!(names[count] = strdup(name))) {
            ret = -ENOMEM;
            break;
        }
        count++;
    }
    if (ret == 0 && err < 0)
        ret = err == -ENOMEM ? err : 0; /* a listing cut short loads what it gave */
    clrie_os_dir_close(dir);
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
    enum clrie_os_kind kind;
    if (clrie_os_path_kind(path, &kind) == 0 && kind == CLRIE_OS_DIRECTORY)
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

static bool has_prefix(const char *entry, const char *prefix)
{
    return clrie_os_env_entry_after(entry, prefix) != NULL;
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
    if (some_variable_has_prefix(envp, ENV_PREFIX_FALLBACK))
        return ENV_PREFIX_FALLBACK;
    return NULL;
}

/* On aarch64, when ARM64 variables are in effect: a warning for each CLRIE_CONFIG_ENV_PREFIX_64
 * variable, which is then ignored. */
static int report_ignored(struct clrie_config *config, char *const *envp, const char *prefix)
{
    if (strcmp(prefix, ENV_PREFIX_FALLBACK) == 0)
        return 0;
    for (char *const *e = envp; *e; e++) {
        const char *equals = strchr(*e, '=');
        if (!has_prefix(*e, ENV_PREFIX_FALLBACK) || !equals)
            continue;
        char *variable = clrie_os_strndup(*e, (size_t)(equals - *e));
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
    const char *disable = clrie_os_env_lookup(envp, CLRIE_CONFIG_ENV_DISABLE_TRUST);
    struct clrie_config_options opts = {.trust_check = !(disable && strcmp(disable, "1") == 0)};
    const char *prefix = clrie_config_env_prefix(envp);
    if (!prefix)
        return 0;
    const size_t prefix_len = strlen(prefix);
    int ret = report_ignored(config, envp, prefix);
    for (char *const *e = envp; *e && ret != -ENOMEM; e++) {
        if (!has_prefix(*e, prefix))
            continue;
        const char *equals = strchr(*e + prefix_len, '=');
        if (!equals)
            continue; /* not a variable at all: environ entries always have '=' */
        char *variable = clrie_os_strndup(*e, (size_t)(equals - *e));
        char *list = strdup(equals + 1);
        if (!variable || !list) {
            free(variable);
            free(list);
            return -ENOMEM;
        }
        char *part = list;
        for (;;) {
            char *colon = strchr(part, CLRIE_OS_PATH_LIST_SEPARATOR);
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
