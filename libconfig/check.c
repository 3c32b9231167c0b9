/* The checks of a configuration tree: root, methods, their elements and values, settings.
 * Every problem is listed with its place; a method is kept only when it has none. */
#include "document.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ROOT_NAME "InstrumentationEngineConfiguration"
#define METHOD_NAME "InstrumentationMethod"
#if UINTPTR_MAX > 0xFFFFFFFFu
#define METHOD_NAME_PLATFORM "InstrumentationMethod64"
#else
#define METHOD_NAME_PLATFORM "InstrumentationMethod32"
#endif

static bool is_blank(const xmlChar *text)
{
    for (const xmlChar *p = text; p && *p; p++)
        if (!clrie_config__is_xml_space((char)*p))
            return false;
    return true;
}

static bool named(const xmlNode *node, const char *name)
{
    return strcmp((const char *)node->name, name) == 0;
}

static void warn_attributes(struct document *doc, const xmlNode *node, const char *const *known)
{
    for (const xmlAttr *a = node->properties; a && !clrie_config__document_gave_up(doc);
         a = a->next) {
        bool ok = false;
        for (size_t i = 0; known && known[i]; i++)
            ok = ok || strcmp((const char *)a->name, known[i]) == 0;
        if (!ok)
            clrie_config__document_report(doc, CLRIE_CONFIG_WARNING,
                                          clrie_config__document_node_position(doc, node),
                                          "attribute '%s' of <%s> is ignored",
                                          (const char *)a->name, (const char *)node->name);
    }
}

/* Reports a child that is neither an expected element nor allowed filler (white space,
 * comments, processing instructions). Returns true when it was reported. */
static bool unexpected_content(struct document *doc, const xmlNode *parent, const xmlNode *child)
{
    switch (child->type) {
    case XML_COMMENT_NODE:
    case XML_PI_NODE:
        return false;
    case XML_TEXT_NODE:
    case XML_CDATA_SECTION_NODE:
        if (is_blank(child->content))
            return false;
        clrie_config__document_report(doc, CLRIE_CONFIG_ERROR,
                                      clrie_config__document_node_position(doc, child),
                                      "unexpected text in <%s>", (const char *)parent->name);
        return true;
    default:
        clrie_config__document_report(doc, CLRIE_CONFIG_ERROR,
                                      clrie_config__document_node_position(doc, child),
                                      "unexpected content in <%s>", (const char *)parent->name);
        return true;
    }
}

/* The trimmed text of a value element, malloc'd; NULL when it is not plain text (reported)
 * or memory ran out (r->out_of_memory). */
static char *element_text(struct document *doc, const xmlNode *node)
{
    size_t total = 0;
    bool ok = true;
    for (const xmlNode *c = node->children; c; c = c->next) {
        if (c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE)
            total += c->content ? strlen((const char *)c->content) : 0;
        else if (c->type == XML_ELEMENT_NODE) {
            clrie_config__document_report(doc, CLRIE_CONFIG_ERROR,
                                          clrie_config__document_node_position(doc, c),
                                          "<%s> is not allowed inside <%s>, which holds only text",
                                          (const char *)c->name, (const char *)node->name);
            ok = false;
        } else if (c->type != XML_COMMENT_NODE && c->type != XML_PI_NODE) {
            clrie_config__document_report(
                doc, CLRIE_CONFIG_ERROR, clrie_config__document_node_position(doc, node),
                "<%s> holds something other than text", (const char *)node->name);
            ok = false;
        }
    }
    if (!ok)
        return NULL;
    char *text = malloc(total + 1);
    if (!text) {
        doc->r->out_of_memory = true;
        return NULL;
    }
    size_t n = 0;
    for (const xmlNode *c = node->children; c; c = c->next)
        if ((c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE) && c->content) {
            size_t len = strlen((const char *)c->content);
            memcpy(text + n, c->content, len);
            n += len;
        }
    text[n] = '\0';
    size_t start = 0;
    while (start < n && clrie_config__is_xml_space(text[start]))
        start++;
    while (n > start && clrie_config__is_xml_space(text[n - 1]))
        n--;
    memmove(text, text + start, n - start);
    text[n - start] = '\0';
    return text;
}

