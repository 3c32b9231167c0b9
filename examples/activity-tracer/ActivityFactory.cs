// Traced methods as System.Diagnostics.Activity spans: an activity of the source
// "Clrie.Tracing.Activities" starts when a traced method is entered and stops when it returns
// or throws (then with the status Error and the exception's type and message as tags). Any
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

        public ITracer? GetTracer(TracedMethod method, object? instance, object?[] arguments)
        {
            // null when nothing listens: then a traced call costs no more than the factory call
            Activity? activity = Source.StartActivity(method.TypeName + "." + method.MethodName);
            if (activity == null)
                return null;
            activity.SetTag("code.namespace", method.TypeName);
            activity.SetTag("code.function", method.MethodName);
            return new ActivityTracer(activity);
        }
    }

    sealed class ActivityTracer : ITracer
    {
        readonly Activity activity;

        public ActivityTracer(Activity activity)
        {
            this.activity = activity;
        }

        public void Finish(object? result, Exception? exception)
        {
            if (exception != null)
            {
                activity.SetStatus(ActivityStatusCode.Error, exception.Message);
                activity.SetTag("exception.type", exception.GetType().FullName);
                activity.SetTag("exception.message", exception.Message);
            }
            // Stop makes the parent current again, as a `using` around the method would.
            activity.Stop();
        }
    }
}
