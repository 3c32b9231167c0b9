/* clrie-attach: loads the engine into a running .NET process through the runtime's
 * diagnostics endpoint (the IPC protocol's Profiler/AttachProfiler command), with attach data
 * in CLRIE's schema naming the configuration files to load, and says what the runtime
 * answered. See docs/attach.md. What differs between systems (the endpoint, the process, the
 * paths) is in endpoint.h, target.h and paths.h, one file per system behind each. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clrie/os/error.h"
#include "clrie/os/file.h"
#include "clrie/os/fs.h"
#include "clrie/os/process.h"
#include "endpoint.h"
#include "paths.h"
#include "target.h"

#define ENGINE_CLSID "{324F817A-7420-4E6D-B3C1-143FBED6D855}"

/* The engine's settings; every other --setting goes to the plugins. */
static const char *const engine_settings[] = {
    "LogLevel",         "LogFileLevel",     "LogFilePath", "Runtimes",    "RuntimeVersions",
    "IncludeProcesses", "ExcludeProcesses", "DetachFile",  "DetachAfter",
};

struct options {
    unsigned long pid;
    const char **configs;
    size_t config_count;
    const char **settings;
    size_t setting_count;
    const char *engine;
    unsigned timeout_s;
};

static void usage(FILE *out)
{
    fprintf(out, "usage: clrie-attach <pid> --config <file.xml>... [--setting Name=Value]...\n"
                 "                    [--engine <path>] [--timeout <seconds>]\n");
}

/* ---- the attach data --------------------------------------------------------------------- */

struct buffer {
    char *data;
    size_t len, cap;
    bool failed;
};

static void put(struct buffer *b, const char *fmt, ...) __attribute__((format(__printf__, 2, 3)));
static void put(struct buffer *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || b->failed)
        return;
    if (b->len + (size_t)n + 1 > b->cap) {
        size_t cap = (b->len + (size_t)n + 1) * 2;
        char *grown = realloc(b->data, cap);
        if (!grown) {
            b->failed = true;
            return;
        }
        b->data = grown;
        b->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

static void put_escaped(struct buffer *b, const char *text, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        switch (text[i]) {
        case '&':
            put(b, "&amp;");
            break;
        case '<':
            put(b, "&lt;");
            break;
        case '>':
            put(b, "&gt;");
            break;
        case '"':
            put(b, "&quot;");
            break;
        case '\'':
            put(b, "&apos;");
            break;
        default:
            put(b, "%c", text[i]);
        }
    }
}

static bool is_engine_setting(const char *setting)
{
    size_t n = strcspn(setting, "=");
    for (size_t i = 0; i < sizeof(engine_settings) / sizeof(engine_settings[0]); i++)
        if (strlen(engine_settings[i]) == n && strncmp(setting, engine_settings[i], n) == 0)
            return true;
    return false;
}

static void put_settings(struct buffer *b, const struct options *o, bool engine, const char *indent)
{
    bool any = false;
    for (size_t i = 0; i < o->setting_count; i++) {
        if (is_engine_setting(o->settings[i]) != engine)
            continue;
        if (!any)
            put(b, "%s<Settings>\n", indent);
        any = true;
        const char *eq = strchr(o->settings[i], '=');
        put(b, "%s  <Setting Name=\"", indent);
        put_escaped(b, o->settings[i], (size_t)(eq - o->settings[i]));
        put(b, "\" Value=\"");
        put_escaped(b, eq + 1, strlen(eq + 1));
        put(b, "\"/>\n");
    }
    if (any)
        put(b, "%s</Settings>\n", indent);
}