static char *attribute(struct document *doc, const xmlNode *node, const char *name)
{
    xmlChar *value = xmlGetNoNsProp(node, (const xmlChar *)name);
    if (!value)
        return NULL;
    char *copy = strdup((const char *)value);
    xmlFree(value);
    if (!copy)
        doc->r->out_of_memory = true;
    return copy;
}

/* The setting names of one method seen so far, so that a method with tens of thousands of
 * settings is still checked in linear time. Open addressing; names are borrowed. */
struct name_set {
    const char **slots;
    size_t capacity; /* a power of two, or 0 */
    size_t count;
};

static size_t hash_name(const char *name)
{
    uint64_t h = 1469598103934665603u; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        h = (h ^ *p) * 1099511628211u;
    return (size_t)h;
}

static bool name_set_contains(const struct name_set *set, const char *name)
{
    if (set->capacity == 0)
        return false;
    for (size_t i = hash_name(name) & (set->capacity - 1); set->slots[i];
         i = (i + 1) & (set->capacity - 1))
        if (strcmp(set->slots[i], name) == 0)
            return true;
    return false;
}

static void name_set_put(struct name_set *set, const char *name)
{
    size_t i = hash_name(name) & (set->capacity - 1);
    while (set->slots[i])
        i = (i + 1) & (set->capacity - 1);
    set->slots[i] = name;
    set->count++;
}

static bool name_set_add(struct name_set *set, const char *name)
{
    if (2 * (set->count + 1) > set->capacity) {
        size_t capacity = set->capacity ? 2 * set->capacity : 16;
        const char **slots = calloc(capacity, sizeof(*slots));
        if (!slots)
            return false;
        struct name_set bigger = {slots, capacity, 0};
        for (size_t i = 0; i < set->capacity; i++)
            if (set->slots[i])
                name_set_put(&bigger, set->slots[i]);
        free(set->slots);
        *set = bigger;
    }
    name_set_put(set, name);
    return true;
}

/* Appends a setting, taking the strings. False when out of memory (nothing taken). */
static bool add_setting(struct method_draft *d, char *name, char *value)
{
    if (d->m.setting_count == d->settings_capacity) {
        size_t capacity = d->settings_capacity ? 2 * d->settings_capacity : 4;
        struct clrie_config_setting *grown = realloc(d->settings, capacity * sizeof(*grown));
        if (!grown)
            return false;
        d->settings = grown;
        d->settings_capacity = capacity;
    }
    d->settings[d->m.setting_count++] = (struct clrie_config_setting){name, value};
    return true;
}

static void check_settings(struct document *doc, const xmlNode *settings, struct method_draft *d)
{
    static const char *const setting_attributes[] = {"Name", "Value", NULL};
    struct name_set seen = {0};
    warn_attributes(doc, settings, NULL);
    for (const xmlNode *c = settings->children; c && !clrie_config__document_gave_up(doc);
         c = c->next) {
        if (c->type != XML_ELEMENT_NODE) {
            unexpected_content(doc, settings, c);
            continue;
        }
        struct position at = clrie_config__document_node_position(doc, c);
        if (!named(c, "Setting")) {
            clrie_config__document_report(
                doc, CLRIE_CONFIG_ERROR, at,
                "unknown element <%s> in <Settings>; expected <Setting Name=\"…\" Value=\"…\"/>",
                (const char *)c->name);
            continue;
        }
        warn_attributes(doc, c, setting_attributes);
        for (const xmlNode *g = c->children; g; g = g->next)
            if (g->type == XML_ELEMENT_NODE || !is_blank(g->content))
                unexpected_content(doc, c, g);
        char *name = attribute(doc, c, "Name");
        char *value = attribute(doc, c, "Value");
        bool fine = true;
        if (!name || !*name) {
            clrie_config__document_report(doc, CLRIE_CONFIG_ERROR, at,
                                          "<Setting> needs a non-empty Name attribute");
            fine = false;
        }
        if (!value || !*value) {
            clrie_config__document_report(doc, CLRIE_CONFIG_ERROR, at,
                                          "<Setting> needs a non-empty Value attribute");
            fine = false;
        }
        if (fine && name_set_contains(&seen, name)) {
            clrie_config__document_report(
                doc, CLRIE_CONFIG_WARNING, at,
                "Setting '%s' is already given in this method; this one is ignored", name);
            fine = false;
        }
        if (fine && !(add_setting(d, name, value) && name_set_add(&seen, name))) {
            doc->r->out_of_memory = true;
            if (d->m.setting_count > 0 && d->settings[d->m.setting_count - 1].name == name)
                d->m.setting_count--; /* added, but the set could not grow: give it back */
            fine = false;
        }
        if (!fine) {
            free(name);
            free(value);
        }
    }
    free(seen.slots);
}

