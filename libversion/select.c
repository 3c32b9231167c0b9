/* Choosing the newest eligible engine among the version folders of an install root. */
#include "clrie/version.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "clrie/os/fs.h"

const char *clrie_version_verdict_string(enum clrie_version_verdict verdict)
{
    switch (verdict) {
    case CLRIE_VERSION_CHOSEN:
        return "chosen";
    case CLRIE_VERSION_OLDER:
        return "eligible but older than the chosen version";
    case CLRIE_VERSION_BAD_NAME:
        return "not a version name";
    case CLRIE_VERSION_WRONG_MAJOR:
        return "different major version";
    case CLRIE_VERSION_DEBUG_MISMATCH:
        return "debug/release mismatch";
    case CLRIE_VERSION_PREVIEW_NOT_ALLOWED:
        return "preview not allowed";
    case CLRIE_VERSION_NO_SUCH_FOLDER:
        return "no such folder";
    case CLRIE_VERSION_NOT_A_DIRECTORY:
        return "not a directory";
    case CLRIE_VERSION_ENGINE_MISSING:
        return "engine file missing";
    case CLRIE_VERSION_ENGINE_NOT_A_FILE:
        return "engine is not a regular file";
    case CLRIE_VERSION_UNREADABLE:
        return "unreadable";
    }
    return "unknown verdict";
}

/* Joins the NULL-terminated list of parts with the system's separator. Returns a new string
 * or NULL. */
static char *path_join(const char *first, ...)
{
    size_t total = 0;
    va_list ap;
    va_start(ap, first);
    for (const char *p = first; p; p = va_arg(ap, const char *))
        total += strlen(p) + 1;
    va_end(ap);

    char *path = malloc(total);
    if (!path)
        return NULL;
    char *end = path;
    va_start(ap, first);
    for (const char *p = first; p; p = va_arg(ap, const char *)) {
        if (end != path)
            *end++ = CLRIE_OS_SEPARATOR;
        size_t n = strlen(p);
        memcpy(end, p, n);
        end += n;
    }
    va_end(ap);
    *end = '\0';
    return path;
}

/* Decides what an entry of the root is worth. Fills *version when the name parses. Returns
 * -ENOMEM, or 0 with candidate->verdict set (CLRIE_VERSION_CHOSEN meaning "eligible"). */
static int examine(const struct clrie_version_select_options *opts,
                   struct clrie_version_candidate *candidate, struct clrie_version *version)
{
    const char *name = candidate->name;
    bool explicit_choice = opts->specific_version != NULL;
    struct clrie_version_diag diag;

    if (clrie_version_parse(name, strlen(name), version, &diag) != 0) {
        candidate->verdict = CLRIE_VERSION_BAD_NAME;
        candidate->offset = diag.offset;
        return 0;
    }
    if (!clrie_version_number_equals(&version->major, opts->major)) {
        candidate->verdict = CLRIE_VERSION_WRONG_MAJOR;
        return 0;
    }
    if (!explicit_choice && version->is_debug != opts->use_debug) {
        candidate->verdict = CLRIE_VERSION_DEBUG_MISMATCH;
        return 0;
    }
    if (!explicit_choice && version->is_preview && !opts->use_preview) {
        candidate->verdict = CLRIE_VERSION_PREVIEW_NOT_ALLOWED;
        return 0;
    }

    char *folder = path_join(opts->root, name, NULL);
    char *engine = path_join(opts->root, name, opts->arch_folder, opts->engine_file, NULL);
    int ret = 0, r;
    enum clrie_os_kind kind;
    if (!folder || !engine) {
        ret = -ENOMEM;
    } else if ((r = clrie_os_path_kind(folder, &kind)) != 0) {
        candidate->error = r == -ENOENT ? 0 : -r;
        candidate->verdict = r == -ENOENT ? CLRIE_VERSION_NO_SUCH_FOLDER : CLRIE_VERSION_UNREADABLE;
    } else if (kind != CLRIE_OS_DIRECTORY) {
        candidate->verdict = CLRIE_VERSION_NOT_A_DIRECTORY;
    } else if ((r = clrie_os_path_kind(engine, &kind)) != 0) {
        bool absent = r == -ENOENT || r == -ENOTDIR;
        candidate->error = absent ? 0 : -r;
        candidate->verdict = absent ? CLRIE_VERSION_ENGINE_MISSING : CLRIE_VERSION_UNREADABLE;
    } else if (kind != CLRIE_OS_FILE) {
        candidate->verdict = CLRIE_VERSION_ENGINE_NOT_A_FILE;
    } else {
        candidate->verdict = CLRIE_VERSION_CHOSEN;
    }
    free(folder);
    free(engine);
    return ret;
}