static char *attach_data(const struct options *o, const char *log_path)
{
    struct buffer b = {0};
    put(&b, "<InstrumentationEngineConfiguration>\n  <InstrumentationEngine>\n");
    struct options with_log = *o;
    const char *extra[2];
    char path_setting[4200];
    if (log_path) {
        snprintf(path_setting, sizeof(path_setting), "LogFilePath=%s", log_path);
        extra[0] = path_setting;
        extra[1] = "LogFileLevel=Errors|Messages";
        with_log.settings = calloc(o->setting_count + 2, sizeof(char *));
        if (!with_log.settings)
            return NULL;
        memcpy(with_log.settings, o->settings, o->setting_count * sizeof(char *));
        with_log.settings[o->setting_count] = extra[0];
        with_log.settings[o->setting_count + 1] = extra[1];
        with_log.setting_count += 2;
    }
    put_settings(&b, &with_log, true, "    ");
    put(&b, "  </InstrumentationEngine>\n  <InstrumentationMethods>\n");
    for (size_t i = 0; i < o->config_count; i++) {
        put(&b, "    <AddInstrumentationMethod ConfigPath=\"");
        put_escaped(&b, o->configs[i], strlen(o->configs[i]));
        put(&b, "\">\n");
        put_settings(&b, o, false, "      ");
        put(&b, "    </AddInstrumentationMethod>\n");
    }
    put(&b, "  </InstrumentationMethods>\n</InstrumentationEngineConfiguration>\n");
    if (log_path)
        free(with_log.settings);
    if (b.failed) {
        free(b.data);
        return NULL;
    }
    return b.data;
}

/* ---- the request ------------------------------------------------------------------------- */

/* The next code point of UTF-8 text at *p (advanced past it), or -1 when the bytes are not
 * UTF-8. */
static long next_code_point(const unsigned char **p)
{
    const unsigned char *s = *p;
    long c = s[0];
    int extra = c < 0x80                ? 0
                : c >= 0xC2 && c < 0xE0 ? 1
                : c >= 0xE0 && c < 0xF0 ? 2
                : c >= 0xF0 && c < 0xF5 ? 3
                                        : -1;
    if (extra < 0)
        return -1;
    if (extra > 0)
        c &= 0x3F >> extra;
    for (int i = 1; i <= extra; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return -1;
        c = c << 6 | (s[i] & 0x3F);
    }
    static const long least[] = {0, 0x80, 0x800, 0x10000};
    if (c < least[extra] || c > 0x10FFFF || (c >= 0xD800 && c < 0xE000))
        return -1;
    *p = s + extra + 1;
    return c;
}

/* The UTF-16 code units of UTF-8 text, without a NUL: how many, or -1 for text that is not
 * UTF-8. Written to out (little-endian) when out is not NULL. */
static long utf16_units(const char *text, uint8_t *out)
{
    long units = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p;) {
        long c = next_code_point(&p);
        if (c < 0)
            return -1;
        uint16_t unit[2] = {(uint16_t)c, 0};
        int n = 1;
        if (c >= 0x10000) {
            unit[0] = (uint16_t)(0xD800 + ((c - 0x10000) >> 10));
            unit[1] = (uint16_t)(0xDC00 + ((c - 0x10000) & 0x3FF));
            n = 2;
        }
        for (int i = 0; out && i < n; i++) {
            out[2 * (units + i)] = (uint8_t)unit[i];
            out[2 * (units + i) + 1] = (uint8_t)(unit[i] >> 8);
        }
        units += n;
    }
    return units;
}

static void put_u16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static bool parse_hex(const char *s, int digits, uint32_t *out)
{
    uint32_t v = 0;
    for (int i = 0; i < digits; i++) {
        char c = s[i];
        int d = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (d < 0)
            return false;
        v = v * 16 + (uint32_t)d;
    }
    *out = v;
    return true;
}

/* The GUID's 16 bytes as the runtime reads a CLSID: Data1..3 little-endian, then Data4. */
static void clsid_bytes(const char *text, uint8_t out[16])
{
    uint32_t v = 0; /* the text is ENGINE_CLSID, always whole */
    parse_hex(text + 1, 8, &v);
    put_u32(out, v);
    parse_hex(text + 10, 4, &v);
    put_u16(out + 4, (uint16_t)v);
    parse_hex(text + 15, 4, &v);
    put_u16(out + 6, (uint16_t)v);
    const int at[8] = {20, 22, 25, 27, 29, 31, 33, 35};
    for (int i = 0; i < 8; i++) {
        parse_hex(text + at[i], 2, &v);
        out[8 + i] = (uint8_t)v;
    }
}

