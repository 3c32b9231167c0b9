// The web service of test/soak: minimal API endpoints on 127.0.0.1 that do real work, every
// answer a function of the request alone (so that answers under the engine can be compared
// with the bare service's byte for byte):
//   /json/{n}    an order of n % 7 + 1 lines, serialised to JSON; its total comes from
//                Soak.Work.W00 ... W11, the methods test/soak adds to and removes from the
//                points while the service runs
//   /alloc/{n}   allocates (n % 64 + 1) KiB in pieces and answers their checksum
//   /fail/{n}    Soak.Handlers.Fail throws; the handler catches it and answers 422
//   /chain/{n}   an outgoing HttpClient call to /json/{n} of this same service, async all the
//                way; answers the inner answer's length and checksum
//   /traced      what the tracer factory of test/soak/counter counted (?reset=1 clears it);
//                empty when no tracer runs
// It prints "listening <url>" once it answers, and on SIGTERM stops (ASP.NET Core's console
// lifetime), prints "stopped" and exits with 0.
using System;
using System.Linq;
using System.Net.Http;
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Text;
using System.Threading.Tasks;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.Logging;

namespace Soak
{
    public sealed record Line(string Sku, int Quantity, decimal Price);
    public sealed record Order(int Id, string Customer, Line[] Lines, decimal Total, string[] Tags);
    public sealed record Chained(int Id, int Length, long Checksum, int Status);
    public sealed record Failure(int Id, string Error);

    public static class Work
    {
        [MethodImpl(MethodImplOptions.NoInlining)] public static int W00(int n) => n * 3 + 1;
        [MethodImpl(MethodImplOptions.NoInlining)] public static int W01(int n) => (n ^ 0x5a) & 0xff;
        [MethodImpl(MethodImplOptions.NoInlining)] public static int W02(int n) => n % 17 + (n * 7) % 5;
        [MethodImpl(MethodImplOptions.NoInlining)] public static int W03(int n) => n * n % 101;
        [MethodImpl(MethodImplOptions.NoInlining)] public static int W04(int n) => (n << 2) % 97;
        [MethodImpl(MethodImplOptions.NoInlining)] public static int W05(int n) => n.ToString().Length;
        [MethodImpl(MethodImplOptions.NoInlining)] public static int W06(int n) => (n + 7) / 3;
        [MethodImpl(MethodImplOptions.NoInlining)] public static int W07(int n) => n % 2 == 0 ? n / 2 : 3 * n + 1;
        [MethodImpl(MethodImplOptions.NoInlining)] public static int W08(int n) => unchecked(n * 2654435761u > 1u << 31 ? 1 : 0);
        [MethodImpl(MethodImplOptions.NoInlining)] public static int W09(int n) => (int)Math.Sqrt(n * 1000);
        [MethodImpl(MethodImplOptions.NoInlining)] public static int W10(int n) => "soak".Length == 0 ? 1 : n % 3;
        [MethodImpl(MethodImplOptions.NoInlining)] public static int W11(int n) => Enumerable.Range(0, n % 9).Sum();

        // Calls each of W00 ... W11 once.
        public static int All(int n) =>
            W00(n) + W01(n) + W02(n) + W03(n) + W04(n) + W05(n) + W06(n) + W07(n) + W08(n) + W09(n) +
            W10(n) + W11(n);
    }

    public static class Handlers
    {
        static readonly string[] Customers = { "ada", "grace", "edsger", "barbara", "ken" };

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static Order Json(int n)
        {
            int count = n % 7 + 1, work = Work.All(n);
            var lines = new Line[count];
            for (int i = 0; i < count; i++)
                lines[i] = new Line("sku-" + (n * 31 + i) % 1000, i + 1, (work % 50 + i) * 1.25m);
            decimal total = lines.Sum(l => l.Quantity * l.Price);
            return new Order(n, Customers[n % Customers.Length], lines, total,
                             new[] { "w" + work, n % 2 == 0 ? "even" : "odd" });
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static string Alloc(int n)
        {
            int kib = n % 64 + 1;
            long sum = 0;
            var pieces = new byte[kib][];
            for (int i = 0; i < kib; i++)
            {
                pieces[i] = new byte[1024];
                for (int j = 0; j < pieces[i].Length; j += 64)
                    pieces[i][j] = (byte)(i + j + n);
                sum += pieces[i].Sum(b => (long)b);
            }
            return new StringBuilder().Append("alloc ").Append(kib).Append(" KiB sum ").Append(sum).ToString();
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Fail(int n)
        {
            if (n >= 0)
                throw new InvalidOperationException("order " + n + " cannot be paid");
            return n;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static async Task<Chained> Chain(HttpClient client, int n)
        {
            using HttpResponseMessage response = await client.GetAsync("/json/" + n).ConfigureAwait(false);
            byte[] body = await response.Content.ReadAsByteArrayAsync().ConfigureAwait(false);
            long checksum = 0;
            foreach (byte b in body)
                checksum = checksum * 31 + b;
            return new Chained(n, body.Length, checksum, (int)response.StatusCode);
        }

        // What the counting tracer factory saw, through reflection: the factory's assembly is
        // loaded by the tracer plugin from the points folder, and only when a tracer runs.
        public static string Traced(bool reset)
        {
            Assembly? counter = AppDomain.CurrentDomain.GetAssemblies()
                .FirstOrDefault(a => a.GetName().Name == "SoakCounter");
            MethodInfo? snapshot = counter?.GetType("SoakCounter.Counting")?.GetMethod("Snapshot");
            return snapshot?.Invoke(null, new object[] { reset }) as string ?? "";
        }
    }

    public static class Program
    {
        public static void Main(string[] args)
        {
            string url = args.Length > 0 ? args[0] : "http://127.0.0.1:5080";
            WebApplicationBuilder builder = WebApplication.CreateBuilder(new WebApplicationOptions { Args = Array.Empty<string>() });
            builder.Logging.ClearProviders();
            builder.WebHost.UseUrls(url);
            WebApplication app = builder.Build();
            var client = new HttpClient { BaseAddress = new Uri(url) };

            app.MapGet("/json/{n:int}", (int n) => Results.Json(Handlers.Json(n)));
            app.MapGet("/alloc/{n:int}", (int n) => Results.Text(Handlers.Alloc(n)));
            app.MapGet("/fail/{n:int}", (int n) =>
            {
                try
                {
                    return Results.Json(Handlers.Fail(n));
                }
                catch (InvalidOperationException e)
                {
                    return Results.Json(new Failure(n, e.Message), statusCode: 422);
                }
            });
            app.MapGet("/chain/{n:int}", async (int n) => Results.Json(await Handlers.Chain(client, n)));
            app.MapGet("/traced", (HttpRequest request) =>
            {
                try
                {
                    return Results.Text(Handlers.Traced(request.Query["reset"] == "1"));
                }
                catch (Exception e)
                {
                    // what test/soak prints when its probe fails
                    Console.Error.WriteLine("/traced failed: " + e);
                    return Results.Text("/traced failed: " + e.GetBaseException().Message, statusCode: 500);
                }
            });
            app.Lifetime.ApplicationStarted.Register(() => Console.WriteLine("listening " + url));
            app.Lifetime.ApplicationStopped.Register(() => Console.WriteLine("stopped"));
            app.Run();
        }
    }
}
