// What the IL that the tracer plugin wraps around a traced method calls. Every traced method
// becomes (docs/tracers.md):
//
//     object tracer = null;
//     try {
//         try {
//             int needs = Shim.Needs(id, point);
//             if (needs != 0)
//                 tracer = Shim.Begin(ref Shim.Guard(), id, this or null,
//                                     new object[] { args... } or null);
//         } catch (object e) { Shim.Failed(e, id, Entering); }
//         <the original body; each return stores the result and leaves>
//     } catch (object exception) {
//         try { Shim.End(ref guard, id, tracer, null, exception); }
//         catch (object e) { Shim.Failed(e, id, Finishing); }
//         rethrow;
//     }
//     if (tracer != null)
//         try {
//             if (the method returns a task && tracer is IAsyncTracer)
//                 result = Shim.FinishTask(id, tracer, result);
//             else
//                 Shim.End(ref guard, id, tracer, (needs & Result) != 0 ? (object)result : null, null);
//         } catch (object e) { Shim.Failed(e, id, Finishing); }
//     return result;
//
// `id` is the plugin's number for the method's point (the same number for the same point text
// in every module), an index into an array here: no dictionary, no lock and no hashing on a
// call. `point` is a string literal describing the point, read at the first call only.
//
// Needs, Begin and End have no exception handling of their own, so that the JIT inlines them
// into the wrapper: a no-op tracer then costs a thread-local flag, an array read and two
// interface calls. What a factory or a tracer throws leaves them with the guard still set; the
// wrapper's handler gives it to Failed, which says so and clears the guard. Enter and Finish,
// with handlers of their own, are what the wrappers of an older plugin call (a library newer
// than the plugin keeps working with it).
using System;
using System.Collections.Generic;
using System.ComponentModel;
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Runtime.Loader;
using System.Threading;
using System.Threading.Tasks;

namespace Clrie.Tracing
{
    /// <summary>
    /// The entry points of the injected code. Not for use by applications or tracers.
    /// </summary>
    [EditorBrowsable(EditorBrowsableState.Never)]
    public static class Shim
    {
        // Needs(): the TracerNeeds bits the wrapper tests, with On. 0 is "no tracer for this
        // method" (its factory could not be made): the wrapper then skips everything else.
        const int On = 8;
        const int MaxId = 1 << 24;
        // Failed(): where the wrapper caught the exception.
        const int Entering = 0;

        static readonly object Gate = new object();
        static volatile Point?[] points = new Point?[64];
        // One factory per (library, class), made once: the points share it.
        static readonly Dictionary<string, ITracerFactory?> Factories = new Dictionary<string, ITracerFactory?>();
        static long failures;
        static bool exitReport;

        [ThreadStatic]
        internal static bool busy; // a traced method called by a factory or a tracer is not traced

        /// <summary>How many times a factory or a tracer threw (each time swallowed).</summary>
        public static long Failures => Interlocked.Read(ref failures);

        /// <summary>At the entry of a traced method: what <see cref="Begin"/> should be given
        /// (the <see cref="TracerNeeds"/> bits, and 8), or 0 when the method has no factory.
        /// One array read once the point is known.</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public static int Needs(int id, string point)
        {
            Point?[] all = points;
            if ((uint)id < (uint)all.Length && all[id] is Point p)
                return p.Needs;
            return Register(id, point);
        }

        /// <summary>The calling thread's recursion guard, which the wrapper reads once and hands
        /// to <see cref="Begin"/> and <see cref="End"/>: one thread-local access a call.</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public static ref bool Guard() => ref busy;

        /// <summary>At the entry of a traced method whose <see cref="Needs"/> was not 0: its
        /// tracer, or null. <paramref name="arguments"/> is null when the factory wants none.
        /// What the factory throws goes to the wrapper's handler, then to <see cref="Failed"/>.</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public static object? Begin(ref bool guard, int id, object? instance, object?[]? arguments)
        {
            if (guard)
                return null;
            Point p = points[id]!;
            guard = true;
            ITracer? tracer = p.Factory!.GetTracer(p.Method, instance, arguments ?? Array.Empty<object?>());
            guard = false;
            return tracer;
        }

