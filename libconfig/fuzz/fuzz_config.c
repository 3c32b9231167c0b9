/* libFuzzer target for the configuration parser. Input: a configuration document. Relative
 * Modules resolve against "/" (on Windows the root of the current drive, Wine's Z:), so a seed
 * can name a real file (bin/sh) and reach the
 * accepted path. Checks the invariants every result must keep. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "clrie/config.h"
#include "clrie/os/fs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_guid_round_trip(const uint8_t *data, size_t size)
{
    struct clrie_config_guid g, again;
    char text[CLRIE_CONFIG_GUID_TEXT_LEN + 1];
    if (size < CLRIE_CONFIG_GUID_TEXT_LEN ||
        clrie_config_guid_parse((const char *)data, CLRIE_CONFIG_GUID_TEXT_LEN, &g) != 0)
        return;
    clrie_config_guid_format(&g, text);
    if (clrie_config_guid_parse(text, strlen(text), &again) != 0 ||
        memcmp(&g, &again, sizeof(g)) != 0 || strlen(text) != CLRIE_CONFIG_GUID_TEXT_LEN)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check_guid_round_trip(data, size);

    struct clrie_config *config = clrie_config_new();
    if (!config)
        return 0;
    struct clrie_config_options opts = {.trust_check = true};
    int r = clrie_config_load_memory(config, data, size, "fuzz.config", "/", &opts);
    size_t methods = clrie_config_method_count(config);
    size_t errors = clrie_config_error_count(config);

    if (r == 0 && errors != 0)
        abort();
    if (r != 0 && r != -ENOMEM && (errors == 0 || methods != 0))
        abort(); /* a rejected file adds nothing and says why */

    uint64_t last = 0;
    for (size_t i = 0; i < methods; i++) {
        const struct clrie_config_method *m = clrie_config_method_at(config, i);
        if (!m->name[0] || !m->module[0] || !clrie_os_path_is_absolute(m->module_path) ||
            !m->description || strlen(m->class_guid_text) != CLRIE_CONFIG_GUID_TEXT_LEN)
            abort();
        uint64_t key = m->has_priority ? m->priority : (uint64_t)UINT32_MAX + 1;
        if (key < last)
            abort();
        last = key;
        for (size_t j = 0; j < i; j++)
            if (memcmp(&clrie_config_method_at(config, j)->class_guid, &m->class_guid,
                       sizeof(m->class_guid)) == 0)
                abort();
        for (size_t s = 0; s < m->setting_count; s++)
            if (!m->settings[s].name[0] || !m->settings[s].value[0])
                abort();
    }
    size_t counted = 0;
    for (size_t i = 0; i < clrie_config_diag_count(config); i++) {
        const struct clrie_config_diag *d = clrie_config_diag_at(config, i);
        if (!d->message[0] || strcmp(d->file, "fuzz.config") != 0)
            abort();
        counted += d->severity == CLRIE_CONFIG_ERROR;
    }
    if (counted != errors || clrie_config_method_at(config, methods) != NULL)
        abort();
    clrie_config_free(config);
    return 0;
}
