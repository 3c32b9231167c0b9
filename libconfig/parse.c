/* One configuration document through libxml2: the bytes become a tree (DTDs refused, no
 * network, errors collected per parser context), and every element gets its exact place in
 * the file (document.c turns places into lines and columns). check.c then checks the tree. */
#include "document.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

#include "clrie/os/thread.h"

static struct clrie_os_once libxml_once = CLRIE_OS_ONCE_INIT;

static void init_libxml(void)
{
    xmlInitParser();
}

/* The byte offset in the raw input of what the parser reads next, when that is knowable:
 * only the document itself is being read and no encoding conversion happens, so the
 * parser's buffer is the input byte for byte. */
static bool input_offset(const struct document *doc, xmlParserCtxtPtr ctxt, size_t *out)
{
    xmlParserInputPtr in = ctxt->input;
    if (ctxt->inputNr != 1 || !in || !in->buf || in->buf->encoder || !in->cur || !in->base ||
        in->cur < in->base)
        return false;
    size_t offset = (size_t)in->consumed + (size_t)(in->cur - in->base);
    if (offset > doc->len)
        return false;
    *out = offset;
    return true;
}

/* --- before libxml2 ------------------------------------------------------------------- */

/* libxml2 2.9 checks the attributes of a start tag for duplicates pair by pair: a megabyte of
 * attributes on one element costs it minutes. No configuration element needs more than a
 * few, so a tag with more than this many is refused before libxml2 sees it. */
#define MAX_ATTRIBUTES 256

static const char *skip_past(const char *p, const char *end, const char *marker)
{
    size_t n = strlen(marker);
    for (; p + n <= end; p++)
        if (memcmp(p, marker, n) == 0)
            return p + n;
    return end;
}

/* A linear scan that counts '=' outside quotes inside each tag, skipping comments, CDATA and
 * processing instructions (and stopping at a DOCTYPE, which is refused anyway). Works on
 * UTF-8 and on UTF-16, whose ASCII characters are single bytes between zeros. True, with the
 * offset of the tag's '<', when some tag has too many attributes. */
static bool find_crowded_tag(const char *data, size_t len, size_t *offset)
{
    const char *p = data, *end = data + len;
    while ((p = memchr(p, '<', (size_t)(end - p))) != NULL) {
        const char *tag = p++;
        const char *next = p < end && *p == '\0' ? p + 1 : p; /* UTF-16 */
        if (next < end && *next == '!') {
            if (end - next >= 3 && memcmp(next, "!--", 3) == 0)
                p = skip_past(next, end, "-->");
            else if (end - next >= 8 && memcmp(next, "![CDATA[", 8) == 0)
                p = skip_past(next, end, "]]>");
            else
                return false; /* a DOCTYPE */
            continue;
        }
        if (next < end && *next == '?') {
            p = skip_past(next, end, "?>");
            continue;
        }
        size_t equals = 0;
        char quote = 0;
        for (; p < end && (quote || *p != '>'); p++) {
            if (quote) {
                if (*p == quote)
                    quote = 0;
            } else if (*p == '"' || *p == '\'') {
                quote = *p;
            } else if (*p == '=' && ++equals > MAX_ATTRIBUTES) {
                *offset = (size_t)(tag - data);
                return true;
            } else if (*p == '<') {
                break; /* malformed; let libxml2 say so */
            }
        }
        if (p >= end)
            break;
    }
    return false;
}

/* --- the SAX hooks: per parser context, nothing global ---------------------------------- */

static void on_start_element(void *ctx, const xmlChar *localname, const xmlChar *prefix,
                             const xmlChar *uri, int nb_namespaces, const xmlChar **namespaces,
                             int nb_attributes, int nb_defaulted, const xmlChar **attributes)
{
    xmlParserCtxtPtr ctxt = ctx;
    struct document *doc = ctxt->_private;
    doc->default_start(ctx, localname, prefix, uri, nb_namespaces, namespaces, nb_attributes,
                       nb_defaulted, attributes);
    size_t offset;
    xmlNodePtr node = ctxt->node;
    if (!node || node->type != XML_ELEMENT_NODE || !node->name || !localname ||
        strcmp((const char *)node->name, (const char *)localname) != 0 ||
        !input_offset(doc, ctxt, &offset))
        return;
    /* The parser stands on the '>' (or "/>") closing the start tag; a start tag holds no
     * other '<', so the last one before it is where the element begins. */
    if (offset >= doc->len || (doc->data[offset] != '>' && doc->data[offset] != '/'))
        return;
    while (offset > 0 && doc->data[offset] != '<')
        offset--;
    if (doc->data[offset] == '<')
        node->_private = (void *)(uintptr_t)(offset + 1);
}

/* A configuration file has no use for a DTD; refusing it before its internal subset is read
 * means no entity is ever declared, so no entity can expand (billion laughs) or load an
 * external resource (XXE). */
static void on_doctype(void *ctx, const xmlChar *name, const xmlChar *external_id,
                       const xmlChar *system_id)
{
    xmlParserCtxtPtr ctxt = ctx;
    struct document *doc = ctxt->_private;
    doc->saw_doctype = true;
    struct position at = {.line = ctxt->input ? (unsigned)ctxt->input->line : 0};
    size_t offset;
    if (doc->line_starts && input_offset(doc, ctxt, &offset)) {
        static const char keyword[] = "<!DOCTYPE";
        size_t k = sizeof(keyword) - 1;
        while (offset > 0 &&
               !(offset + k <= doc->len && memcmp(doc->data + offset, keyword, k) == 0))
            offset--;
        at = clrie_config__document_position_at(doc, offset);
    }
    clrie_config__document_report(
        doc, CLRIE_CONFIG_ERROR, at,
        "a DOCTYPE is not allowed in a configuration file (no DTDs or entities)");
    xmlStopParser(ctxt);
}