/* Builds the AttachProfiler message (the engine's path in UTF-16, as the runtime reads it on
 * every system); returns its length, 0 when it does not fit or the path is not UTF-8. */
static size_t attach_message(uint8_t *msg, size_t size, unsigned timeout_ms, const char *engine,
                             const char *data)
{
    long units = utf16_units(engine, NULL);
    if (units < 0)
        return 0;
    size_t path_chars = (size_t)units + 1; /* UTF-16 code units with the NUL */
    size_t data_len = strlen(data);
    size_t total = 20 + 4 + 16 + 4 + path_chars * 2 + 4 + data_len;
    if (total > size || total > UINT16_MAX)
        return 0;
    memcpy(msg, "DOTNET_IPC_V1", 14); /* with its NUL */
    put_u16(msg + 14, (uint16_t)total);
    msg[16] = 0x03; /* Profiler */
    msg[17] = 0x01; /* AttachProfiler */
    put_u16(msg + 18, 0);
    size_t at = 20;
    put_u32(msg + at, timeout_ms);
    at += 4;
    clsid_bytes(ENGINE_CLSID, msg + at);
    at += 16;
    put_u32(msg + at, (uint32_t)path_chars);
    at += 4;
    utf16_units(engine, msg + at);
    put_u16(msg + at + 2 * (size_t)units, 0);
    at += 2 * path_chars;
    put_u32(msg + at, (uint32_t)data_len);
    at += 4;
    memcpy(msg + at, data, data_len);
    return at + data_len;
}

/* ---- the answer in words ----------------------------------------------------------------------
 */

/* Prints the engine's lines in its log that say why it declined or failed. */
static void print_engine_lines(const char *log_path)
{
    struct clrie_os_file *f = NULL;
    if (!log_path || clrie_os_file_open(log_path, 0, &f) != 0)
        return;
    static char text[1 << 16];
    size_t len = 0, got = 0;
    while (len < sizeof(text) - 1 &&
           clrie_os_file_read(f, text + len, sizeof(text) - 1 - len, &got) == 0 && got > 0)
        len += got;
    clrie_os_file_close(f);
    text[len] = '\0';
    bool any = false;
    for (char *line = text, *end; *line; line = end) {
        end = line + strcspn(line, "\n");
        if (*end)
            *end++ = '\0';
        if (!strstr(line, "LogError") && !strstr(line, "declines") && !strstr(line, "not profiled"))
            continue;
        if (!any)
            fprintf(stderr, "clrie-attach: the engine says:\n");
        any = true;
        fprintf(stderr, "  %.*s\n", (int)strcspn(line, "\r"), line);
    }
}

static int report(unsigned long pid, uint32_t hr, const char *engine, const char *log_path)
{
    switch (hr) {
    case 0:
        printf("clrie-attach: attached: the engine is loaded in process %lu\n", pid);
        if (log_path)
            printf("clrie-attach: the engine logs to %s\n", log_path);
        return 0;
    case 0x8013136Au:
        fprintf(stderr,
                "clrie-attach: refused: process %lu already has a profiler loaded (the "
                "runtime takes one; the engine may be in it already)\n",
                pid);
        return 1;
    case 0x80131375u:
        fprintf(stderr, "clrie-attach: refused by the engine: it declined to profile process %lu\n",
                pid);
        print_engine_lines(log_path);
        return 1;
    case 0x80131368u:
        fprintf(stderr, "clrie-attach: refused: the runtime says the profiler does not support "
                        "attach\n");
        return 1;
    case 0x800705B4u:
        fprintf(stderr, "clrie-attach: the attach timed out\n");
        return 1;
    case 0x80070005u:
        fprintf(stderr, "clrie-attach: refused: access denied\n");
        return 1;
    case 0x80070002u: /* the module's file, or one it needs, is not there */
    case 0x8007007Eu:
    case 0x800700C1u: /* not a module for the process's machine */
        fprintf(stderr, "clrie-attach: the runtime could not load the engine '%s' (0x%08X: %s)\n",
                engine, (unsigned)hr,
                hr == 0x800700C1u ? "not a module for this process's machine"
                                  : "the module, or one it needs, was not found");
        return 1;
    case 0x8007007Fu: /* no DllGetClassObject */
    case 0x80040111u: /* CLASS_E_CLASSNOTAVAILABLE */
        fprintf(stderr,
                "clrie-attach: the runtime loaded '%s' but it is not the engine (0x%08X: %s)\n",
                engine, (unsigned)hr,
                hr == 0x8007007Fu ? "it exports no DllGetClassObject"
                                  : "it does not make the engine's class");
        return 1;
    default:
        fprintf(stderr, "clrie-attach: the runtime answered 0x%08X: the attach failed\n",
                (unsigned)hr);
        print_engine_lines(log_path);
        return 1;
    }
}

