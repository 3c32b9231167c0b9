// What the IL that the tracer plugin wraps around a traced method calls. Every traced method
// becomes (docs/tracers.md):
//
//     object tracer = null;
//     try {
//         try { tracer = Shim.Enter(point, this or null, new object[] { args... }); } catch { }
//         <the original body; each return stores the result and leaves>
//     } catch (object exception) {
//         try { Shim.Finish(tracer, null, exception); } catch { }
//         rethrow;
//     }
//     try { Shim.Finish(tracer, result, null); } catch { }
//     return result;
//
// `point` is a string literal of the traced method's module, the same object at every call,
// so the point it describes is found by reference in a snapshot dictionary: no lock and no
// string hashing after the first call.
using System;
using System.Collections.Generic;
using System.ComponentModel;
using System.Reflection;
using System.Runtime.Loader;
using System.Threading;

namespace Clrie.Tracing
{
    /// <summary>
    /// The entry points of the injected code. Not for use by applications or tracers.
    /// </summary>
    [EditorBrowsable(EditorBrowsableState.Never)]
    public static class Shim
    {
        sealed class Point
        {
            public TracedMethod Method = null!;
            public ITracerFactory? Factory;
        }

        static readonly object Gate = new object();
        static volatile Dictionary<string, Point> points =
            new Dictionary<string, Point>(ReferenceEqualityComparer.Instance);
        // One factory per (library, class), made once: the points share it.
        static readonly Dictionary<string, ITracerFactory?> Factories = new Dictionary<string, ITracerFactory?>();
        static long failures;

        [ThreadStatic]
        static bool busy; // a traced method called by a factory or a tracer is not traced

        /// <summary>How many times a factory or a tracer threw (each time swallowed).</summary>
        public static long Failures => Interlocked.Read(ref failures);

        /// <summary>At the entry of a traced method: its tracer, or null.</summary>
        public static object? Enter(string point, object? instance, object?[] arguments)
        {
            // one thread-local lookup for the three uses (measured: about 5 ns a call less)
            ref bool guard = ref busy;
            if (guard)
                return null;
            guard = true;
            try
            {
                if (!points.TryGetValue(point, out Point? p))
                    p = Add(point);
                return p.Factory?.GetTracer(p.Method, instance, arguments);
            }
            catch (Exception)
            {
                Interlocked.Increment(ref failures);
                return null;
            }
            finally
            {
                guard = false;
            }
        }

        /// <summary>When a traced method returns (exception null) or throws.</summary>
        public static void Finish(object? tracer, object? result, object? exception)
        {
            if (tracer is not ITracer t)
                return;
            ref bool guard = ref busy;
            if (guard)
                return;
            guard = true;
            try
            {
                t.Finish(result, exception as Exception);
            }
            catch (Exception)
            {
                Interlocked.Increment(ref failures);
            }
            finally
            {
                guard = false;
            }
        }

        static Point Add(string point)
        {
            lock (Gate)
            {
                if (points.TryGetValue(point, out Point? known))
                    return known;
                // library, factory, assembly, type, method, parameter types: one per line
                string[] f = point.Split('\n');
                if (f.Length != 6)
                    throw new ArgumentException("not a point: " + point);
                var p = new Point
                {
                    Method = new TracedMethod(f[1], f[0].Length > 0 ? f[0] : null, f[2], f[3], f[4], f[5]),
                };
                p.Factory = FactoryOf(p.Method);
                var next = new Dictionary<string, Point>(points, ReferenceEqualityComparer.Instance);
                next[point] = p;
                points = next;
                return p;
            }
        }

        static ITracerFactory? FactoryOf(TracedMethod method)
        {
            string key = method.Library + "\n" + method.Factory;
            if (Factories.TryGetValue(key, out ITracerFactory? known))
                return known;
            ITracerFactory? factory = null;
            try
            {
                Type? type = method.Library != null
                    ? Load(method.Library).GetType(method.Factory, throwOnError: true)
                    : Type.GetType(method.Factory, throwOnError: true);
                factory = (ITracerFactory)Activator.CreateInstance(type!)!;
            }
            catch (Exception e)
            {
                // A points file names something that cannot work: said once, then nothing
                // is traced with it.
                Interlocked.Increment(ref failures);
                Console.Error.WriteLine("clrie tracing: cannot make the tracer factory '" + method.Factory + "'" +
                                        (method.Library != null ? " of " + method.Library : "") + ": " +
                                        e.GetType().Name + ": " + e.Message);
            }
            Factories[key] = factory;
            return factory;
        }

        static Assembly Load(string path)
        {
            foreach (Assembly a in AssemblyLoadContext.Default.Assemblies)
            {
                if (!a.IsDynamic && string.Equals(a.Location, path, StringComparison.Ordinal))
                    return a;
            }
            return AssemblyLoadContext.Default.LoadFromAssemblyPath(path);
        }
    }
}

// DOTNET_STARTUP_HOOKS=<path>/Clrie.Tracing.dll loads this assembly into the default load
// context before Main; the AssemblyRef that the plugin adds to each traced module then binds
// to it by name.
internal static class StartupHook
{
    public static void Initialize()
    {
    }
}
