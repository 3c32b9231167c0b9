/* clrie-config: shows which instrumentation methods a set of configuration files (or the
 * environment) gives, in load order, and every problem found on the way.
 *
 *   clrie-config check PATH...   files or folders, as an environment variable would list them
 *   clrie-config env             what the engine would find in this environment
 *
 * stdout: one line per method, "priority<TAB>ClassGuid<TAB>name<TAB>module path", priority
 * "-" when the method has none (it loads after all that have one). stderr: problems as
 * "file:line:col: error: message" (line and column left out when they do not apply).
 * Exit status: 0 no error, 1 some error, 2 usage. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clrie/config.h"
#include "clrie/os/env.h"

static void usage(FILE *out)
{
    fprintf(out, "usage: clrie-config check PATH...   check configuration files or folders\n"
                 "       clrie-config env             check what the environment configures\n"
                 "\n"
                 "Prints the instrumentation methods in load order, one per line:\n"
                 "  priority<TAB>ClassGuid<TAB>name<TAB>module path   (priority '-' when none)\n"
                 "and problems on stderr as file:line:col: error|warning: message.\n"
                 "Files and modules writable by group or others, or owned by another user than\n"
                 "you or root, are refused unless " CLRIE_CONFIG_ENV_DISABLE_TRUST "=1.\n"
                 "Exit status: 0 no error, 1 errors found, 2 usage error.\n");
}

/* Prints text with control characters escaped, so one method stays one line. */
static void put_field(const char *text)
{
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (*p == '\t')
            fputs("\\t", stdout);
        else if (*p == '\n')
            fputs("\\n", stdout);
        else if (*p == '\\')
            fputs("\\\\", stdout);
        else if (*p < 0x20 || *p == 0x7F)
            printf("\\x%02X", *p);
        else
            putchar(*p);
    }
}

static int print_result(const struct clrie_config *config)
{
    for (size_t i = 0; i < clrie_config_method_count(config); i++) {
        const struct clrie_config_method *m = clrie_config_method_at(config, i);
        if (m->has_priority)
            printf("%lu\t", (unsigned long)m->priority);
        else
            fputs("-\t", stdout);
        printf("%s\t", m->class_guid_text);
        put_field(m->name);
        putchar('\t');
        put_field(m->module_path);
        putchar('\n');
    }
    fflush(stdout);
    for (size_t i = 0; i < clrie_config_diag_count(config); i++) {
        const struct clrie_config_diag *d = clrie_config_diag_at(config, i);
        if (d->line && d->column)
            fprintf(stderr, "%s:%u:%u: ", d->file, d->line, d->column);
        else if (d->line)
            fprintf(stderr, "%s:%u: ", d->file, d->line);
        else
            fprintf(stderr, "%s: ", d->file);
        fprintf(stderr, "%s: %s\n", clrie_config_severity_string(d->severity), d->message);
    }
    return clrie_config_error_count(config) > 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        usage(stdout);
        return 0;
    }
    bool check = argc >= 3 && strcmp(argv[1], "check") == 0;
    bool env = argc == 2 && strcmp(argv[1], "env") == 0;
    if (!check && !env) {
        usage(stderr);
        return 2;
    }
    struct clrie_config *config = clrie_config_new();
    if (!config) {
        fprintf(stderr, "clrie-config: out of memory\n");
        return 1;
    }
    int r = 0;
    if (env) {
        r = clrie_config_load_env(config, clrie_os_environ());
    } else {
        const char *disable = getenv(CLRIE_CONFIG_ENV_DISABLE_TRUST);
        struct clrie_config_options opts = {
            .trust_check = !(disable && strcmp(disable, "1") == 0),
        };
        for (int i = 2; i < argc && r != -ENOMEM; i++) {
            int one = clrie_config_load_path(config, argv[i], &opts);
            if (one == -ENOMEM)
                r = one;
        }
    }
    int status = print_result(config);
    if (r == -ENOMEM) {
        fprintf(stderr, "clrie-config: out of memory\n");
        status = 1;
    }
    clrie_config_free(config);
    return status;
}