enum field { F_NAME, F_DESCRIPTION, F_MODULE, F_CLASS_GUID, F_PRIORITY, F_SETTINGS, F_COUNT };
static const char *const field_names[F_COUNT] = {
    "Name", "Description", "Module", "ClassGuid", "Priority", "Settings",
};

static void check_method(struct document *doc, const xmlNode *method)
{
    struct file_result *r = doc->r;
    size_t errors_before = r->errors;
    struct position at = clrie_config__document_node_position(doc, method);
    const xmlNode *fields[F_COUNT] = {0};
    warn_attributes(doc, method, NULL);

    for (const xmlNode *c = method->children; c && !clrie_config__document_gave_up(doc);
         c = c->next) {
        if (c->type != XML_ELEMENT_NODE) {
            unexpected_content(doc, method, c);
            continue;
        }
        size_t f = 0;
        while (f < F_COUNT && !named(c, field_names[f]))
            f++;
        if (f == F_COUNT) {
            clrie_config__document_report(
                doc, CLRIE_CONFIG_ERROR, clrie_config__document_node_position(doc, c),
                "unknown element <%s> in <%s>; expected Name, Description, Module, "
                "ClassGuid, Priority or Settings",
                (const char *)c->name, (const char *)method->name);
        } else if (fields[f]) {
            struct position first = clrie_config__document_node_position(doc, fields[f]);
            clrie_config__document_report(
                doc, CLRIE_CONFIG_ERROR, clrie_config__document_node_position(doc, c),
                "<%s> appears twice in one <%s> (first at %u:%u)", field_names[f],
                (const char *)method->name, first.line, first.column);
        } else {
            fields[f] = c;
        }
    }
    if (clrie_config__document_gave_up(doc))
        return;

    char *text[F_PRIORITY + 1] = {0};
    for (size_t f = 0; f <= F_PRIORITY; f++) {
        if (!fields[f]) {
            if (f != F_DESCRIPTION && f != F_PRIORITY)
                clrie_config__document_report(doc, CLRIE_CONFIG_ERROR, at, "<%s> has no <%s>",
                                              (const char *)method->name, field_names[f]);
            continue;
        }
        warn_attributes(doc, fields[f], NULL);
        text[f] = element_text(doc, fields[f]);
        if (text[f] && !*text[f] && f != F_DESCRIPTION) {
            clrie_config__document_report(doc, CLRIE_CONFIG_ERROR,
                                          clrie_config__document_node_position(doc, fields[f]),
                                          "<%s> is empty", field_names[f]);
        }
    }

    struct clrie_config_guid guid = {0};
    if (text[F_CLASS_GUID] && *text[F_CLASS_GUID] &&
        clrie_config_guid_parse(text[F_CLASS_GUID], strlen(text[F_CLASS_GUID]), &guid) != 0)
        clrie_config__document_report(
            doc, CLRIE_CONFIG_ERROR,
            clrie_config__document_node_position(doc, fields[F_CLASS_GUID]),
            "<ClassGuid> '%s' is not a GUID of the form {XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX}",
            text[F_CLASS_GUID]);

    uint32_t priority = 0;
    if (text[F_PRIORITY] && *text[F_PRIORITY] &&
        clrie_config__parse_priority(text[F_PRIORITY], &priority) != 0)
        clrie_config__document_report(
            doc, CLRIE_CONFIG_ERROR, clrie_config__document_node_position(doc, fields[F_PRIORITY]),
            "<Priority> '%s' is not a whole number from 0 to 4294967295", text[F_PRIORITY]);

    char *module_path = NULL;
    if (text[F_MODULE] && *text[F_MODULE]) {
        struct position m = clrie_config__document_node_position(doc, fields[F_MODULE]);
        module_path = clrie_config__resolve_module(r, text[F_MODULE], doc->base_dir, doc->opts,
                                                   m.line, m.column);
    }

    struct method_draft *d = NULL;
    if (r->errors == errors_before && !r->out_of_memory)
        d = clrie_config__file_result_add_method(r);
    if (d) {
        d->m.name = text[F_NAME];
        d->m.description = text[F_DESCRIPTION] ? text[F_DESCRIPTION] : strdup("");
        d->m.module = text[F_MODULE];
        d->m.module_path = module_path;
        d->m.class_guid = guid;
        clrie_config_guid_format(&guid, d->m.class_guid_text);
        d->m.has_priority = fields[F_PRIORITY] != NULL;
        d->m.priority = priority;
        d->m.file = strdup(r->file);
        d->m.line = at.line;
        d->m.column = at.column;
        if (!d->m.description || !d->m.file)
            r->out_of_memory = true;
        text[F_NAME] = text[F_DESCRIPTION] = text[F_MODULE] = NULL; /* now the draft's */
        module_path = NULL;
        if (fields[F_SETTINGS])
            check_settings(doc, fields[F_SETTINGS], d);
    } else if (fields[F_SETTINGS]) {
        struct method_draft scratch = {0};
        check_settings(doc, fields[F_SETTINGS], &scratch); /* for its problems only */
        clrie_config__method_draft_finish(&scratch);
    }
    for (size_t f = 0; f <= F_PRIORITY; f++)
        free(text[f]);
    free(module_path);
}

