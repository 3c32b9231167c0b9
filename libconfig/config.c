/* The collection: methods in load order, problems in the order found, and the rules that
 * join files together (priority order, first ClassGuid wins, a file with an error adds
 * nothing). */
#include "config_private.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct clrie_config {
    struct clrie_config_method **methods;
    size_t method_count, method_capacity;
    struct clrie_config_diag **diags;
    size_t diag_count, diag_capacity;
    size_t errors;
};

/* Grows *array (of elem-sized items) so that it holds at least one more than *count. */
static bool reserve(void **array, size_t *capacity, size_t count, size_t elem)
{
    if (count < *capacity)
        return true;
    size_t wanted = *capacity ? *capacity * 2 : 8;
    if (wanted > SIZE_MAX / elem)
        return false;
    void *bigger = realloc(*array, wanted * elem);
    if (!bigger)
        return false;
    *array = bigger;
    *capacity = wanted;
    return true;
}

static char *vformat(const char *fmt, va_list ap) __attribute__((format(__printf__, 1, 0)));
static char *vformat(const char *fmt, va_list ap)
{
    va_list copy;
    va_copy(copy, ap);
    int n = vsnprintf(NULL, 0, fmt, copy);
    va_end(copy);
    if (n < 0)
        return NULL;
    char *s = malloc((size_t)n + 1);
    if (s)
        vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

static char *format(const char *fmt, ...) __attribute__((format(__printf__, 1, 2)));
static char *format(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = vformat(fmt, ap);
    va_end(ap);
    return s;
}

static void diag_finish(struct clrie_config_diag *d)
{
    free((char *)d->file);
    free((char *)d->message);
}

void clrie_config__file_result_init(struct file_result *r, const char *file)
{
    memset(r, 0, sizeof(*r));
    r->file = file;
}

void clrie_config__method_draft_finish(struct method_draft *d)
{
    struct clrie_config_method *m = &d->m;
    free((char *)m->name);
    free((char *)m->description);
    free((char *)m->module);
    free((char *)m->module_path);
    free((char *)m->file);
    for (size_t i = 0; i < m->setting_count; i++) {
        free((char *)d->settings[i].name);
        free((char *)d->settings[i].value);
    }
    free(d->settings);
    memset(d, 0, sizeof(*d));
}

void clrie_config__file_result_finish(struct file_result *r)
{
    for (size_t i = 0; i < r->count; i++)
        clrie_config__method_draft_finish(&r->methods[i]);
    free(r->methods);
    for (size_t i = 0; i < r->diag_count; i++)
        diag_finish(&r->diags[i]);
    free(r->diags);
    memset(r, 0, sizeof(*r));
}

void clrie_config__file_result_vreport(struct file_result *r, enum clrie_config_severity severity,
                                       unsigned line, unsigned column, const char *fmt, va_list ap)
{
    if (severity == CLRIE_CONFIG_ERROR)
        r->errors++; /* counted even without memory: the file must still be rejected */
    if (!reserve((void **)&r->diags, &r->diag_capacity, r->diag_count, sizeof(*r->diags))) {
        r->out_of_memory = true;
        return;
    }
    struct clrie_config_diag d = {
        .severity = severity,
        .file = strdup(r->file),
        .line = line,
        .column = column,
        .message = vformat(fmt, ap),
    };
    if (!d.file || !d.message) {
        diag_finish(&d);
        r->out_of_memory = true;
        return;
    }
    r->diags[r->diag_count++] = d;
}

void clrie_config__file_result_report(struct file_result *r, enum clrie_config_severity severity,
                                      unsigned line, unsigned column, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    clrie_config__file_result_vreport(r, severity, line, column, fmt, ap);
    va_end(ap);
}

struct method_draft *clrie_config__file_result_add_method(struct file_result *r)
{
    if (!reserve((void **)&r->methods, &r->capacity, r->count, sizeof(*r->methods))) {
        r->out_of_memory = true;
        return NULL;
    }
    struct method_draft *d = &r->methods[r->count++];
    memset(d, 0, sizeof(*d));
    return d;
}

struct clrie_config *clrie_config_new(void)
{
    return calloc(1, sizeof(struct clrie_config));
}

static void free_method(struct clrie_config_method *m)
{
    if (!m)
        return;
    struct method_draft d = {.m = *m, .settings = (struct clrie_config_setting *)m->settings};
    clrie_config__method_draft_finish(&d);
    free(m);
}

void clrie_config_free(struct clrie_config *config)
{
    if (!config)
        return;
    for (size_t i = 0; i < config->method_count; i++)
        free_method(config->methods[i]);
    free(config->methods);
    for (size_t i = 0; i < config->diag_count; i++) {
        diag_finish(config->diags[i]);
        free(config->diags[i]);
    }
    free(config->diags);
    free(config);
}

/* Takes ownership of *d's strings (clearing *d) whether or not it succeeds. */
static int add_diag(struct clrie_config *config, struct clrie_config_diag *d)
{
    struct clrie_config_diag *copy = NULL;
    if (reserve((void **)&config->diags, &config->diag_capacity, config->diag_count,
                sizeof(*config->diags)))
        copy = malloc(sizeof(*copy));
    if (!copy) {
        diag_finish(d);
        memset(d, 0, sizeof(*d));
        return -ENOMEM;
    }
    *copy = *d;
    memset(d, 0, sizeof(*d));
    config->diags[config->diag_count++] = copy;
    if (copy->severity == CLRIE_CONFIG_ERROR)
        config->errors++;
    return 0;
}

int clrie_config__report(struct clrie_config *config, enum clrie_config_severity severity,
                         const char *file, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    struct clrie_config_diag d = {
        .severity = severity,
        .file = strdup(file),
        .message = vformat(fmt, ap),
    };
    va_end(ap);
    if (!d.file || !d.message) {
        diag_finish(&d);
        return -ENOMEM;
    }
    return add_diag(config, &d);
}

/* Sort key: an explicit priority, or one past the largest for "no priority". */
static uint64_t order_key(const struct clrie_config_method *m)
{
    return m->has_priority ? m->priority : (uint64_t)UINT32_MAX + 1;
}

static const struct clrie_config_method *find_guid(const struct clrie_config *config,
                                                   const struct clrie_config_guid *guid)
{
    for (size_t i = 0; i < config->method_count; i++)
        if (memcmp(&config->methods[i]->class_guid, guid, sizeof(*guid)) == 0)
            return config->methods[i];
    return NULL;
}

/* Inserts before the first method with a strictly greater key, so ties keep load order. */
static int insert_method(struct clrie_config *config, struct method_draft *d)
{
    if (!reserve((void **)&config->methods, &config->method_capacity, config->method_count,
                 sizeof(*config->methods)))
        return -ENOMEM;
    struct clrie_config_method *m = malloc(sizeof(*m));
    if (!m)
        return -ENOMEM;
    *m = d->m;
    m->settings = d->settings;
    memset(d, 0, sizeof(*d));

    uint64_t key = order_key(m);
    size_t at = config->method_count;
    while (at > 0 && order_key(config->methods[at - 1]) > key)
        at--;
    memmove(&config->methods[at + 1], &config->methods[at],
            (config->method_count - at) * sizeof(*config->methods));
    config->methods[at] = m;
    config->method_count++;
    return 0;
}

static int commit_methods(struct clrie_config *config, struct file_result *r)
{
    for (size_t i = 0; i < r->count; i++) {
        struct method_draft *d = &r->methods[i];
        const struct clrie_config_method *first = find_guid(config, &d->m.class_guid);
        if (first) {
            struct clrie_config_diag w = {
                .severity = CLRIE_CONFIG_WARNING,
                .file = strdup(d->m.file),
                .line = d->m.line,
                .column = d->m.column,
            };
            w.message =
                format("ClassGuid %s is already declared by '%s' at %s:%u:%u; '%s' is ignored",
                       d->m.class_guid_text, first->name, first->file, first->line, first->column,
                       d->m.name);
            if (!w.file || !w.message) {
                diag_finish(&w);
                return -ENOMEM;
            }
            if (add_diag(config, &w) != 0)
                return -ENOMEM;
            continue;
        }
        if (insert_method(config, d) != 0)
            return -ENOMEM;
    }
    return 0;
}

static bool before(const struct clrie_config_diag *a, const struct clrie_config_diag *b)
{
    return a->line < b->line || (a->line == b->line && a->column < b->column);
}

/* Problems of one file in the order of the file (stable: equal places keep the order found),
 * whatever order the checks ran in. A closing "not checked further" note stays last. */
static void sort_diags(struct file_result *r)
{
    size_t n = r->diag_count - (r->truncated && r->diag_count > 0 ? 1 : 0);
    for (size_t i = 1; i < n; i++) {
        struct clrie_config_diag d = r->diags[i];
        size_t j = i;
        while (j > 0 && before(&d, &r->diags[j - 1])) {
            r->diags[j] = r->diags[j - 1];
            j--;
        }
        r->diags[j] = d;
    }
}

int clrie_config__commit(struct clrie_config *config, struct file_result *r)
{
    sort_diags(r);
    for (size_t i = 0; i < r->diag_count; i++) {
        if (add_diag(config, &r->diags[i]) != 0)
            return -ENOMEM;
    }
    r->diag_count = 0;
    if (r->out_of_memory)
        return -ENOMEM;
    if (r->errors > 0)
        return 0;
    return commit_methods(config, r);
}

size_t clrie_config_method_count(const struct clrie_config *config)
{
    return config ? config->method_count : 0;
}

const struct clrie_config_method *clrie_config_method_at(const struct clrie_config *config,
                                                         size_t index)
{
    return config && index < config->method_count ? config->methods[index] : NULL;
}

size_t clrie_config_diag_count(const struct clrie_config *config)
{
    return config ? config->diag_count : 0;
}

const struct clrie_config_diag *clrie_config_diag_at(const struct clrie_config *config,
                                                     size_t index)
{
    return config && index < config->diag_count ? config->diags[index] : NULL;
}

size_t clrie_config_error_count(const struct clrie_config *config)
{
    return config ? config->errors : 0;
}

const char *clrie_config_severity_string(enum clrie_config_severity severity)
{
    return severity == CLRIE_CONFIG_WARNING ? "warning" : "error";
}
