// A tracer factory that writes one line per event to the file CLRIE_TEST_TRACE_OUTPUT names:
//   enter <type>::<method>(<parameter types>) this=<instance> args=[<arguments>]
//   finish <type>::<method> result=<value>        or        exception=<type>: <message>
// CLRIE_TEST_TRACER_MODE changes what it does after writing the line: `throw-entry` throws
// from GetTracer, `throw-finish` throws from Finish, `null` returns no tracer, `block` sleeps
// 100 ms in GetTracer.
using System;
using System.IO;
using System.Text;
using Clrie.Tracing;

namespace Recorder
{
    public sealed class Factory : ITracerFactory
    {
        static readonly object Gate = new object();
        static readonly string Output = Environment.GetEnvironmentVariable("CLRIE_TEST_TRACE_OUTPUT") ?? "trace.txt";
        static readonly string Mode = Environment.GetEnvironmentVariable("CLRIE_TEST_TRACER_MODE") ?? "";

        internal static void Write(string line)
        {
            lock (Gate)
                File.AppendAllText(Output, line + "\n");
        }

        internal static string Show(object? value)
        {
            if (value == null)
                return "null";
            if (value is string s)
                return "\"" + s + "\"";
            if (value is System.Threading.Tasks.Task task)
                return "task"; // an async method's result: not awaited here
            if (value is System.Collections.IEnumerable and not Array)
                return "enumerable"; // an iterator's result: not enumerated here
            if (value is Array items)
            {
                var text = new StringBuilder("[");
                foreach (object? item in items)
                    text.Append(text.Length > 1 ? "," : "").Append(Show(item));
                return text.Append(']').ToString();
            }
            // one event, one line
            return (value.ToString() ?? "").Replace("\r", "").Replace('\n', ' ');
        }

        public ITracer? GetTracer(TracedMethod method, object? instance, object?[] arguments)
        {
            Write("enter " + method.TypeName + "::" + method.MethodName + "(" + method.ParameterTypes +
                  ") this=" + Show(instance) + " args=" + Show(arguments));
            if (Mode == "throw-entry")
                throw new InvalidOperationException("the tracer factory failed");
            if (Mode == "null")
                return null;
            if (Mode == "block")
                System.Threading.Thread.Sleep(100); // a tracer that takes its time
            return new Tracer("", method.TypeName + "::" + method.MethodName);
        }
    }

    // The same events, each line starting with "second ": tells which factory a point names.
    public sealed class Second : ITracerFactory
    {
        public ITracer? GetTracer(TracedMethod method, object? instance, object?[] arguments)
        {
            Factory.Write("second enter " + method.TypeName + "::" + method.MethodName);
            return new Tracer("second", method.TypeName + "::" + method.MethodName);
        }
    }

    // Named by points as factories that cannot be made (test_tracer.py, scenario `factories`):
    // each is one error line in the engine's log, with the exception the runtime gave.
    public sealed class NotAFactory
    {
    }

    public sealed class Refusing : ITracerFactory
    {
        public Refusing() => throw new InvalidOperationException("the refusing factory refuses");

        public ITracer? GetTracer(TracedMethod method, object? instance, object?[] arguments) => null;
    }

    public sealed class BrokenStatics : ITracerFactory
    {
        static readonly string Setting;

        // an explicit static constructor: it runs before the first instance is made
        static BrokenStatics()
        {
            Setting = Environment.GetEnvironmentVariable("CLRIE_TEST_UNSET") ??
                      throw new ArgumentException("the static setting is missing");
        }

        public ITracer? GetTracer(TracedMethod method, object? instance, object?[] arguments) =>
            Setting.Length > 0 ? null : null;
    }

    sealed class Tracer : ITracer
    {
        readonly string prefix, name;

        public Tracer(string prefix, string name)
        {
            this.prefix = prefix.Length > 0 ? prefix + " " : "";
            this.name = name;
        }

        public void Finish(object? result, Exception? exception)
        {
            Factory.Write(prefix + "finish " + name + (exception != null
                ? " exception=" + exception.GetType().FullName + ": " + exception.Message
                : " result=" + Factory.Show(result)));
            if (Environment.GetEnvironmentVariable("CLRIE_TEST_TRACER_MODE") == "throw-finish")
                throw new InvalidOperationException("the tracer failed");
        }
    }
}
