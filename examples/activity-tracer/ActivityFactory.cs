// Traced methods as System.Diagnostics.Activity spans: an activity of the source
// "Clrie.Tracing.Activities" starts when a traced method is entered and stops when it returns
// or throws (then with the status Error and the exception's type and message as tags); for a
// method that returns a Task or ValueTask, when the task completes, the caller getting its own
// current activity back as soon as the method has returned the task. Any
// OpenTelemetry pipeline that listens to that source (AddSource("Clrie.Tracing.Activities"))
// sees the spans, nested as the calls are, with no change to the app.
using System;
using System.Diagnostics;
using Clrie.Tracing;

namespace Clrie.ActivityTracer
{
    public sealed class ActivityFactory : ITracerFactory
    {
        public static readonly ActivitySource Source = new ActivitySource("Clrie.Tracing.Activities");

        // Spans need neither the instance, the arguments nor the result: none is boxed.
        public TracerNeeds Needs(TracedMethod method) => TracerNeeds.None;

        public ITracer? GetTracer(TracedMethod method, object? instance, object?[] arguments)
        {
            Activity? caller = Activity.Current;
            // null when nothing listens: then a traced call costs no more than the factory call
            Activity? activity = Source.StartActivity(method.TypeName + "." + method.MethodName);
            if (activity == null)
                return null;
            activity.SetTag("code.namespace", method.TypeName);
            activity.SetTag("code.function", method.MethodName);
            return new ActivityTracer(activity, caller);
        }
    }

    sealed class ActivityTracer : IAsyncTracer
    {
        readonly Activity activity;
        readonly Activity? caller;

        public ActivityTracer(Activity activity, Activity? caller)
        {
            this.activity = activity;
            this.caller = caller;
        }

        // An async method returned its task: the span stays current in the method's own
        // continuations (they captured it), and its caller goes on under its own span.
        public void Pending()
        {
            Activity.Current = caller;
        }

        public void Finish(object? result, Exception? exception)
        {
            if (exception != null)
            {
                activity.SetStatus(ActivityStatusCode.Error, exception.Message);
                activity.SetTag("exception.type", exception.GetType().FullName);
                activity.SetTag("exception.message", exception.Message);
            }
            // Stop makes the parent current again, as a `using` around the method would (for an
            // async method: in the continuation that completed its task).
            activity.Stop();
        }
    }
}
