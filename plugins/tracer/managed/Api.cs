// The tracer API: what a team writes to trace methods that the points files name.
using System;

namespace Clrie.Tracing
{
    /// <summary>
    /// Makes the tracers of the methods that a points file assigns to it. The plugin names the
    /// class by its full name (and the assembly it is in); the library makes one instance, with
    /// its public constructor without parameters, and uses it on every thread.
    /// </summary>
    public interface ITracerFactory
    {
        /// <summary>
        /// What <see cref="GetTracer"/> and <see cref="ITracer.Finish"/> read for this method:
        /// asked once per traced method, before its first <see cref="GetTracer"/>. What it
        /// leaves out is never boxed: the instance is then null, the arguments an empty array,
        /// the result null. The default is everything.
        /// </summary>
        TracerNeeds Needs(TracedMethod method) => TracerNeeds.All;


        /// <summary>
        /// Called at the entry of a traced method, before its own code runs.
        /// </summary>
        /// <param name="method">Which method and which point.</param>
        /// <param name="instance"><c>this</c> (a boxed copy for a method of a value type), or
        /// null for a static method or a constructor.</param>
        /// <param name="arguments">The arguments, boxed; a <c>ref</c> or <c>out</c> argument
        /// as its value at entry.</param>
        /// <returns>The tracer to finish when the method returns or throws, or null to
        /// trace nothing this time.</returns>
        ITracer? GetTracer(TracedMethod method, object? instance, object?[] arguments);
    }

    /// <summary>One traced call in progress.</summary>
    public interface ITracer
    {
        /// <summary>
        /// Called once when the traced call ends: with its result (boxed, null for a void
        /// method) when it returned, or with the exception it is about to throw (which then
        /// goes on to the caller unchanged).
        /// </summary>
        void Finish(object? result, Exception? exception);
    }

    /// <summary>
    /// A tracer of a method that returns a <c>Task</c>, <c>Task&lt;T&gt;</c>, <c>ValueTask</c>
    /// or <c>ValueTask&lt;T&gt;</c>, to be finished when the work ends rather than when the
    /// method returns: when the method returns a task that has not completed,
    /// <see cref="Pending"/> is called at once, on the caller's thread, and
    /// <see cref="ITracer.Finish"/> when the task completes, with its result (boxed; null for
    /// <c>Task</c> and <c>ValueTask</c>) or its exception (an <c>OperationCanceledException</c>
    /// when it was canceled). A task that has completed when the method returns is finished at
    /// once, as is a method that returns anything else. The caller sees the same outcome as
    /// without the tracer (a <c>ValueTask</c> it gets may be backed by a <c>Task</c> instead).
    /// </summary>
    public interface IAsyncTracer : ITracer
    {
        /// <summary>
        /// The traced method has returned a task that has not completed; the caller goes on
        /// now, so this is where a tracer gives the caller back its own context (the span
        /// that was current before the call, for instance).
        /// </summary>
        void Pending();
    }

    /// <summary>What a factory's tracers read (<see cref="ITracerFactory.Needs"/>).</summary>
    [Flags]
    public enum TracerNeeds
    {
        /// <summary>Neither the instance, the arguments nor the result.</summary>
        None = 0,
        /// <summary><c>this</c>, boxed for a method of a value type.</summary>
        Instance = 1,
        /// <summary>The arguments, boxed.</summary>
        Arguments = 2,
        /// <summary>The result, boxed.</summary>
        Result = 4,
        /// <summary>All of them.</summary>
        All = Instance | Arguments | Result,
    }

    /// <summary>A traced method, as the point that named it describes it.</summary>
    public sealed class TracedMethod
    {
        internal TracedMethod(string factory, string? library, string assemblyName,
                              string typeName, string methodName, string? parameterTypes,
                              string? location)
        {
            Location = location;
            Factory = factory;
            Library = library;
            AssemblyName = assemblyName;
            TypeName = typeName;
            MethodName = methodName;
            ParameterTypes = parameterTypes;
        }

        /// <summary>The factory's class, as the points file names it.</summary>
        public string Factory { get; }

        /// <summary>The path of the assembly that defines the factory, or null.</summary>
        public string? Library { get; }

        /// <summary>The name of the traced method's assembly.</summary>
        public string AssemblyName { get; }

        /// <summary><c>Namespace.Type</c>, nested types as <c>Outer+Inner</c>.</summary>
        public string TypeName { get; }

        /// <summary>The method's name.</summary>
        public string MethodName { get; }

        /// <summary>The method's parameter types, comma-separated, as the plugin matched
        /// them (<c>System.Int32,System.String</c>).</summary>
        public string? ParameterTypes { get; }

        /// <summary>The points file and line of the point that named the method
        /// (<c>/etc/myapp/tracing/shop.xml:12</c>), or null.</summary>
        public string? Location { get; }

        /// <inheritdoc/>
        public override string ToString() => TypeName + "::" + MethodName + "(" + ParameterTypes + ")";
    }
}
