/* libInstrumentationEngine.ProfilerProxy.so (InstrumentationEngine.ProfilerProxy_x64.dll and
 * _x86.dll on Windows): the stable path products point CoreCLR at.
 *
 * On the first DllGetClassObject it finds the install root (install_root() below says how),
 * chooses the newest eligible engine with libversion, checks it (libconfig's module check: a
 * complete shared object or DLL of this machine that the trust rule accepts), loads it once and
 * forwards to it. Every failure is returned as an HRESULT and explained in one log line; nothing
 * fails in silence. It logs through the engine's own log (libprofmgr core: log.o, env.o), so both
 * read the logging variables alike and write the same lines to the same file; the proxy's lines
 * say "clrie proxy: " after the prefix.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clrie/abi/base.h"
#include "clrie/config.h"
#include "clrie/os/error.h"
#include "clrie/os/fs.h"
#include "clrie/os/module.h"
#include "clrie/os/thread.h"
#include "clrie/version.h"
#include "env.h"
#include "install_root.h"
#include "log.h"

#define HRESULT_ERROR_FILE_NOT_FOUND ((HRESULT)0x80070002)
#define HRESULT_ERROR_PROC_NOT_FOUND ((HRESULT)0x8007007F)
#define HRESULT_ERROR_BAD_EXE_FORMAT ((HRESULT)0x800700C1)

/* engine_lock protects the three engine_* variables below and is held while forwarding, so
 * DllCanUnloadNow cannot unload an engine another thread is calling into. */
static struct clrie_os_mutex engine_lock = CLRIE_OS_MUTEX_INIT;
static struct clrie_os_module *engine_handle;
static LPFNGETCLASSOBJECT engine_get_class_object;
static LPFNCANUNLOADNOW engine_can_unload_now;

/* Any object of this file: the loader names the file that holds it, the proxy's own. */
static const char own_address_marker;

CLRIE_ABI_EXPORT HRESULT STDAPICALLTYPE DllGetClassObject(const GUID *clsid, const GUID *iid,
                                                          void **out);
CLRIE_ABI_EXPORT HRESULT STDAPICALLTYPE DllCanUnloadNow(void);

/* The proxy's log, configured from the environment the first time the proxy has something to
 * say. It is never finished: lines may come from any thread until the process ends. */
static struct clrie_os_once log_once = CLRIE_OS_ONCE_INIT;
static struct clrie_pm_log proxy_log_storage;

static void proxy_log_init(void)
{
    /* Out of memory here leaves a log without per-plugin levels, which the proxy never uses. */
    clrie_pm_log_init_tagged(&proxy_log_storage, clrie_pm_env_engine(), "clrie proxy: ");
}

static struct clrie_pm_log *proxy_log(void)
{
    clrie_os_once_run(&log_once, proxy_log_init);
    return &proxy_log_storage;
}

/* Whether a and b are equal, ASCII letters in any case. */
static bool ascii_equal_folded(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        char x = *a >= 'A' && *a <= 'Z' ? (char)(*a - 'A' + 'a') : *a;
        char y = *b >= 'A' && *b <= 'Z' ? (char)(*b - 'A' + 'a') : *b;
        if (x != y)
            return false;
    }
    return *a == *b;
}

/* A switch (env.h); a value that is none of 1, 0, true, false is off and said so. */
static bool env_switch(const char *name)
{
    bool on;
    if (clrie_pm_env_switch(clrie_pm_env_engine(), name, &on) == 0)
        return on;
    struct clrie_pm_log_line line;
    clrie_pm_log_line_begin(&line, proxy_log(), CLRIE_PM_LOG_ERRORS, NULL, "ignoring %s=", name);
    clrie_pm_log_line_append_escaped(&line, clrie_pm_env_lookup(clrie_pm_env_engine(), name));
    clrie_pm_log_line_append(&line, ": expected 1 or 0");
    clrie_pm_log_line_end(&line);
    return false;
}

