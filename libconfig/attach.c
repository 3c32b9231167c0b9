/* The client data of an attach request (ICorProfilerCallback3::InitializeForAttach), in
 * CLRIE's schema:
 *
 *     <InstrumentationEngineConfiguration>
 *       <InstrumentationEngine>
 *         <Settings><Setting Name="LogLevel" Value="Errors"/></Settings>
 *       </InstrumentationEngine>
 *       <InstrumentationMethods>
 *         <AddInstrumentationMethod ConfigPath="/opt/x/x.xml">
 *           <Settings><Setting Name="Key" Value="Value"/></Settings>
 *         </AddInstrumentationMethod>
 *       </InstrumentationMethods>
 *     </InstrumentationEngineConfiguration>
 *
 * Each element is optional except the root. As CLRIE: a Setting needs a non-empty Name and
 * Value, and the first of two settings with the same name wins. Unlike CLRIE, an unknown
 * element or a malformed Setting rejects the whole data with its line, so a mistyped request
 * is refused instead of half done. Parsed with a parser context of its own, no DTD, no
 * network. */
#include "config_private.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

struct setting_list {
    struct clrie_config_setting *items;
    size_t count, capacity;
};

struct clrie_config_attach {
    struct setting_list engine;
    struct clrie_config_attach_method *methods;
    struct setting_list *method_settings; /* parallel to methods, owns their arrays */
    size_t method_count, method_capacity;
};

static void why_at(char *why, size_t why_len, const xmlNode *node, const char *fmt, ...)
    __attribute__((format(__printf__, 4, 5)));

static void why_at(char *why, size_t why_len, const xmlNode *node, const char *fmt, ...)
{
    if (!why || !why_len)
        return;
    char text[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    if (node && node->line > 0)
        snprintf(why, why_len, "line %d: %s", node->line, text);
    else
        snprintf(why, why_len, "%s", text);
}

static bool named(const xmlNode *node, const char *name)
{
    return node->type == XML_ELEMENT_NODE && strcmp((const char *)node->name, name) == 0;
}

/* Text between elements must be white space: anything else is a mistake in the data. */
static int check_children(const xmlNode *parent, char *why, size_t why_len)
{
    for (const xmlNode *c = parent->children; c; c = c->next) {
        if (c->type == XML_TEXT_NODE) {
            for (const xmlChar *t = c->content; t && *t; t++)
                if (!clrie_config__is_xml_space((char)*t)) {
                    why_at(why, why_len, c, "text inside <%s>", (const char *)parent->name);
                    return -EILSEQ;
                }
        }
    }
    return 0;
}

static char *attribute(const xmlNode *node, const char *name)
{
    xmlChar *value = xmlGetProp(node, (const xmlChar *)name);
    if (!value)
        return NULL;
    char *copy = strdup((const char *)value);
    xmlFree(value);
    return copy;
}

static void settings_finish(struct setting_list *list)
{
    for (size_t i = 0; i < list->count; i++) {
        free((char *)list->items[i].name);
        free((char *)list->items[i].value);
    }
    free(list->items);
    *list = (struct setting_list){0};
}

/* <Settings><Setting Name=".." Value=".."/>...</Settings>. */
static int parse_settings(const xmlNode *settings, struct setting_list *out, char *why,
                          size_t why_len)
{
    int rc = check_children(settings, why, why_len);
    if (rc)
        return rc;
    for (const xmlNode *s = settings->children; s; s = s->next) {
        if (s->type != XML_ELEMENT_NODE)
            continue;
        if (!named(s, "Setting")) {
            why_at(why, why_len, s, "<%s> inside <Settings>: only <Setting> belongs there",
                   (const char *)s->name);
            return -EILSEQ;
        }
        char *name = attribute(s, "Name");
        char *value = attribute(s, "Value");
        if (!name || !value || !*name || !*value) {
            why_at(why, why_len, s, "<Setting> needs a non-empty Name and Value");
            free(name);
            free(value);
            return -EILSEQ;
        }
        bool repeated = false;
        for (size_t i = 0; i < out->count && !repeated; i++)
            repeated = strcmp(out->items[i].name, name) == 0;
        if (repeated) { /* the first one wins, as in CLRIE */
            free(name);
            free(value);
            continue;
        }
        if (out->count == out->capacity) {
            size_t cap = out->capacity ? out->capacity * 2 : 8;
            void *grown = realloc(out->items, cap * sizeof(*out->items));
            if (!grown) {
                free(name);
                free(value);
                return -ENOMEM;
            }
            out->items = grown;
            out->capacity = cap;
        }
        out->items[out->count++] = (struct clrie_config_setting){.name = name, .value = value};
    }
    return 0;
}

/* An element that may hold only <Settings> (once). */
static int parse_settings_holder(const xmlNode *holder, struct setting_list *out, char *why,
                                 size_t why_len)
{
    int rc = check_children(holder, why, why_len);
    bool seen = false;
    for (const xmlNode *c = holder->children; !rc && c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE)
            continue;
        if (!named(c, "Settings") || seen) {
            why_at(why, why_len, c, "<%s> inside <%s>: only one <Settings> belongs there",
                   (const char *)c->name, (const char *)holder->name);
            return -EILSEQ;
        }
        seen = true;
        rc = parse_settings(c, out, why, why_len);
    }
    return rc;
}