static int by_name(const void *a, const void *b)
{
    const struct clrie_version_candidate *x = a, *y = b;
    return strcmp(x->name, y->name);
}

static int add_candidate(struct clrie_version_selection *out, size_t *capacity, const char *name)
{
    if (out->count == *capacity) {
        size_t grown = *capacity ? *capacity * 2 : 16;
        void *p = realloc(out->candidates, grown * sizeof(*out->candidates));
        if (!p)
            return -ENOMEM;
        out->candidates = p;
        *capacity = grown;
    }
    struct clrie_version_candidate *c = &out->candidates[out->count];
    *c = (struct clrie_version_candidate){.name = strdup(name)};
    if (!c->name)
        return -ENOMEM;
    out->count++;
    return 0;
}

/* Lists the root's entries into out, sorted by name; or just the one requested version. */
static int list_root(const struct clrie_version_select_options *opts,
                     struct clrie_version_selection *out)
{
    size_t capacity = 0;
    enum clrie_os_kind kind;
    int r = clrie_os_path_kind(opts->root, &kind);
    if (r != 0) {
        out->root_error = -r;
        return -ENOENT;
    }
    if (kind != CLRIE_OS_DIRECTORY) {
        out->root_error = ENOTDIR;
        return -ENOENT;
    }
    if (opts->specific_version)
        return add_candidate(out, &capacity, opts->specific_version);

    struct clrie_os_dir *dir = NULL;
    r = clrie_os_dir_open(opts->root, &dir);
    if (r != 0) {
        out->root_error = -r;
        return -ENOENT;
    }
    int ret = 0;
    const char *name;
    while ((r = clrie_os_dir_next(dir, &name)) == 1) {
        ret = add_candidate(out, &capacity, name);
        if (ret != 0)
            break;
    }
    if (r < 0 && ret == 0) {
        out->root_error = -r;
        ret = -ENOENT;
    }
    clrie_os_dir_close(dir);
    if (out->count > 1)
        qsort(out->candidates, out->count, sizeof(*out->candidates), by_name);
    return ret;
}

static bool has_separator(const char *name)
{
    for (; *name; name++)
        if (clrie_os_is_separator(*name))
            return true;
    return false;
}

int clrie_version_select(const struct clrie_version_select_options *opts,
                         struct clrie_version_selection *out)
{
    if (!out)
        return -EINVAL;
    *out = (struct clrie_version_selection){0};
    if (!opts || !opts->root || !opts->arch_folder || !opts->engine_file)
        return -EINVAL;
    if (opts->specific_version && has_separator(opts->specific_version))
        return -EINVAL;

    struct clrie_version *versions = NULL;
    int ret = list_root(opts, out);
    if (ret != 0)
        goto out;

    versions = calloc(out->count ? out->count : 1, sizeof(*versions));
    if (!versions) {
        ret = -ENOMEM;
        goto out;
    }

    size_t best = out->count;
    for (size_t i = 0; i < out->count; i++) {
        ret = examine(opts, &out->candidates[i], &versions[i]);
        if (ret != 0)
            goto out;
        if (out->candidates[i].verdict != CLRIE_VERSION_CHOSEN)
            continue;
        if (best == out->count) {
            best = i;
        } else if (clrie_version_compare_total(&versions[i], &versions[best]) > 0) {
            out->candidates[best].verdict = CLRIE_VERSION_OLDER;
            best = i;
        } else {
            out->candidates[i].verdict = CLRIE_VERSION_OLDER;
        }
    }
    if (best == out->count) {
        ret = -ENOENT;
        goto out;
    }

    out->version = strdup(out->candidates[best].name);
    out->path = path_join(opts->root, out->version ? out->version : "", opts->arch_folder,
                          opts->engine_file, NULL);
    if (!out->version || !out->path)
        ret = -ENOMEM;
out:
    free(versions);
    return ret;
}

void clrie_version_selection_finish(struct clrie_version_selection *selection)
{
    if (!selection)
        return;
    for (size_t i = 0; i < selection->count; i++)
        free(selection->candidates[i].name);
    free(selection->candidates);
    free(selection->path);
    free(selection->version);
    *selection = (struct clrie_version_selection){0};
}