/* The folder two levels above the one this file is in: <root>/Proxy/v<MAJOR>/<this file>.
 * *in_layout says whether those two folders are named so (in any case, as Windows names
 * folders), that is whether the proxy sits in an install rather than in a product's folder. */
static char *root_from_own_location(bool *in_layout)
{
    char *file = NULL, *path = NULL;
    *in_layout = false;
    if (clrie_os_module_path_of(&own_address_marker, &file) != 0)
        return NULL;
    if (clrie_os_path_canonical(file, &path) != 0)
        path = NULL;
    free(file);
    char version_folder[32];
    snprintf(version_folder, sizeof(version_folder), "v%d", CLRIE_ENGINE_MAJOR);
    bool named[3] = {true, false, false};
    for (int up = 0; path && up < 3; up++) {
        char *last = NULL;
        for (char *p = path; *p; p++)
            if (clrie_os_is_separator(*p))
                last = p;
        if (!last || last == path || (last == path + 2 && path[1] == ':')) {
            free(path); /* a root has no folder two levels above a file in it */
            return NULL;
        }
        if (up > 0)
            named[up] = ascii_equal_folded(last + 1, up == 1 ? version_folder : "Proxy");
        *last = '\0';
    }
    *in_layout = named[1] && named[2];
    return path;
}

/* The install root: InstrumentationEngineProxy_RootPath; else, for a proxy in an install's
 * Proxy\v<MAJOR> folder, that install; else the system's install location where it has one
 * (Windows: CLRIE's folder under %ProgramFiles%, install_root.h); else, as on Linux, the folder
 * two levels above the proxy's own. NULL after an error line, or when out of memory. */
static char *install_root(void)
{
    const char *root_override =
        clrie_pm_env_path(clrie_pm_env_engine(), "InstrumentationEngineProxy_RootPath");
    if (root_override) {
        char *root = strdup(root_override);
        if (!root)
            CLRIE_PM_LOG_ERROR(proxy_log(), "out of memory");
        return root;
    }
    bool in_layout;
    char *own = root_from_own_location(&in_layout);
    if (in_layout)
        return own;
    char *system = NULL;
    char why[128];
    int r = proxy_install_root(&system, why, sizeof(why));
    if (r == 0) {
        free(own);
        return system;
    }
    if (r == -ENOMEM) {
        CLRIE_PM_LOG_ERROR(proxy_log(), "out of memory");
        free(own);
        return NULL;
    }
    if (!own)
        CLRIE_PM_LOG_ERROR(proxy_log(),
                           "cannot tell which folder this proxy was loaded from, and %s; set "
                           "InstrumentationEngineProxy_RootPath to the install root", why);
    return own;
}

static void log_selection_failure(const struct clrie_version_select_options *opts,
                                  const struct clrie_version_selection *sel)
{
    struct clrie_pm_log_line line;
    clrie_pm_log_line_begin(&line, proxy_log(), CLRIE_PM_LOG_ERRORS, NULL,
                            "no eligible engine under '");
    clrie_pm_log_line_append_escaped(&line, opts->root);
    clrie_pm_log_line_append(
        &line, "' (looking for major %" PRIu64 ", %s builds, previews %s, file %s%c%s", opts->major,
        opts->use_debug ? "debug" : "release", opts->use_preview ? "allowed" : "excluded",
        opts->arch_folder, CLRIE_OS_SEPARATOR, opts->engine_file);
    if (opts->specific_version) {
        clrie_pm_log_line_append(&line, ", InstrumentationEngineProxy_UseSpecificVersion=");
        clrie_pm_log_line_append_escaped(&line, opts->specific_version);
    }
    clrie_pm_log_line_append(&line, ")");
    if (sel->root_error) {
        char buf[128];
        clrie_pm_log_line_append(&line, ": cannot read the root folder: %s",
                                 clrie_os_strerror(sel->root_error, buf, sizeof(buf)));
    } else if (sel->count == 0) {
        clrie_pm_log_line_append(&line, ": the root folder is empty");
    } else {
        char buf[128];
        for (size_t i = 0; i < sel->count; i++) {
            const struct clrie_version_candidate *c = &sel->candidates[i];
            clrie_pm_log_line_append(&line, i == 0 ? ": '" : "; '");
            clrie_pm_log_line_append_escaped(&line, c->name);
            clrie_pm_log_line_append(&line, "' %s", clrie_version_verdict_string(c->verdict));
            if (c->verdict == CLRIE_VERSION_BAD_NAME)
                clrie_pm_log_line_append(&line, " (at byte %zu)", c->offset);
            else if (c->error)
                clrie_pm_log_line_append(&line, " (%s)",
                                         clrie_os_strerror(c->error, buf, sizeof(buf)));
        }
    }
    clrie_pm_log_line_end(&line);
}

