// The app of test_tracer.py's `spans` scenario: it processes two orders (the second one's
// charge throws), then ships three, asynchronously (the second one's shipping throws after
// its awaits), and listens to the activity source of examples/activity-tracer, writing one
// line per stopped activity to stderr: `span <name> parent=<name or -> status=<status>`, then
// `took <name> <milliseconds>`.
// stdout and the exit code (0) are the app's own and must not change when traced.
using System;
using System.Diagnostics;
using System.Threading.Tasks;

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

    public static class Shipping
    {
        // 100 ms of waiting per id, then a quote (100 ms more)
        public static async Task<int> Ship(int id)
        {
            await Task.Delay(100 * id);
            int cost = await Quote(id);
            if (id == 2)
                throw new InvalidOperationException("no carrier");
            return cost;
        }

        public static async ValueTask<int> Quote(int id)
        {
            await Task.Delay(100);
            return id * 10;
        }

        public static async ValueTask Notify()
        {
            await Task.Delay(50);
        }

        // complete (canceled) when returned
        public static Task Cancelled() => Task.FromCanceled(new System.Threading.CancellationToken(true));
    }

    public static class Program
    {
        static async Task<int> Main()
        {
            using var listener = new ActivityListener
            {
                ShouldListenTo = source => source.Name == "Clrie.Tracing.Activities",
                Sample = (ref ActivityCreationOptions<ActivityContext> options) =>
                    ActivitySamplingResult.AllDataAndRecorded,
                ActivityStopped = activity => Console.Error.WriteLine(
                    "span " + activity.DisplayName + " parent=" +
                    (activity.Parent?.DisplayName ?? "-") + " status=" + activity.Status +
                    "\ntook " + activity.DisplayName + " " + (int)activity.Duration.TotalMilliseconds),
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
            // The first shipment is under way while the app validates and starts the third:
            // neither is a part of it.
            Task<int> first = Shipping.Ship(1);
            Console.WriteLine("valid " + Orders.Validate(7));
            Task<int> third = Shipping.Ship(3);
            Console.WriteLine("shipped 1 for " + await first);
            Console.WriteLine("shipped 3 for " + await third);
            await Shipping.Notify();
            try
            {
                await Shipping.Cancelled();
            }
            catch (OperationCanceledException)
            {
                Console.WriteLine("cancelled");
            }
            try
            {
                await Shipping.Ship(2);
            }
            catch (InvalidOperationException e)
            {
                Console.WriteLine("shipping 2 failed: " + e.Message);
            }
            return 0;
        }
    }
}
