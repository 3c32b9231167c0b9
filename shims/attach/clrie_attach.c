/* clrie-attach: loads the engine into a running .NET process through the runtime's
 * diagnostics socket (the IPC protocol's Profiler/AttachProfiler command), with attach data
 * in CLRIE's schema naming the configuration files to load, and says what the runtime
 * answered. See docs/attach.md. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#ifndef CLRIE_ATTACH_DEFAULT_ENGINE
#define CLRIE_ATTACH_DEFAULT_ENGINE "libInstrumentationEngine.so"
#endif

#define ENGINE_CLSID "{324F817A-7420-4E6D-B3C1-143FBED6D855}"

/* The engine's settings; every other --setting goes to the plugins. */
static const char *const engine_settings[] = {
    "LogLevel",         "LogFileLevel",     "LogFilePath", "Runtimes",    "RuntimeVersions",
    "IncludeProcesses", "ExcludeProcesses", "DetachFile",  "DetachAfter",
};

struct options {
    long pid;
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

/* ---- the diagnostics socket ---------------------------------------------------------------- */

static const char *temp_dir(void)
{
    const char *dir = getenv("TMPDIR");
    return dir && *dir ? dir : "/tmp";
}

/* The process start time in jiffies: field 22 of /proc/<pid>/stat. */
static bool start_time(long pid, unsigned long long *out)
{
    char path[64], text[1024];
    snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, text, sizeof(text) - 1);
    close(fd);
    if (n <= 0)
        return false;
    text[n] = '\0';
    char *p = strrchr(text, ')'); /* the command name may hold spaces */
    if (!p)
        return false;
    p++;
    for (int field = 3; field <= 22 && p; field++) {
        while (*p == ' ')
            p++;
        if (field == 22)
            return sscanf(p, "%llu", out) == 1;
        p = strchr(p, ' ');
    }
    return false;
}