/* Checks the chosen engine as the engine checks its plugins (clrie_config_module_check): a
 * complete shared object or DLL of this machine, and the trust rule unless
 * MicrosoftInstrumentationEngine_DisableCodeSignatureValidation=1, which is said in one line.
 * Returns S_OK and the canonical path to load, or an HRESULT after one error line. */
static HRESULT check_engine(const char *path, char **canonical)
{
    const char *disable =
        clrie_pm_env_lookup(clrie_pm_env_engine(), CLRIE_CONFIG_ENV_DISABLE_TRUST);
    unsigned checks = CLRIE_CONFIG_CHECK_IMAGE;
    if (disable && strcmp(disable, "1") == 0) /* set on purpose: a message, as the engine's */
        CLRIE_PM_LOG_MESSAGE(proxy_log(), CLRIE_CONFIG_ENV_DISABLE_TRUST
                             "=1: the trust check is off; the "
                             "engine loads whoever can write it or the folders above it");
    else
        checks |= CLRIE_CONFIG_CHECK_TRUST;
    char why[CLRIE_CONFIG_REASON_SIZE];
    int r = clrie_config_module_check(path, checks, canonical, why, sizeof(why));
    if (r == 0)
        return S_OK;
    if (r == -ENOMEM)
        return E_OUTOFMEMORY;
    bool trust = r == -EACCES || r == -EPERM;
    struct clrie_pm_log_line line;
    clrie_pm_log_line_begin(&line, proxy_log(), CLRIE_PM_LOG_ERRORS, NULL, "cannot load engine '");
    clrie_pm_log_line_append_escaped(&line, path);
    clrie_pm_log_line_append(&line, "': ");
    clrie_pm_log_line_append_escaped(&line, why);
    if (trust)
        clrie_pm_log_line_append(&line, "; refused unless " CLRIE_CONFIG_ENV_DISABLE_TRUST "=1");
    clrie_pm_log_line_end(&line);
    if (r == -ENOEXEC)
        return HRESULT_ERROR_BAD_EXE_FORMAT;
    return trust ? E_ACCESSDENIED : E_FAIL;
}