        /// <summary>When a traced method returns (exception null) or throws. What the tracer
        /// throws goes to the wrapper's handler, then to <see cref="Failed"/>.</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public static void End(ref bool guard, int id, object? tracer, object? result, object? exception)
        {
            if (tracer == null)
                return; // guard may be null then: the wrapper reads it only for a tracer
            if (guard)
                return;
            guard = true;
            // the wrapper's tracer local only ever holds what Begin returned: an ITracer
            Unsafe.As<ITracer>(tracer).Finish(result, exception as Exception);
            guard = false;
        }

        /// <summary>In the wrapper's handler around <see cref="Begin"/> (<paramref name="step"/>
        /// 0) or <see cref="End"/> and <see cref="FinishTask"/> (1): what the factory or the
        /// tracer threw. Said at the first one of the method, counted after; the app goes on as
        /// if untraced. Never throws: it runs in a handler of the app's method.</summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void Failed(object? exception, int id, int step)
        {
            ref bool guard = ref busy;
            guard = true; // what saying it calls is not traced
            try
            {
                PointOf(id)?.Failed(step == Entering ? "GetTracer" : "Finish",
                                    exception as Exception ??
                                        new InvalidOperationException("an object that is not an exception: " + exception));
            }
            catch
            {
            }
            finally
            {
                guard = false;
            }
        }

        /// <summary>What the wrapper of an older plugin calls in place of <see cref="Begin"/>:
        /// its handler only swallows what it catches, so the factory's exception is caught here.</summary>
        public static object? Enter(int id, object? instance, object?[]? arguments)
        {
            ref bool guard = ref busy;
            if (guard)
                return null;
            Point p = points[id]!;
            guard = true;
            try
            {
                return p.Factory!.GetTracer(p.Method, instance, arguments ?? Array.Empty<object?>());
            }
            catch (Exception e)
            {
                p.Failed("GetTracer", e);
                return null;
            }
            finally
            {
                guard = false;
            }
        }

        /// <summary>What the wrapper of an older plugin calls in place of <see cref="End"/>.</summary>
        public static void Finish(int id, object? tracer, object? result, object? exception)
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
            catch (Exception e)
            {
                PointOf(id)?.Failed("Finish", e);
            }
            finally
            {
                guard = false;
            }
        }

        /// <summary>When a traced method that returns a task returns it to an
        /// <see cref="IAsyncTracer"/>: finishes the tracer when the task completes, and gives
        /// back what the method's caller gets (the same task, or for a <c>ValueTask</c> one that
        /// the caller may consume).</summary>
        public static object? FinishTask(int id, object? tracer, object? task)
        {
            if (tracer is not IAsyncTracer t || PointOf(id) is not Point p)
                return task;
            ref bool guard = ref busy;
            if (guard)
                return task;
            guard = true;
            try
            {
                return Tasks.Observe(new Waiting(t, p), task);
            }
            catch (Exception e)
            {
                p.Failed("Finish", e);
                return task;
            }
            finally
            {
                guard = false;
            }
        }

        static Point? PointOf(int id)
        {
            Point?[] all = points;
            return (uint)id < (uint)all.Length ? all[id] : null;
        }

        // An IAsyncTracer waiting for its method's task.
        internal sealed class Waiting
        {
            readonly IAsyncTracer tracer;
            readonly Point point;

            internal Waiting(IAsyncTracer tracer, Point point)
            {
                this.tracer = tracer;
                this.point = point;
            }

            internal void Pending()
            {
                try
                {
                    tracer.Pending();
                }
                catch (Exception e)
                {
                    point.Failed("Pending", e);
                }
            }

            // On the thread that completed the task (or the caller's, when it had completed).
            internal void Complete(object? result, Exception? exception)
            {
                ref bool guard = ref busy;
                bool outer = guard;
                guard = true;
                try
                {
                    tracer.Finish(result, exception);
                }
                catch (Exception e)
                {
                    point.Failed("Finish", e);
                }
                finally
                {
                    guard = outer;
                }
            }
        }

