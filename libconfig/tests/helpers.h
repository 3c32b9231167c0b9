/* Shared by the libconfig tests. */
#ifndef CLRIE_CONFIG_TEST_HELPERS_H
#define CLRIE_CONFIG_TEST_HELPERS_H

#include <stddef.h>
#include <stdint.h>

#include "clrie/config.h"

#define GUID_A "{249E89A6-12D9-4E03-82FF-7FEAA41310E9}"
#define GUID_B "{00000000-0000-0000-0000-00000000000B}"
#define GUID_C "{00000000-0000-0000-0000-00000000000C}"
#define GUID_D "{00000000-0000-0000-0000-00000000000D}"

#define HEAD "<InstrumentationEngineConfiguration>\n"
#define TAIL "</InstrumentationEngineConfiguration>\n"

/* One method element on one line, Module "plugin.so"; priority NULL leaves it out. Malloc'd. */
char *method(const char *name, const char *guid, const char *priority);

/* HEAD, the given strings (NULL-terminated list), TAIL. Malloc'd. */
char *document(const char *first, ...);

void write_text(const char *root, const char *relative, const char *text);

/* A new tree holding a module "plugin.so" configurations can name. Free with
 * test_tree_free. */
char *new_tree(void);

/* Writes a document of count methods (each a malloc'd string, freed here) to root/relative. */
void write_methods(const char *root, const char *relative, int count, ...);

/* text with every occurrence of root replaced by "ROOT". Malloc'd. */
char *relative_to(const char *text, const char *root);

/* The methods as "priority guid name" lines ("-" for none). Malloc'd. */
char *list(const struct clrie_config *config);

/* The problems as "file:line:col: severity: message" lines, root shown as ROOT, '/' between
 * folders on every system. Malloc'd. */
char *problems(const struct clrie_config *config, const char *root);

void expect_list(const struct clrie_config *config, const char *expected);
void expect_problems(const struct clrie_config *config, const char *root, const char *expected);

/* Loads text from memory as "t.config" with relative Modules resolved in root. */
int load_text(struct clrie_config *config, const char *root, const char *text);

/* A growable string (what open_memstream gives, which not every C library has): zero it, add
 * to it with text_append; data is malloc'd and NUL-terminated once anything was added. */
struct text {
    char *data;
    size_t len, capacity;
};

void text_append(struct text *t, const char *fmt, ...) __attribute__((format(__printf__, 2, 3)));

/* Seconds since start, a clrie_os_monotonic_ns() reading. */
double seconds_since(uint64_t start);

#endif