/* ---- main ---------------------------------------------------------------------------------- */

static int parse_args(int argc, char **argv, struct options *o)
{
    *o = (struct options){.timeout_s = 30};
    o->configs = calloc((size_t)argc, sizeof(char *));
    o->settings = calloc((size_t)argc, sizeof(char *));
    if (!o->configs || !o->settings)
        return 2;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            exit(0);
        } else if (!strcmp(a, "--config") && value) {
            o->configs[o->config_count++] = value;
            i++;
        } else if (!strcmp(a, "--setting") && value) {
            if (!strchr(value, '=') || value[0] == '=' || !strchr(value, '=')[1]) {
                fprintf(stderr,
                        "clrie-attach: --setting %s: expected Name=Value, both "
                        "non-empty\n",
                        value);
                return 2;
            }
            o->settings[o->setting_count++] = value;
            i++;
        } else if (!strcmp(a, "--engine") && value) {
            o->engine = value;
            i++;
        } else if (!strcmp(a, "--timeout") && value) {
            char *end;
            unsigned long t = strtoul(value, &end, 10);
            if (*end || t == 0 || t > 3600) {
                fprintf(stderr, "clrie-attach: --timeout %s: expected 1 to 3600 seconds\n", value);
                return 2;
            }
            o->timeout_s = (unsigned)t;
            i++;
        } else if (a[0] != '-' && !o->pid) {
            char *end;
            errno = 0;
            unsigned long pid = strtoul(a, &end, 10);
            if (*end || pid == 0 || a[0] < '0' || a[0] > '9' || errno || pid > 0xFFFFFFFFul) {
                fprintf(stderr, "clrie-attach: '%s' is not a process ID\n", a);
                return 2;
            }
            o->pid = pid;
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (!o->pid || !o->config_count) {
        usage(stderr);
        return 2;
    }
    return 0;
}

/* An absolute, canonical path the target process can open (its working folder differs). */
static const char *absolute(const char *what, const char *path)
{
    char *real = NULL;
    int r = clrie_os_path_canonical(path, &real);
    if (r != 0) {
        char words[128];
        fprintf(stderr, "clrie-attach: %s '%s': %s\n", what, path,
                clrie_os_strerror(-r, words, sizeof(words)));
        return NULL;
    }
    return real;
}

/* DetachFile=<relative path> becomes absolute against this folder (the file need not exist
 * yet): the process has its own working folder. NULL after a line when that cannot be done. */
static const char *absolute_detach_file(const char *setting)
{
    const char *value = setting + strlen("DetachFile=");
    if (clrie_os_path_is_absolute(value) || value[0] == '\0')
        return setting;
    char *path = NULL, *out = NULL;
    int r = clrie_os_path_absolute(value, &path);
    if (r == 0 && (out = malloc(strlen("DetachFile=") + strlen(path) + 1)) != NULL)
        sprintf(out, "DetachFile=%s", path);
    free(path);
    if (!out) {
        char words[128];
        fprintf(stderr, "clrie-attach: --setting %s: cannot make it absolute: %s\n", setting,
                clrie_os_strerror(r ? -r : ENOMEM, words, sizeof(words)));
    }
    return out;
}