        // A method's first call: its point made, its factory too (once per class), and asked
        // what it needs. The library's own work here calls framework methods that points may
        // name: under the guard, they are not traced (and not registered) meanwhile.
        [MethodImpl(MethodImplOptions.NoInlining)]
        static int Register(int id, string point)
        {
            ref bool guard = ref busy;
            if (guard)
                return 0;
            guard = true;
            try
            {
                lock (Gate)
                    return Add(id, point).Needs;
            }
            finally
            {
                guard = false;
            }
        }

        static Point Add(int id, string point)
        {
            Point?[] all = points;
            if ((uint)id < (uint)all.Length && all[id] is Point known)
                return known;
            var p = new Point(Parse(point));
            p.Factory = FactoryOf(p.Method);
            if (p.Factory != null)
            {
                TracerNeeds needs = TracerNeeds.All;
                try
                {
                    needs = p.Factory.Needs(p.Method);
                }
                catch (Exception e)
                {
                    p.Failed("Needs", e);
                }
                p.Needs = On | ((int)needs & (int)TracerNeeds.All);
            }
            if (id < 0 || id > MaxId)
            {
                // not a number of the plugin's, which counts its points from 1
                p.Needs = 0;
                return p;
            }
            if (id >= all.Length)
                Array.Resize(ref all, Math.Max(id + 1, all.Length * 2));
            else
                all = (Point?[])all.Clone();
            all[id] = p;
            points = all;
            if (!exitReport)
            {
                exitReport = true;
                AppDomain.CurrentDomain.ProcessExit += (_, _) => Point.ReportCounts();
            }
            return p;
        }

        // library, factory, assembly, type, method, parameter types, points file:line: one per
        // line (modules.c writes them)
        static TracedMethod Parse(string point)
        {
            string[] f = point.Split('\n');
            if (f.Length < 6)
                throw new ArgumentException("not a point: " + point);
            return new TracedMethod(f[1], f[0].Length > 0 ? f[0] : null, f[2], f[3], f[4], f[5],
                                    f.Length > 6 && f[6].Length > 0 ? f[6] : null);
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
                object made = Activator.CreateInstance(type!)!;
                factory = made as ITracerFactory ??
                          throw new InvalidCastException(type!.FullName + " does not implement " +
                                                         typeof(ITracerFactory).FullName);
            }
            catch (Exception e)
            {
                // A points file names something that cannot work: said once, then nothing is
                // traced with it.
                Interlocked.Increment(ref failures);
                Plugin.Log(Plugin.Error, "cannot make the tracer factory '" + method.Factory + "'" +
                                         (method.Library != null ? " of " + method.Library : "") +
                                         (method.Location != null ? " (" + method.Location + ")" : "") +
                                         ": " + Plugin.Describe(e) +
                                         "; its methods run without tracers");
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

        internal sealed class Point
        {
            public readonly TracedMethod Method;
            public ITracerFactory? Factory;
            public int Needs;
            long failures;

            public Point(TracedMethod method)
            {
                Method = method;
            }

            // A factory's or tracer's exception: the first one of the method said, the rest
            // counted and said at exit.
            public void Failed(string what, Exception e)
            {
                Interlocked.Increment(ref Shim.failures);
                if (Interlocked.Increment(ref failures) == 1)
                    Plugin.Log(Plugin.Error, Where() + ": " + what + " threw " + Plugin.Describe(e) +
                                             "; the app goes on as if untraced; further exceptions " +
                                             "of this method's tracer are counted");
            }

            string Where() => Method + " (factory " + Method.Factory +
                              (Method.Location != null ? ", " + Method.Location : "") + ")";

            public static void ReportCounts()
            {
                busy = true; // the process is ending: nothing it calls here is traced
                foreach (Point? p in points)
                {
                    long n = p != null ? Interlocked.Read(ref p.failures) : 0;
                    if (n > 0)
                        Plugin.Log(Plugin.Error, p!.Where() + ": its factory or tracer threw " + n +
                                                 (n == 1 ? " time" : " times") + " in all");
                }
            }
        }
    }

    // Tasks that an IAsyncTracer waits for.
    static class Tasks
    {
        // Per ValueTask<T>, Task<T> type: how to observe it, made once.
        static readonly Dictionary<Type, Func<Shim.Waiting, object, object>> ValueTasks =
            new Dictionary<Type, Func<Shim.Waiting, object, object>>();
        static readonly Dictionary<Type, Func<Task, object?>> Results = new Dictionary<Type, Func<Task, object?>>();

