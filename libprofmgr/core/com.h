/* The engine's objects on the COM object base (clrie/plugin.h): a class whose surplus Release is
 * logged, and the IUnknown of the two kinds of part that are not freed by their own count:
 *  - an aggregated part (IDataContainer, a plugin's logger and attach context) is one more face
 *    of its outer object: QueryInterface, AddRef and Release all go to the outer;
 *  - an owned object (a method's IL objects and locals, a plugin's host) has interfaces of its
 *    own but lives as long as its owner does. It counts the references it handed out itself, so
 *    a Release beyond them is logged under its class's name and ignored, and never reaches the
 *    owner or another object; while any of them is out it holds one reference on the owner.
 * The surplus Release line goes to the log of the runtime the object belongs to when its class
 * can find it (CLRIE_PM_COM_CLASS_LOGGED), else to the process log. */
#ifndef CLRIE_PM_COM_H
#define CLRIE_PM_COM_H

#include <stddef.h>

#include "clrie/plugin.h"

struct clrie_pm_log;

/* Writes "surplus Release of <name> ignored" as an error line to log, or to the process log when
 * log is NULL. */
void clrie_pm__com_surplus_release(struct clrie_pm_log *log, const char *name);

/* Defines `static const struct clrie_plugin_com_class ident`: objects of `type` counting in
 * member com_member, answering the first `count` interfaces of `table`, freed by `destroy`; a
 * surplus Release is logged under `name` to log_of(object) (object a `type *`; the log of the
 * object's runtime, or NULL for the process log). */
#define CLRIE_PM_COM_CLASS_LOGGED_N(ident, name_, type, com_member, destroy_, table, count,        \
                                    log_of)                                                        \
    static void ident##_surplus_release(void *object)                                              \
    {                                                                                              \
        clrie_pm__com_surplus_release(log_of((type *)object), name_);                              \
    }                                                                                              \
    static const struct clrie_plugin_com_class ident = {                                           \
        .name = (name_),                                                                           \
        .ifaces = (table),                                                                         \
        .iface_count = (count),                                                                    \
        .com_offset = offsetof(type, com_member),                                                  \
        .destroy = (destroy_),                                                                     \
        .surplus_release = ident##_surplus_release,                                                \
    }
/* The same for a class whose objects know no runtime: the process log. */
#define CLRIE_PM_COM_NO_LOG(object) ((void)(object), (struct clrie_pm_log *)NULL)
#define CLRIE_PM_COM_CLASS_N(ident, name_, type, com_member, destroy_, table, count)               \
    CLRIE_PM_COM_CLASS_LOGGED_N(ident, name_, type, com_member, destroy_, table, count,            \
                                CLRIE_PM_COM_NO_LOG)
/* The same, answering every interface of `table`. */
#define CLRIE_PM_COM_CLASS(ident, name_, type, com_member, destroy_, table)                        \
    CLRIE_PM_COM_CLASS_N(ident, name_, type, com_member, destroy_, table,                          \
                         CLRIE_PLUGIN_COM_COUNT(table))
#define CLRIE_PM_COM_CLASS_LOGGED(ident, name_, type, com_member, destroy_, table, log_of)         \
    CLRIE_PM_COM_CLASS_LOGGED_N(ident, name_, type, com_member, destroy_, table,                   \
                                CLRIE_PLUGIN_COM_COUNT(table), log_of)

/* IUnknown of an aggregated part: member outer_member of `type` (an IUnknown *) does it all. */
#define CLRIE_PM_COM_AGGREGATED(prefix, Iface, type, iface_member, outer_member)                   \
    static HRESULT STDMETHODCALLTYPE prefix##_QueryInterface(Iface *This, REFIID riid, void **out) \
    {                                                                                              \
        IUnknown *outer = CLRIE_CONTAINER_OF(This, type, iface_member)->outer_member;              \
        return outer->lpVtbl->QueryInterface(outer, riid, out);                                    \
    }                                                                                              \
    static ULONG STDMETHODCALLTYPE prefix##_AddRef(Iface *This)                                    \
    {                                                                                              \
        IUnknown *outer = CLRIE_CONTAINER_OF(This, type, iface_member)->outer_member;              \
        return outer->lpVtbl->AddRef(outer);                                                       \
    }                                                                                              \
    static ULONG STDMETHODCALLTYPE prefix##_Release(Iface *This)                                   \
    {                                                                                              \
        IUnknown *outer = CLRIE_CONTAINER_OF(This, type, iface_member)->outer_member;              \
        return outer->lpVtbl->Release(outer);                                                      \
    }

/* QueryInterface of an owned object: com's class answers, and the reference is counted as
 * AddRef counts it. owner NULL: a static object that is never freed, nothing is counted.
 * com's count is 1 (from clrie_plugin_com_init) plus the references out, so its class's destroy
 * never runs. */
HRESULT clrie_pm__com_query_owned(struct clrie_plugin_com *com, IUnknown *owner, REFIID riid,
                                  void **out);
/* AddRef and Release of an owned object: the first reference out takes one on owner, the last
 * one back gives it back; a surplus Release is logged (by the class) and ignored. They return the
 * references out (1 when owner is NULL). */
ULONG clrie_pm__com_add_ref_owned(struct clrie_plugin_com *com, IUnknown *owner);
ULONG clrie_pm__com_release_owned(struct clrie_plugin_com *com, IUnknown *owner);

/* IUnknown of an owned object of `type` (count com_member, owner `owner_expr(object)`, an
 * IUnknown * or NULL). */
#define CLRIE_PM_COM_OWNED(prefix, Iface, type, iface_member, com_member, owner_of)                \
    static HRESULT STDMETHODCALLTYPE prefix##_QueryInterface(Iface *This, REFIID riid, void **out) \
    {                                                                                              \
        type *object = CLRIE_CONTAINER_OF(This, type, iface_member);                               \
        return clrie_pm__com_query_owned(&object->com_member, owner_of(object), riid, out);        \
    }                                                                                              \
    static ULONG STDMETHODCALLTYPE prefix##_AddRef(Iface *This)                                    \
    {                                                                                              \
        type *object = CLRIE_CONTAINER_OF(This, type, iface_member);                               \
        return clrie_pm__com_add_ref_owned(&object->com_member, owner_of(object));                 \
    }                                                                                              \
    static ULONG STDMETHODCALLTYPE prefix##_Release(Iface *This)                                   \
    {                                                                                              \
        type *object = CLRIE_CONTAINER_OF(This, type, iface_member);                               \
        return clrie_pm__com_release_owned(&object->com_member, owner_of(object));                 \
    }

#endif
