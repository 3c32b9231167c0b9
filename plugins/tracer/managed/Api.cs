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

    /// <summary>A traced method, as the point that named it describes it.</summary>
    public sealed class TracedMethod
    {
        internal TracedMethod(string factory, string? library, string assemblyName,
                              string typeName, string methodName, string? parameterTypes)
        {
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

        /// <inheritdoc/>
        public override string ToString() => TypeName + "::" + MethodName + "(" + ParameterTypes + ")";
    }
}