void clrie_config__document_check(struct document *doc, const xmlDoc *xml)
{
    const xmlNode *root = xmlDocGetRootElement(xml);
    if (!root) {
        clrie_config__document_report(doc, CLRIE_CONFIG_ERROR, (struct position){0},
                                      "the document has no root element");
        return;
    }
    if (!named(root, ROOT_NAME)) {
        clrie_config__document_report(
            doc, CLRIE_CONFIG_ERROR, clrie_config__document_node_position(doc, root),
            "the root element is <%s>; expected <" ROOT_NAME ">", (const char *)root->name);
        return;
    }
    warn_attributes(doc, root, NULL);
    size_t methods = 0;
    for (const xmlNode *c = root->children; c && !clrie_config__document_gave_up(doc);
         c = c->next) {
        if (c->type != XML_ELEMENT_NODE) {
            unexpected_content(doc, root, c);
        } else if (named(c, METHOD_NAME) || named(c, METHOD_NAME_PLATFORM)) {
            check_method(doc, c);
            methods++;
        } else {
            clrie_config__document_report(
                doc, CLRIE_CONFIG_ERROR, clrie_config__document_node_position(doc, c),
                "unknown element <%s> in <" ROOT_NAME ">; expected <" METHOD_NAME
                "> or <" METHOD_NAME_PLATFORM ">",
                (const char *)c->name);
        }
    }
    if (methods == 0 && !clrie_config__document_gave_up(doc))
        clrie_config__document_report(doc, CLRIE_CONFIG_WARNING,
                                      clrie_config__document_node_position(doc, root),
                                      "no <" METHOD_NAME "> in this file");
}