static int add_method(struct clrie_config_attach *a, const xmlNode *node, char *why, size_t why_len)
{
    char *path = attribute(node, "ConfigPath");
    if (!path || !*path) {
        why_at(why, why_len, node, "<AddInstrumentationMethod> needs a non-empty ConfigPath");
        free(path);
        return -EILSEQ;
    }
    if (a->method_count == a->method_capacity) {
        size_t cap = a->method_capacity ? a->method_capacity * 2 : 4;
        void *methods = realloc(a->methods, cap * sizeof(*a->methods));
        if (methods)
            a->methods = methods;
        void *lists =
            methods ? realloc(a->method_settings, cap * sizeof(*a->method_settings)) : NULL;
        if (!lists) {
            free(path);
            return -ENOMEM;
        }
        a->method_settings = lists;
        a->method_capacity = cap;
    }
    size_t i = a->method_count++;
    a->method_settings[i] = (struct setting_list){0};
    a->methods[i] = (struct clrie_config_attach_method){
        .config_path = path, .line = node->line > 0 ? (unsigned)node->line : 0};
    int rc = parse_settings_holder(node, &a->method_settings[i], why, why_len);
    a->methods[i].settings = a->method_settings[i].items;
    a->methods[i].setting_count = a->method_settings[i].count;
    return rc;
}

static int parse_root(struct clrie_config_attach *a, const xmlNode *root, char *why, size_t why_len)
{
    if (!root || !named(root, "InstrumentationEngineConfiguration")) {
        why_at(why, why_len, root, "the root element must be <InstrumentationEngineConfiguration>");
        return -EILSEQ;
    }
    int rc = check_children(root, why, why_len);
    bool engine_seen = false, methods_seen = false;
    for (const xmlNode *c = root->children; !rc && c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE)
            continue;
        if (named(c, "InstrumentationEngine") && !engine_seen) {
            engine_seen = true;
            rc = parse_settings_holder(c, &a->engine, why, why_len);
        } else if (named(c, "InstrumentationMethods") && !methods_seen) {
            methods_seen = true;
            rc = check_children(c, why, why_len);
            for (const xmlNode *m = c->children; !rc && m; m = m->next) {
                if (m->type != XML_ELEMENT_NODE)
                    continue;
                if (!named(m, "AddInstrumentationMethod")) {
                    why_at(why, why_len, m,
                           "<%s> inside <InstrumentationMethods>: only "
                           "<AddInstrumentationMethod> belongs there",
                           (const char *)m->name);
                    return -EILSEQ;
                }
                rc = add_method(a, m, why, why_len);
            }
        } else {
            why_at(why, why_len, c, "unexpected <%s> in <InstrumentationEngineConfiguration>",
                   (const char *)c->name);
            return -EILSEQ;
        }
    }
    return rc;
}