/* The socket's path in dir: the exact name, else any dotnet-diagnostic-<pid>-*-socket. */
static bool find_socket(const char *dir, long pid, unsigned long long key, bool have_key, char *out,
                        size_t size)
{
    struct stat st;
    if (have_key) {
        snprintf(out, size, "%s/dotnet-diagnostic-%ld-%llu-socket", dir, pid, key);
        if (stat(out, &st) == 0 && S_ISSOCK(st.st_mode))
            return true;
    }
    char prefix[64];
    snprintf(prefix, sizeof(prefix), "dotnet-diagnostic-%ld-", pid);
    DIR *d = opendir(dir);
    if (!d)
        return false;
    bool found = false;
    for (struct dirent *e; !found && (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0 && n > 7 &&
            strcmp(e->d_name + n - 7, "-socket") == 0) {
            snprintf(out, size, "%s/%s", dir, e->d_name);
            found = stat(out, &st) == 0 && S_ISSOCK(st.st_mode);
        }
    }
    closedir(d);
    return found;
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
    uint32_t v;
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

/* Builds the AttachProfiler message; returns its length, 0 when it does not fit. */
static size_t attach_message(uint8_t *msg, size_t size, unsigned timeout_ms, const char *engine,
                             const char *data)
{
    size_t path_chars = strlen(engine) + 1; /* UTF-16 code units with the NUL; ASCII assumed */
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
    for (size_t i = 0; i < path_chars; i++) {
        put_u16(msg + at, (uint8_t)engine[i]);
        at += 2;
    }
    put_u32(msg + at, (uint32_t)data_len);
    at += 4;
    memcpy(msg + at, data, data_len);
    return at + data_len;
}

/* ---- the answer in words ----------------------------------------------------------------------
 */

/* Prints the engine's lines written to the log since offset `from`. */
static void print_engine_lines(const char *log_path, off_t from)
{
    FILE *f = log_path ? fopen(log_path, "r") : NULL;
    if (!f)
        return;
    fseeko(f, from, SEEK_SET);
    char line[2048];
    bool any = false;
    while (fgets(line, sizeof(line), f)) {
        if (!strstr(line, "LogError") && !strstr(line, "declines") && !strstr(line, "not profiled"))
            continue;
        if (!any)
            fprintf(stderr, "clrie-attach: the engine says:\n");
        any = true;
        fprintf(stderr, "  %s", line);
    }
    fclose(f);
}

static int report(long pid, uint32_t hr, const char *log_path, off_t log_from, bool keep_log)
{
    switch (hr) {
    case 0:
        printf("clrie-attach: attached: the engine is loaded in process %ld\n", pid);
        if (log_path && keep_log)
            printf("clrie-attach: the engine logs to %s\n", log_path);
        return 0;
    case 0x8013136Au:
        fprintf(stderr,
                "clrie-attach: refused: process %ld already has a profiler loaded (the "
                "runtime takes one; the engine may be in it already)\n",
                pid);
        return 1;
    case 0x80131375u:
        fprintf(stderr, "clrie-attach: refused by the engine: it declined to profile process %ld\n",
                pid);
        print_engine_lines(log_path, log_from);
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
    default:
        fprintf(stderr, "clrie-attach: the runtime answered 0x%08X: the attach failed\n",
                (unsigned)hr);
        print_engine_lines(log_path, log_from);
        return 1;
    }
}

/* ---- main ---------------------------------------------------------------------------------- */

static int parse_args(int argc, char **argv, struct options *o)
{
    *o = (struct options){.engine = CLRIE_ATTACH_DEFAULT_ENGINE, .timeout_s = 30};
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
            long pid = strtol(a, &end, 10);
            if (*end || pid <= 0) {
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
    char *real = realpath(path, NULL);
    if (!real)
        fprintf(stderr, "clrie-attach: %s '%s': %s\n", what, path, strerror(errno));
    return real;
}

/* DetachFile=<relative path> becomes absolute against this folder (the file need not exist
 * yet): the process has its own working folder. NULL after a line when that cannot be done. */
static const char *absolute_detach_file(const char *setting)
{
    const char *value = setting + strlen("DetachFile=");
    if (value[0] == '/' || value[0] == '\0')
        return setting;
    char cwd[4096];
    char *out = NULL;
    if (!getcwd(cwd, sizeof(cwd)) || asprintf(&out, "DetachFile=%s/%s", cwd, value) < 0) {
        fprintf(stderr, "clrie-attach: --setting %s: cannot make it absolute: %s\n", setting,
                strerror(errno));
        return NULL;
    }
    return out;
}

/* A log file for the engine in the temporary folder, writable by the target's user. */
static char *make_log(long pid, uid_t owner)
{
    char *path = NULL;
    if (asprintf(&path, "%s/clrie-attach-%ld-XXXXXX.log", temp_dir(), pid) < 0)
        return NULL;
    int fd = mkstemps(path, 4);
    if (fd < 0) {
        free(path);
        return NULL;
    }
    if (owner != geteuid() && fchown(fd, owner, (gid_t)-1) != 0) {
        close(fd);
        unlink(path);
        free(path);
        return NULL;
    }
    close(fd);
    return path;
}

int main(int argc, char **argv)
{
    struct options o;
    int rc = parse_args(argc, argv, &o);
    if (rc)
        return rc;
    for (size_t i = 0; i < o.config_count; i++)
        if (!(o.configs[i] = absolute("--config", o.configs[i])))
            return 2;
    if (!(o.engine = absolute("--engine", o.engine)))
        return 2;
    for (size_t i = 0; i < o.setting_count; i++)
        if (strncmp(o.settings[i], "DetachFile=", strlen("DetachFile=")) == 0 &&
            !(o.settings[i] = absolute_detach_file(o.settings[i])))
            return 2;

    char proc[64];
    struct stat proc_st;
    snprintf(proc, sizeof(proc), "/proc/%ld", o.pid);
    if (stat(proc, &proc_st) != 0) {
        fprintf(stderr, "clrie-attach: no such process: %ld\n", o.pid);
        return 1;
    }
    unsigned long long key = 0;
    bool have_key = start_time(o.pid, &key);
    char socket_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    if (!find_socket(temp_dir(), o.pid, key, have_key, socket_path, sizeof(socket_path)) &&
        !find_socket("/tmp", o.pid, key, have_key, socket_path, sizeof(socket_path))) {
        fprintf(stderr,
                "clrie-attach: process %ld has no diagnostics socket in %s: it is not a .NET "
                "process, its diagnostics are off (DOTNET_EnableDiagnostics=0), or it has "
                "another TMPDIR\n",
                o.pid, temp_dir());
        return 1;
    }

    bool user_log = false;
    for (size_t i = 0; i < o.setting_count; i++)
        user_log = user_log || !strncmp(o.settings[i], "LogFilePath=", 12);
    char *log_path = user_log ? NULL : make_log(o.pid, proc_st.st_uid);
    char *data = attach_data(&o, log_path);
    static uint8_t msg[UINT16_MAX];
    size_t len = data ? attach_message(msg, sizeof(msg), o.timeout_s * 1000u, o.engine, data) : 0;
    if (!len) {
        fprintf(stderr, "clrie-attach: the attach request is too large (over 64 KiB)\n");
        return 2;
    }

    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", socket_path);
    if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0) {
        int err = errno;
        if (err == EACCES || err == EPERM)
            fprintf(stderr,
                    "clrie-attach: permission denied on %s: process %ld belongs to user %u; "
                    "run as that user (or as root, where the system allows it)\n",
                    socket_path, o.pid, (unsigned)proc_st.st_uid);
        else
            fprintf(stderr, "clrie-attach: cannot connect to %s: %s (has the process exited?)\n",
                    socket_path, strerror(err));
        if (log_path)
            unlink(log_path);
        return 1;
    }
    struct timeval wait = {.tv_sec = o.timeout_s + 5};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof(wait));
    for (size_t sent = 0; sent < len;) {
        ssize_t n = send(fd, msg + sent, len - sent, MSG_NOSIGNAL);
        if (n <= 0) {
            fprintf(stderr, "clrie-attach: sending the request failed: %s\n", strerror(errno));
            return 1;
        }
        sent += (size_t)n;
    }
    uint8_t answer[24];
    size_t got = 0;
    while (got < sizeof(answer)) {
        ssize_t n = recv(fd, answer + got, sizeof(answer) - got, 0);
        if (n <= 0) {
            if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
                fprintf(stderr, "clrie-attach: timeout: no answer from process %ld within %u s\n",
                        o.pid, o.timeout_s + 5);
            else
                fprintf(stderr,
                        "clrie-attach: process %ld closed the connection without an "
                        "answer\n",
                        o.pid);
            return 1;
        }
        got += (size_t)n;
    }
    close(fd);
    if (memcmp(answer, "DOTNET_IPC_V1", 14) != 0 || answer[16] != 0xFF) {
        fprintf(stderr,
                "clrie-attach: process %ld answered something that is not a diagnostics "
                "answer\n",
                o.pid);
        return 1;
    }
    uint32_t hr = (uint32_t)answer[20] | (uint32_t)answer[21] << 8 | (uint32_t)answer[22] << 16 |
                  (uint32_t)answer[23] << 24;
    rc = report(o.pid, hr, log_path, 0, true);
    if (rc != 0 && log_path)
        unlink(log_path);
    return rc;
}