/* Chooses and loads the engine. Called with engine_lock held and no engine loaded. */
static HRESULT load_engine(void)
{
    char *root = install_root();
    if (!root)
        return E_FAIL;

    const char *specific =
        clrie_pm_env_path(clrie_pm_env_engine(), "InstrumentationEngineProxy_UseSpecificVersion");
    struct clrie_version_select_options opts = {
        .root = root,
        .major = CLRIE_ENGINE_MAJOR,
        .arch_folder = CLRIE_ENGINE_ARCH_FOLDER,
        .engine_file = CLRIE_ENGINE_FILE,
        .use_debug = env_switch("InstrumentationEngineProxy_UseDebug"),
        .use_preview = env_switch("InstrumentationEngineProxy_UsePreview"),
        .specific_version = specific,
    };

    HRESULT hr = S_OK;
    struct clrie_pm_log_line line;
    struct clrie_version_selection sel;
    int r = clrie_version_select(&opts, &sel);
    if (r == -EINVAL) {
        clrie_pm_log_line_begin(&line, proxy_log(), CLRIE_PM_LOG_ERRORS, NULL,
                                "InstrumentationEngineProxy_UseSpecificVersion='");
        clrie_pm_log_line_append_escaped(&line, opts.specific_version);
        clrie_pm_log_line_append(&line, "' is not a folder name (it contains a separator)");
        clrie_pm_log_line_end(&line);
        hr = E_INVALIDARG;
        goto out;
    }
    if (r == -ENOMEM) {
        hr = E_OUTOFMEMORY;
        goto out;
    }
    if (r != 0) {
        log_selection_failure(&opts, &sel);
        hr = HRESULT_ERROR_FILE_NOT_FOUND;
        goto out;
    }

    char *canonical = NULL;
    hr = check_engine(sel.path, &canonical);
    if (hr != S_OK)
        goto out;
    struct clrie_os_module *handle = NULL;
    char why[512] = "";
    r = clrie_os_module_load(canonical, &handle, why, sizeof(why));
    free(canonical);
    if (r != 0) {
        clrie_pm_log_line_begin(&line, proxy_log(), CLRIE_PM_LOG_ERRORS, NULL,
                                "cannot load engine '");
        clrie_pm_log_line_append_escaped(&line, sel.path);
        clrie_pm_log_line_append(&line, "': ");
        clrie_pm_log_line_append_escaped(&line, why);
        clrie_pm_log_line_end(&line);
        hr = E_FAIL;
        goto out;
    }
    LPFNGETCLASSOBJECT get =
        (LPFNGETCLASSOBJECT)clrie_os_module_function(handle, "DllGetClassObject");
    if (!get) {
        clrie_pm_log_line_begin(&line, proxy_log(), CLRIE_PM_LOG_ERRORS, NULL, "engine '");
        clrie_pm_log_line_append_escaped(&line, sel.path);
        clrie_pm_log_line_append(&line, "' does not export DllGetClassObject");
        clrie_pm_log_line_end(&line);
        clrie_os_module_unload(handle);
        hr = HRESULT_ERROR_PROC_NOT_FOUND;
        goto out;
    }
    engine_handle = handle;
    engine_get_class_object = get;
    engine_can_unload_now = (LPFNCANUNLOADNOW)clrie_os_module_function(handle, "DllCanUnloadNow");
    clrie_pm_log_line_begin(&line, proxy_log(), CLRIE_PM_LOG_MESSAGES, NULL, "loaded engine '");
    clrie_pm_log_line_append_escaped(&line, sel.path);
    clrie_pm_log_line_append(&line, "' (version %s, root '", sel.version);
    clrie_pm_log_line_append_escaped(&line, root);
    clrie_pm_log_line_append(&line, "')");
    clrie_pm_log_line_end(&line);
out:
    clrie_version_selection_finish(&sel);
    free(root);
    return hr;
}

CLRIE_ABI_EXPORT HRESULT STDAPICALLTYPE DllGetClassObject(const GUID *clsid, const GUID *iid,
                                                          void **out)
{
    if (!out)
        return E_POINTER;
    *out = NULL;

    clrie_os_mutex_lock(&engine_lock);
    HRESULT hr = engine_handle ? S_OK : load_engine();
    if (hr == S_OK)
        hr = engine_get_class_object(clsid, iid, out);
    clrie_os_mutex_unlock(&engine_lock);
    return hr;
}

CLRIE_ABI_EXPORT HRESULT STDAPICALLTYPE DllCanUnloadNow(void)
{
    clrie_os_mutex_lock(&engine_lock);
    HRESULT hr = S_OK;
    if (engine_handle) {
        hr = engine_can_unload_now ? engine_can_unload_now() : S_FALSE;
        if (hr == S_OK) {
            clrie_os_module_unload(engine_handle);
            engine_handle = NULL;
            engine_get_class_object = NULL;
            engine_can_unload_now = NULL;
        }
    }
    clrie_os_mutex_unlock(&engine_lock);
    return hr;
}