/* A few libxml2 messages (encoding conversion failures) are raised without a parser context
 * and go to the thread's generic error function, which by default prints to stderr. While
 * our parse runs, that function is ours (see clrie_config__parse_document). */
static void on_generic_error(void *user, const char *fmt, ...)
    __attribute__((format(__printf__, 2, 3)));
static void on_generic_error(void *user, const char *fmt, ...)
{
    struct document *doc = user;
    char message[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(message, sizeof(message), fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    size_t len = strlen(message);
    while (len > 0 && (message[len - 1] == '\n' || message[len - 1] == ' '))
        message[--len] = '\0';
    if (len == 0)
        return;
    struct position at = {0};
    if (doc->ctxt && doc->ctxt->input)
        at.line = doc->ctxt->input->line > 0 ? (unsigned)doc->ctxt->input->line : 0;
    clrie_config__document_report(doc, CLRIE_CONFIG_ERROR, at, "%s", message);
}

static void on_xml_error(void *user, xmlErrorPtr error)
{
    xmlParserCtxtPtr ctxt = error ? error->ctxt : NULL;
    if (!ctxt || !ctxt->_private)
        return;
    struct document *doc = ctxt->_private;
    if (error->code == XML_ERR_NO_MEMORY) {
        doc->r->out_of_memory = true;
        return;
    }
    char message[256];
    const char *text = error->message ? error->message : "malformed XML";
    size_t n = strlen(text);
    while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == ' '))
        n--;
    if (n >= sizeof(message))
        n = sizeof(message) - 1;
    memcpy(message, text, n);
    message[n] = '\0';
    for (char *c = message; *c; c++)
        if (*c == '\n' || *c == '\r' || *c == '\t')
            *c = ' '; /* one problem, one line */
    struct position at = {
        .line = error->line > 0 ? (unsigned)error->line : 0,
        .column = error->int2 > 0 ? (unsigned)error->int2 : 0,
    };
    clrie_config__document_report(
        doc, error->level == XML_ERR_WARNING ? CLRIE_CONFIG_WARNING : CLRIE_CONFIG_ERROR, at, "%s",
        message);
}

void clrie_config__parse_document(struct file_result *r, const char *data, size_t len,
                                  const char *base_dir, const struct clrie_config_options *opts)
{
    if (len > CLRIE_CONFIG_MAX_FILE_SIZE) {
        clrie_config__file_result_report(r, CLRIE_CONFIG_ERROR, 0, 0,
                                         "the file is larger than %d bytes",
                                         CLRIE_CONFIG_MAX_FILE_SIZE);
        return;
    }
    clrie_os_once_run(&libxml_once, init_libxml);
    struct document doc;
    if (!clrie_config__document_init(&doc, r, data, len, base_dir, opts)) {
        r->out_of_memory = true;
        return;
    }
    size_t crowded;
    if (find_crowded_tag(data, len, &crowded)) {
        clrie_config__document_report(
            &doc, CLRIE_CONFIG_ERROR, clrie_config__document_position_at(&doc, crowded),
            "an element with more than %d attributes (configuration elements have "
            "at most 2); the file is not parsed",
            MAX_ATTRIBUTES);
        clrie_config__document_finish(&doc);
        return;
    }
    xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
    if (!ctxt || !ctxt->sax) {
        xmlFreeParserCtxt(ctxt);
        clrie_config__document_finish(&doc);
        r->out_of_memory = true;
        return;
    }
    /* ctxt->sax belongs to this context alone, so these hooks touch nothing global. */
    ctxt->_private = &doc;
    doc.ctxt = ctxt;
    doc.default_start = ctxt->sax->startElementNs;
    ctxt->sax->startElementNs = on_start_element;
    ctxt->sax->internalSubset = on_doctype;
    ctxt->sax->serror = on_xml_error;

    /* NONET: never fetch anything; no NOENT, DTDLOAD or DTDATTR: entities stay unexpanded and
     * no DTD is read; no HUGE: libxml2 keeps its depth and size limits. */
    /* The generic error function is per thread (libxml2 keeps one per thread, the main
     * thread's being the process default); it is swapped only around this call and put back
     * exactly as found, so the host's own handler, if any, is untouched afterwards. */
    xmlGenericErrorFunc saved_handler = xmlGenericError;
    void *saved_context = xmlGenericErrorContext;
    xmlSetGenericErrorFunc(&doc, on_generic_error);
    xmlDocPtr xml =
        xmlCtxtReadMemory(ctxt, data, (int)len, NULL, NULL, XML_PARSE_NONET | XML_PARSE_NOCDATA);
    xmlSetGenericErrorFunc(saved_context, saved_handler);
    bool well_formed = xml && ctxt->wellFormed && !doc.saw_doctype;
    if (!well_formed && r->errors == 0)
        clrie_config__document_report(&doc, CLRIE_CONFIG_ERROR, (struct position){0},
                                      "the file is not well-formed XML");
    if (well_formed) /* also after namespace errors: list every problem */
        clrie_config__document_check(&doc, xml);
    xmlFreeDoc(xml);
    ctxt->_private = NULL;
    xmlFreeParserCtxt(ctxt);
    clrie_config__document_finish(&doc);
}
