/* Settings (clrie/plugin.h): the <Settings> of the plugin's config entry through CLRIE's
 * IInstrumentationMethodAttachContext, flags, and lists of shell patterns. */
#include "clrie/os/env.h"
#include "clrie/os/match.h"
#include "clrie/os/strings.h"
#include "clrie/plugin.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int clrie_plugin_settings_each(IProfilerManager *manager, clrie_plugin_setting_fn fn, void *data)
{
    IInstrumentationMethodAttachContext *context = NULL;
    IEnumInstrumentationMethodSettings *settings = NULL;
    IProfilerStringManager *strings = NULL;
    int ret = 0;
    if (FAILED(manager->lpVtbl->QueryInterface(manager, &IID_IInstrumentationMethodAttachContext,
                                               (void **)&context)) ||
        FAILED(context->lpVtbl->EnumSettings(context, &settings))) {
        ret = -ENOSYS;
        goto out;
    }
    if (FAILED(manager->lpVtbl->QueryInterface(manager, &IID_IProfilerStringManager,
                                               (void **)&strings)))
        strings = NULL;
    IInstrumentationMethodSetting *setting;
    ULONG fetched;
    for (setting = NULL, fetched = 0;
         settings->lpVtbl->Next(settings, 1, &setting, &fetched) == S_OK && fetched == 1;
         setting = NULL, fetched = 0) {
        BSTR name = NULL, value = NULL;
        char *n = clrie_plugin_take_utf8(strings, setting->lpVtbl->GetName(setting, &name), &name);
        char *v =
            clrie_plugin_take_utf8(strings, setting->lpVtbl->GetValue(setting, &value), &value);
        if (n && v)
            fn(data, n, v); /* a setting whose name or value cannot be read is skipped */
        free(n);
        free(v);
        setting->lpVtbl->Release(setting);
    }
out:
    clrie_plugin_release(strings);
    clrie_plugin_release(settings);
    clrie_plugin_release(context);
    return ret;
}

struct setting_query {
    const char *name;
    char *buf;
    size_t size;
    int ret;
};

/* ASCII case-insensitive, whatever the process's locale. */
static bool same_name(const char *a, const char *b)
{
    for (;; a++, b++) {
        char x = *a >= 'A' && *a <= 'Z' ? (char)(*a - 'A' + 'a') : *a;
        char y = *b >= 'A' && *b <= 'Z' ? (char)(*b - 'A' + 'a') : *b;
        if (x != y)
            return false;
        if (!x)
            return true;
    }
}

static void setting_match(void *data, const char *name, const char *value)
{
    struct setting_query *q = data;
    if (q->ret != -ENOENT || !same_name(name, q->name))
        return;
    size_t len = strlen(value);
    q->ret = len < q->size ? 0 : -ENOSPC;
    if (q->size) {
        size_t n = len < q->size ? len : q->size - 1;
        memcpy(q->buf, value, n);
        q->buf[n] = '\0';
    }
}

int clrie_plugin_setting(IProfilerManager *manager, const char *name, char *buf, size_t size)
{
    struct setting_query q = {name, buf, size, -ENOENT};
    int ret = clrie_plugin_settings_each(manager, setting_match, &q);
    return ret == -ENOSYS ? ret : q.ret;
}

/* CLRIE_SETTING_<32 hex digits of the class ID, upper case>_ */
static void env_prefix(const CLSID *clsid, char out[48])
{
    snprintf(out, 48, "CLRIE_SETTING_%08X%04X%04X%02X%02X%02X%02X%02X%02X%02X%02X_",
             (unsigned)clsid->Data1, clsid->Data2, clsid->Data3, clsid->Data4[0], clsid->Data4[1],
             clsid->Data4[2], clsid->Data4[3], clsid->Data4[4], clsid->Data4[5], clsid->Data4[6],
             clsid->Data4[7]);
}

