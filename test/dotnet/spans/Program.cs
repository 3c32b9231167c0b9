// The app of test_tracer.py's `spans` scenario: it processes two orders (the second one's
// charge throws) and listens to the activity source of examples/activity-tracer, writing one
// line per stopped activity to stderr: `span <name> parent=<name or -> status=<status>`.
// stdout and the exit code (0) are the app's own and must not change when traced.
using System;
using System.Diagnostics;

namespace Spans
{
    public static class Orders
    {
        public static bool Validate(int id) => id > 0;

        public static void Charge(int id)
        {
            if (id == 2)
                throw new InvalidOperationException("card declined");
        }

        public static string Process(int id)
        {
            if (!Validate(id))
                return "invalid";
            Charge(id);
            return "done";
        }
    }

    public static class Program
    {
        static int Main()
        {
            using var listener = new ActivityListener
            {
                ShouldListenTo = source => source.Name == "Clrie.Tracing.Activities",
                Sample = (ref ActivityCreationOptions<ActivityContext> options) =>
                    ActivitySamplingResult.AllDataAndRecorded,
                ActivityStopped = activity => Console.Error.WriteLine(
                    "span " + activity.DisplayName + " parent=" +
                    (activity.Parent?.DisplayName ?? "-") + " status=" + activity.Status),
            };
            ActivitySource.AddActivityListener(listener);
            for (int id = 1; id <= 2; id++)
            {
                try
                {
                    Console.WriteLine("order " + id + " " + Orders.Process(id));
                }
                catch (InvalidOperationException e)
                {
                    Console.WriteLine("order " + id + " failed: " + e.Message);
                }
            }
            return 0;
        }
    }
}