        public static object? Observe(Shim.Waiting tracer, object? task)
        {
            switch (task)
            {
            case null:
                tracer.Complete(null, null);
                return null;
            case Task t:
                Watch(tracer, t);
                return t;
            case ValueTask vt:
                return ObserveValueTask(tracer, vt);
            default:
                return ValueTaskObserver(task.GetType())(tracer, task);
            }
        }

        static void Watch(Shim.Waiting tracer, Task task)
        {
            if (task.IsCompleted)
            {
                Finished(task, tracer);
                return;
            }
            tracer.Pending();
            task.ContinueWith(static (t, state) => Finished(t, (Shim.Waiting)state!), tracer,
                              CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously,
                              TaskScheduler.Default);
        }

        static void Finished(Task task, Shim.Waiting tracer)
        {
            // on the thread that completed the task: what this calls is not traced
            ref bool guard = ref Shim.busy;
            bool outer = guard;
            guard = true;
            try
            {
                Report(task, tracer);
            }
            finally
            {
                guard = outer;
            }
        }

        static void Report(Task task, Shim.Waiting tracer)
        {
            if (task.IsFaulted)
            {
                AggregateException all = task.Exception!;
                tracer.Complete(null, all.InnerExceptions.Count == 1 ? all.InnerExceptions[0] : all);
            }
            else if (task.IsCanceled)
            {
                tracer.Complete(null, new TaskCanceledException(task));
            }
            else
            {
                tracer.Complete(ResultOf(task), null);
            }
        }

        static object? ResultOf(Task task)
        {
            Type type = task.GetType();
            while (type.BaseType != null && type.BaseType != typeof(Task))
                type = type.BaseType;
            if (!type.IsGenericType || type.GetGenericTypeDefinition() != typeof(Task<>))
                return null;
            Func<Task, object?>? read;
            lock (Results)
            {
                if (!Results.TryGetValue(type, out read))
                {
                    MethodInfo m = typeof(Tasks).GetMethod(nameof(ResultOfTask), BindingFlags.NonPublic | BindingFlags.Static)!
                        .MakeGenericMethod(type.GetGenericArguments()[0]);
                    read = m.CreateDelegate<Func<Task, object?>>();
                    Results[type] = read;
                }
            }
            return read(task);
        }

        static object? ResultOfTask<T>(Task task) => ((Task<T>)task).Result;

        static object ObserveValueTask(Shim.Waiting tracer, ValueTask vt)
        {
            if (vt.IsCompletedSuccessfully)
            {
                // consumed here once; the caller gets a completed one of its own
                vt.GetAwaiter().GetResult();
                tracer.Complete(null, null);
                return default(ValueTask);
            }
            Task task = vt.AsTask();
            Watch(tracer, task);
            return new ValueTask(task);
        }

        static Func<Shim.Waiting, object, object> ValueTaskObserver(Type type)
        {
            lock (ValueTasks)
            {
                if (ValueTasks.TryGetValue(type, out Func<Shim.Waiting, object, object>? known))
                    return known;
                Func<Shim.Waiting, object, object> observe = static (_, task) => task;
                if (type.IsGenericType && type.GetGenericTypeDefinition() == typeof(ValueTask<>))
                    observe = typeof(Tasks).GetMethod(nameof(ObserveValueTaskOf), BindingFlags.NonPublic | BindingFlags.Static)!
                        .MakeGenericMethod(type.GetGenericArguments()[0])
                        .CreateDelegate<Func<Shim.Waiting, object, object>>();
                ValueTasks[type] = observe;
                return observe;
            }
        }

        static object ObserveValueTaskOf<T>(Shim.Waiting tracer, object boxed)
        {
            var vt = (ValueTask<T>)boxed;
            if (vt.IsCompletedSuccessfully)
            {
                T result = vt.Result;
                tracer.Complete(result, null);
                return new ValueTask<T>(result);
            }
            Task<T> task = vt.AsTask();
            Watch(tracer, task);
            return new ValueTask<T>(task);
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