static bool has_doctype(const char *data, size_t len)
{
    static const char keyword[] = "<!DOCTYPE";
    size_t k = sizeof(keyword) - 1;
    for (size_t i = 0; i + k <= len; i++)
        if (data[i] == '<' && memcmp(data + i, keyword, k) == 0)
            return true;
    return false;
}

int clrie_config_attach_parse(const void *data, size_t len, struct clrie_config_attach **out,
                              char *why, size_t why_len)
{
    if (why && why_len)
        why[0] = '\0';
    if (!out || (!data && len))
        return -EINVAL;
    *out = NULL;
    /* CLRIE copies the data and ends it at the first NUL; a sender may include one. */
    const char *text = data;
    const char *nul = len ? memchr(text, '\0', len) : NULL;
    if (nul)
        len = (size_t)(nul - text);
    if (len == 0) {
        why_at(why, why_len, NULL, "the attach data is empty");
        return -ENODATA;
    }
    if (len > CLRIE_CONFIG_MAX_FILE_SIZE) {
        why_at(why, why_len, NULL, "the attach data is larger than %d bytes",
               CLRIE_CONFIG_MAX_FILE_SIZE);
        return -EFBIG;
    }
    if (has_doctype(text, len)) {
        why_at(why, why_len, NULL, "a DOCTYPE is not allowed in the attach data");
        return -EILSEQ;
    }
    struct clrie_config_attach *a = calloc(1, sizeof(*a));
    xmlParserCtxtPtr ctxt = a ? xmlNewParserCtxt() : NULL;
    if (!ctxt) {
        free(a);
        return -ENOMEM;
    }
    xmlDocPtr doc = xmlCtxtReadMemory(ctxt, text, (int)len, NULL, "UTF-8",
                                      XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    int rc;
    if (!doc || !ctxt->wellFormed) {
        const xmlError *e = xmlCtxtGetLastError(ctxt);
        char message[200] = "not well-formed XML";
        if (e && e->message) {
            snprintf(message, sizeof(message), "%s", e->message);
            size_t n = strlen(message);
            while (n && (message[n - 1] == '\n' || message[n - 1] == ' '))
                message[--n] = '\0';
        }
        if (why && why_len)
            snprintf(why, why_len, "line %d: %s", e ? e->line : 0, message);
        rc = -EILSEQ;
    } else {
        rc = parse_root(a, xmlDocGetRootElement(doc), why, why_len);
    }
    if (doc)
        xmlFreeDoc(doc);
    xmlFreeParserCtxt(ctxt);
    if (rc) {
        clrie_config_attach_free(a);
        return rc;
    }
    *out = a;
    return 0;
}

void clrie_config_attach_free(struct clrie_config_attach *attach)
{
    if (!attach)
        return;
    settings_finish(&attach->engine);
    for (size_t i = 0; i < attach->method_count; i++) {
        free((char *)attach->methods[i].config_path);
        settings_finish(&attach->method_settings[i]);
    }
    free(attach->methods);
    free(attach->method_settings);
    free(attach);
}

size_t clrie_config_attach_setting_count(const struct clrie_config_attach *attach)
{
    return attach ? attach->engine.count : 0;
}

const struct clrie_config_setting *
clrie_config_attach_setting_at(const struct clrie_config_attach *attach, size_t index)
{
    return attach && index < attach->engine.count ? &attach->engine.items[index] : NULL;
}

const char *clrie_config_attach_setting(const struct clrie_config_attach *attach, const char *name)
{
    for (size_t i = 0; attach && name && i < attach->engine.count; i++)
        if (strcmp(attach->engine.items[i].name, name) == 0)
            return attach->engine.items[i].value;
    return NULL;
}

size_t clrie_config_attach_method_count(const struct clrie_config_attach *attach)
{
    return attach ? attach->method_count : 0;
}

const struct clrie_config_attach_method *
clrie_config_attach_method_at(const struct clrie_config_attach *attach, size_t index)
{
    return attach && index < attach->method_count ? &attach->methods[index] : NULL;
}
