/* Shared by the libconfig tests: configuration text, trees to put it in, and the result
 * rendered the way a user reads it. */
#define _DEFAULT_SOURCE
#include "helpers.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "support.h"

char *method(const char *name, const char *guid, const char *priority)
{
    char *s = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&s, &n);
    assert_non_null(f);
    fprintf(f,
            "  <InstrumentationMethod><Name>%s</Name><Module>plugin.so</Module>"
            "<ClassGuid>%s</ClassGuid>",
            name, guid);
    if (priority)
        fprintf(f, "<Priority>%s</Priority>", priority);
    fprintf(f, "</InstrumentationMethod>\n");
    fclose(f);
    return s;
}

/* HEAD, the given method lines, TAIL. */
char *document(const char *first, ...)
{
    char *s = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&s, &n);
    assert_non_null(f);
    fputs(HEAD, f);
    va_list ap;
    va_start(ap, first);
    for (const char *p = first; p; p = va_arg(ap, const char *))
        fputs(p, f);
    va_end(ap);
    fputs(TAIL, f);
    fclose(f);
    return s;
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
    char *s = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&s, &n);
    assert_non_null(f);
    for (size_t i = 0; i < clrie_config_method_count(config); i++) {
        const struct clrie_config_method *m = clrie_config_method_at(config, i);
        if (m->has_priority)
            fprintf(f, "%lu ", (unsigned long)m->priority);
        else
            fputs("- ", f);
        fprintf(f, "%s %s\n", m->class_guid_text, m->name);
    }
    fclose(f);
    return s;
}

/* The problems as the tool prints them, with the tree's path shown as ROOT. */
char *problems(const struct clrie_config *config, const char *root)
{
    char *s = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&s, &n);
    assert_non_null(f);
    for (size_t i = 0; i < clrie_config_diag_count(config); i++) {
        const struct clrie_config_diag *d = clrie_config_diag_at(config, i);
        fprintf(f, "%s:%u:%u: %s: %s\n", d->file, d->line, d->column,
                clrie_config_severity_string(d->severity), d->message);
    }
    fclose(f);
    if (!root)
        return s;
    char *r = relative_to(s, root);
    free(s);
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

double seconds_since(const struct timespec *start)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - start->tv_sec) + (double)(now.tv_nsec - start->tv_nsec) / 1e9;
}
