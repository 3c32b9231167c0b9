/* libconfig internals shared by its source files. */
#ifndef CLRIE_CONFIG_PRIVATE_H
#define CLRIE_CONFIG_PRIVATE_H

#include "clrie/config.h"

#include <stdarg.h>

#include "clrie/os/error.h"

/* A method being built while its file is parsed; owns its strings until committed. */
struct method_draft {
    struct clrie_config_method m;
    struct clrie_config_setting *settings;
    size_t settings_capacity;
};

/* The outcome of parsing one document: the methods and problems of that one file, kept apart
 * from the collection until the file is known to be acceptable. */
struct file_result {
    const char *file; /* borrowed: the name problems are reported under */
    struct method_draft *methods;
    size_t count, capacity;
    struct clrie_config_diag *diags;
    size_t diag_count, diag_capacity;
    size_t errors;
    bool truncated; /* the last problem says the rest was not checked */
    bool out_of_memory;
};

void clrie_config__file_result_init(struct file_result *r, const char *file);
void clrie_config__file_result_finish(struct file_result *r);

/* Records a problem of r->file. Sets r->out_of_memory when it cannot. */
void clrie_config__file_result_report(struct file_result *r, enum clrie_config_severity severity,
                                      unsigned line, unsigned column, const char *fmt, ...)
    __attribute__((format(__printf__, 5, 6)));
void clrie_config__file_result_vreport(struct file_result *r, enum clrie_config_severity severity,
                                       unsigned line, unsigned column, const char *fmt, va_list ap)
    __attribute__((format(__printf__, 5, 0)));

/* A new empty draft at the end of r->methods, or NULL (out of memory). */
struct method_draft *clrie_config__file_result_add_method(struct file_result *r);
void clrie_config__method_draft_finish(struct method_draft *d);

/* Parses an XML document already in memory into r (parse.c). base_dir resolves relative
 * Modules (NULL: they are errors). */
void clrie_config__parse_document(struct file_result *r, const char *data, size_t len,
                                  const char *base_dir, const struct clrie_config_options *opts);

/* Files on disk (paths.c). */

/* Appended to a refusal by the trust rule: how to switch the rule off. */
#define TRUST_HINT "; refused unless " CLRIE_CONFIG_ENV_DISABLE_TRUST "=1"

/* The trust rule (trust_posix.c, trust_win32.c) for a file already open, whose canonical path
 * is canonical_path. As clrie_config_trust_check. */
struct clrie_os_file;
int clrie_config__trust_file(struct clrie_os_file *file, const char *canonical_path, char *why,
                             size_t why_len);

/* snprintf into why when why is not NULL and why_len not 0. */
void clrie_config__why(char *why, size_t why_len, const char *fmt, ...)
    __attribute__((format(__printf__, 3, 4)));

/* dir and name joined by one separator, malloc'd; NULL when out of memory. */
char *clrie_config__path_join(const char *dir, const char *name);

/* Checks that a path names an existing regular file we may trust, and canonicalises it.
 * Returns a malloc'd canonical path, or NULL with a problem reported at
 * line:column (or with r->out_of_memory set). */
char *clrie_config__resolve_module(struct file_result *r, const char *module, const char *base_dir,
                                   const struct clrie_config_options *opts, unsigned line,
                                   unsigned column);

/* Moves the methods and problems of r into config (config.c): the problems always, the
 * methods only when r has no error. Returns 0 or -ENOMEM. */
int clrie_config__commit(struct clrie_config *config, struct file_result *r);

/* Adds one problem directly to config (config.c). Returns 0 or -ENOMEM. */
int clrie_config__report(struct clrie_config *config, enum clrie_config_severity severity,
                         const char *file, const char *fmt, ...)
    __attribute__((format(__printf__, 4, 5)));

/* Values of elements (values.c). */
int clrie_config__parse_priority(const char *text, uint32_t *out);
bool clrie_config__is_xml_space(char c);

#endif