int clrie_plugin_env_settings_each(const CLSID *clsid, clrie_plugin_setting_fn fn, void *data)
{
    char prefix[48];
    env_prefix(clsid, prefix);
    size_t n = strlen(prefix);
    int found = 0;
    char *const *environment = clrie_os_environ(); /* UTF-8, also on Windows */
    if (!environment)
        return -ENOMEM;
    for (char *const *e = environment; *e; e++) {
        const char *eq = strchr(*e, '=');
        if (!eq || !clrie_os_env_entry_after(*e, prefix) || eq <= *e + n)
            continue;
        char *name = clrie_os_strndup(*e + n, (size_t)(eq - *e - (ptrdiff_t)n));
        if (!name)
            return -ENOMEM;
        fn(data, name, eq + 1);
        free(name);
        found++;
    }
    return found;
}

int clrie_plugin_host_read_settings_for(const struct clrie_plugin_host *host,
                                        IProfilerManager *manager, const CLSID *clsid,
                                        clrie_plugin_setting_fn fn, void *data)
{
    int ret = clrie_plugin_settings_each(manager, fn, data);
    int from_env = clsid ? clrie_plugin_env_settings_each(clsid, fn, data) : 0;
    if (ret == -ENOSYS && from_env <= 0) {
        char prefix[48] = "CLRIE_SETTING_<class ID>_";
        if (clsid)
            env_prefix(clsid, prefix);
        clrie_plugin_host_log(host, true,
                              "the engine hands out no settings (no "
                              "IInstrumentationMethodAttachContext) and no %s<Name> variable is "
                              "set; nothing will be instrumented",
                              prefix);
    }
    return from_env < 0 ? from_env : ret == -ENOSYS && from_env > 0 ? 0 : ret;
}

int clrie_plugin_host_read_settings(const struct clrie_plugin_host *host, IProfilerManager *manager,
                                    clrie_plugin_setting_fn fn, void *data)
{
    int ret = clrie_plugin_settings_each(manager, fn, data);
    if (ret == -ENOSYS)
        clrie_plugin_host_log(host, true,
                              "the engine hands out no settings (no "
                              "IInstrumentationMethodAttachContext); nothing will be "
                              "instrumented");
    return ret;
}

bool clrie_plugin_is_true(const char *value)
{
    return value && (strcmp(value, "1") == 0 || strcasecmp(value, "true") == 0 ||
                     strcasecmp(value, "yes") == 0 || strcasecmp(value, "on") == 0);
}

int clrie_plugin_patterns_add(struct clrie_plugin_patterns *patterns, const char *list)
{
    const char *at = list;
    while (at && *at) {
        const char *end = strchr(at, ';');
        size_t len = end ? (size_t)(end - at) : strlen(at);
        const char *item = at;
        at = end ? end + 1 : NULL;
        while (len && *item == ' ')
            item++, len--;
        while (len && item[len - 1] == ' ')
            len--;
        if (!len)
            continue;
        char **grown = realloc(patterns->items, (patterns->count + 1) * sizeof(*grown));
        if (!grown)
            return -ENOMEM;
        patterns->items = grown;
        char *copy = clrie_os_strndup(item, len);
        if (!copy)
            return -ENOMEM;
        patterns->items[patterns->count++] = copy;
    }
    return 0;
}

bool clrie_plugin_patterns_match(const struct clrie_plugin_patterns *patterns, const char *text)
{
    for (size_t i = 0; i < patterns->count; i++)
        if (clrie_os_match(patterns->items[i], text, 0))
            return true;
    return false;
}

bool clrie_plugin_patterns_match_wcs(const struct clrie_plugin_patterns *patterns,
                                     const WCHAR *text)
{
    if (patterns->count == 0)
        return false;
    char *utf8 = clrie_plugin_bstr_to_utf8(text);
    bool match = utf8 && clrie_plugin_patterns_match(patterns, utf8);
    free(utf8);
    return match;
}

void clrie_plugin_patterns_finish(struct clrie_plugin_patterns *patterns)
{
    for (size_t i = 0; i < patterns->count; i++)
        free(patterns->items[i]);
    free(patterns->items);
    patterns->items = NULL;
    patterns->count = 0;
}