static int run(int argc, char **argv)
{
    struct options o;
    int rc = parse_args(argc, argv, &o);
    if (rc)
        return rc;
    for (size_t i = 0; i < o.config_count; i++)
        if (!(o.configs[i] = absolute("--config", o.configs[i])))
            return 2;
    char *default_engine = NULL;
    if (!o.engine && attach_default_engine(&default_engine) != 0) {
        fprintf(stderr, "clrie-attach: cannot tell where the engine installed with it is: give "
                        "--engine\n");
        return 2;
    }
    if (!(o.engine = absolute("--engine", o.engine ? o.engine : default_engine)))
        return 2;
    if (utf16_units(o.engine, NULL) < 0) {
        fprintf(stderr,
                "clrie-attach: --engine '%s': the path is not UTF-8, and the runtime takes "
                "it in UTF-16\n",
                o.engine);
        return 2;
    }
    for (size_t i = 0; i < o.setting_count; i++)
        if (strncmp(o.settings[i], "DetachFile=", strlen("DetachFile=")) == 0 &&
            !(o.settings[i] = absolute_detach_file(o.settings[i])))
            return 2;

    if (attach_target_exists(o.pid) != 0) {
        fprintf(stderr, "clrie-attach: no such process: %lu\n", o.pid);
        return 1;
    }
    /* The runtime waits timeout_s for the engine; the answer may take a little longer. */
    unsigned answer_s = o.timeout_s + 5;
    char why[1024];
    struct attach_endpoint *endpoint = NULL;
    if (attach_endpoint_open(o.pid, answer_s * 1000u, &endpoint, why, sizeof(why)) != 0) {
        fprintf(stderr, "clrie-attach: %s\n", why);
        return 1;
    }

    bool user_log = false;
    for (size_t i = 0; i < o.setting_count; i++)
        user_log = user_log || !strncmp(o.settings[i], "LogFilePath=", 12);
    char *log_path = NULL;
    if (!user_log)
        attach_target_log_create(o.pid, &log_path); /* without one, no reasons are printed */
    char *data = attach_data(&o, log_path);
    static uint8_t msg[UINT16_MAX];
    size_t len = data ? attach_message(msg, sizeof(msg), o.timeout_s * 1000u, o.engine, data) : 0;
    if (!len) {
        fprintf(stderr, "clrie-attach: the attach request is too large (over 64 KiB)\n");
        attach_endpoint_close(endpoint);
        attach_target_log_remove(log_path);
        return 2;
    }
    uint8_t answer[24];
    int r = attach_endpoint_exchange(endpoint, msg, len, answer, sizeof(answer), answer_s * 1000u,
                                     why, sizeof(why));
    attach_endpoint_close(endpoint);
    if (r != 0) {
        if (r == -ETIMEDOUT)
            fprintf(stderr, "clrie-attach: timeout: no answer from process %lu within %u s\n",
                    o.pid, answer_s);
        else if (r == -EPIPE)
            fprintf(stderr, "clrie-attach: process %lu closed the connection without an answer\n",
                    o.pid);
        else
            fprintf(stderr, "clrie-attach: %s\n", why);
        return 1;
    }
    if (memcmp(answer, "DOTNET_IPC_V1", 14) != 0 || answer[16] != 0xFF) {
        fprintf(stderr,
                "clrie-attach: process %lu answered something that is not a diagnostics "
                "answer\n",
                o.pid);
        return 1;
    }
    uint32_t hr = (uint32_t)answer[20] | (uint32_t)answer[21] << 8 | (uint32_t)answer[22] << 16 |
                  (uint32_t)answer[23] << 24;
    rc = report(o.pid, hr, o.engine, log_path);
    if (rc != 0)
        attach_target_log_remove(log_path);
    return rc;
}

int main(int argc, char **argv)
{
    int status = clrie_os_process_main(argc, argv, run);
    fflush(stdout);
    return status;
}
