/* Shared by the libconfig tests: configuration text, trees to put it in, and the result
 * rendered the way a user reads it. */
#include "helpers.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clrie/os/process.h"
#include "support.h"

void text_append(struct text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    assert_true(n >= 0);
    if (t->len + (size_t)n + 1 > t->capacity) {
        t->capacity = 2 * (t->len + (size_t)n + 1);
        t->data = realloc(t->data, t->capacity);
        assert_non_null(t->data);
    }
    va_start(ap, fmt);
    vsnprintf(t->data + t->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

char *method(const char *name, const char *guid, const char *priority)
{
    struct text t = {0};
    text_append(&t,
                "  <InstrumentationMethod><Name>%s</Name><Module>plugin.so</Module>"
                "<ClassGuid>%s</ClassGuid>",
                name, guid);
    if (priority)
        text_append(&t, "<Priority>%s</Priority>", priority);
    text_append(&t, "</InstrumentationMethod>\n");
    return t.data;
}

/* HEAD, the given method lines, TAIL. */
char *document(const char *first, ...)
{
    struct text t = {0};
    text_append(&t, "%s", HEAD);
    va_list ap;
    va_start(ap, first);
    for (const char *p = first; p; p = va_arg(ap, const char *))
        text_append(&t, "%s", p);
    va_end(ap);
    text_append(&t, "%s", TAIL);
    return t.data;
}

void write_text(const char *root, const char *relative, const char *text)
{
    test_tree_write(root, relative, text, strlen(text));
}

/* A tree holding a plugin module "plugin.so" the configurations can name. */
char *new_tree(void)
{
    char *root = test_tree_new();
    write_text(root, "plugin.so", "not really a plugin");
    return root;
}

/* Writes a file of methods (each an argument, freed here) into root/relative. */
void write_methods(const char *root, const char *relative, int count, ...)
{
    char *parts[8] = {0};
    va_list ap;
    va_start(ap, count);
    for (int i = 0; i < count; i++)
        parts[i] = va_arg(ap, char *);
    va_end(ap);
    char *doc = document(parts[0] ? parts[0] : "", parts[1], parts[2], parts[3], parts[4], parts[5],
                         parts[6], parts[7]);
    write_text(root, relative, doc);
    free(doc);
    for (int i = 0; i < count; i++)
        free(parts[i]);
}

/* Replaces every occurrence of root in text by "ROOT". */
char *relative_to(const char *text, const char *root)
{
    size_t rl = strlen(root);
    char *out = malloc(strlen(text) + 1);
    assert_non_null(out);
    char *o = out;
    while (*text) {
        if (strncmp(text, root, rl) == 0) {
            memcpy(o, "ROOT", 4);
            o += 4;
            text += rl;
        } else {
            *o++ = *text++;
        }
    }
    *o = '\0';
    return out;
}

/* The methods as "priority guid name\n" lines, "-" for no priority. */
char *list(const struct clrie_config *config)
{
    struct text t = {0};
    text_append(&t, "%s", "");
    for (size_t i = 0; i < clrie_config_method_count(config); i++) {
        const struct clrie_config_method *m = clrie_config_method_at(config, i);
        if (m->has_priority)
            text_append(&t, "%lu ", (unsigned long)m->priority);
        else
            text_append(&t, "- ");
        text_append(&t, "%s %s\n", m->class_guid_text, m->name);
    }
    return t.data;
}

/* The problems as the tool prints them, with the tree's path shown as ROOT and '/' between
 * folders on every system. */
char *problems(const struct clrie_config *config, const char *root)
{
    struct text t = {0};
    text_append(&t, "%s", "");
    for (size_t i = 0; i < clrie_config_diag_count(config); i++) {
        const struct clrie_config_diag *d = clrie_config_diag_at(config, i);
        text_append(&t, "%s:%u:%u: %s: %s\n", d->file, d->line, d->column,
                    clrie_config_severity_string(d->severity), d->message);
    }
    char *r = root ? relative_to(t.data, root) : t.data;
    if (root)
        free(t.data);
    test_slashes(r);
    return r;
}

void expect_list(const struct clrie_config *config, const char *expected)
{
    char *got = list(config);
    assert_string_equal(got, expected);
    free(got);
}

void expect_problems(const struct clrie_config *config, const char *root, const char *expected)
{
    char *got = problems(config, root);
    assert_string_equal(got, expected);
    free(got);
}

/* Loads text from memory as "t.config" with relative Modules resolved in root. */
int load_text(struct clrie_config *config, const char *root, const char *text)
{
    return clrie_config_load_memory(config, text, strlen(text), "t.config", root, NULL);
}

double seconds_since(uint64_t start)
{
    return (double)(clrie_os_monotonic_ns() - start) / 1e9;
}
