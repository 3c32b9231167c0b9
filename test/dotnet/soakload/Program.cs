// The load generator of test/soak, on 127.0.0.1.
//
//   soakload reference <base-url> <out-file>
//       fetches every path of the request cycle once, one at a time, and writes
//       "<path> <status> <sha256 of the body>" lines: what the bare service answers.
//   soakload run <base-url> <reference-file> <rate|closed> <seconds> <rate-per-s> <connections> <first-index> [<latencies-file>]
//       sends the request cycle from <first-index> for <seconds>: `rate` starts requests at a
//       fixed rate (a latency counts from the moment the request was due, so a stalled service
//       is not hidden by requests that were never sent), `closed` keeps <connections> requests
//       in flight, each sent as soon as the one before it was answered. It prints one JSON
//       line: requests sent, answered, failed (no answer or an error), differing (an answer not
//       as in the reference), latency percentiles in ms, throughput, and the first few failures;
//       with <latencies-file>, every latency (ms) is appended to it, one a line.
//
// The request cycle: index i asks for /json/{i % 97}, /alloc/{i % 89}, /fail/{i % 13} or
// /chain/{i % 97}, by i % 4.
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Net.Http;
using System.Security.Cryptography;
using System.Text;
using System.Text.Json;
using System.Threading;
using System.Threading.Tasks;

static class Program
{
    static string PathOf(long i) => (i % 4) switch
    {
        0 => "/json/" + i % 97,
        1 => "/alloc/" + i % 89,
        2 => "/fail/" + i % 13,
        _ => "/chain/" + i % 97,
    };

    static async Task<string> Answer(HttpClient client, string path)
    {
        using HttpResponseMessage response = await client.GetAsync(path).ConfigureAwait(false);
        byte[] body = await response.Content.ReadAsByteArrayAsync().ConfigureAwait(false);
        return (int)response.StatusCode + " " + Convert.ToHexString(SHA256.HashData(body));
    }

    static HttpClient Client(string url, int connections) =>
        new HttpClient(new SocketsHttpHandler { MaxConnectionsPerServer = connections, UseProxy = false })
        {
            BaseAddress = new Uri(url),
            Timeout = TimeSpan.FromSeconds(30),
        };

    static async Task<int> Reference(string url, string output)
    {
        using HttpClient client = Client(url, 1);
        var lines = new StringBuilder();
        var paths = new List<string>();
        for (int n = 0; n < 97; n++)
            paths.AddRange(new[] { "/json/" + n, "/chain/" + n });
        for (int n = 0; n < 89; n++)
            paths.Add("/alloc/" + n);
        for (int n = 0; n < 13; n++)
            paths.Add("/fail/" + n);
        foreach (string path in paths)
            lines.Append(path).Append(' ').Append(await Answer(client, path)).Append('\n');
        File.WriteAllText(output, lines.ToString());
        return 0;
    }

    sealed class Tally
    {
        public long Sent, Answered, Failed, Differing;
        public readonly List<double> Latencies = new List<double>();
        public readonly List<string> Problems = new List<string>();

        public void Problem(string text)
        {
            lock (Problems)
                if (Problems.Count < 5)
                    Problems.Add(text);
        }
    }

    static async Task One(HttpClient client, Dictionary<string, string> expected, long index, long due, Tally tally)
    {
        Interlocked.Increment(ref tally.Sent);
        string path = PathOf(index);
        try
        {
            string answer = await Answer(client, path).ConfigureAwait(false);
            double ms = (Stopwatch.GetTimestamp() - due) * 1000.0 / Stopwatch.Frequency;
            Interlocked.Increment(ref tally.Answered);
            lock (tally.Latencies)
                tally.Latencies.Add(ms);
            if (!expected.TryGetValue(path, out string? want) || want != answer)
            {
                Interlocked.Increment(ref tally.Differing);
                tally.Problem(path + ": answered " + answer + ", the bare service " + (want ?? "(none)"));
            }
        }
        catch (Exception e)
        {
            Interlocked.Increment(ref tally.Failed);
            tally.Problem(path + ": " + e.GetType().Name + ": " + e.Message);
        }
    }

    static double Percentile(List<double> sorted, double p) =>
        sorted.Count == 0 ? 0 : sorted[Math.Min(sorted.Count - 1, (int)Math.Ceiling(p * sorted.Count) - 1)];

    static async Task<int> Run(string url, string referenceFile, string mode, double seconds, double rate,
                               int connections, long first, string? latencies)
    {
        var expected = File.ReadAllLines(referenceFile).Select(l => l.Split(' ', 2))
            .ToDictionary(f => f[0], f => f[1]);
        using HttpClient client = Client(url, connections);
        var tally = new Tally();
        long start = Stopwatch.GetTimestamp();
        long end = start + (long)(seconds * Stopwatch.Frequency);
        long next = first;
        var running = new List<Task>();
        if (mode == "rate")
        {
            long period = (long)(Stopwatch.Frequency / rate);
            for (long k = 0; ; k++)
            {
                long due = start + k * period;
                if (due >= end)
                    break;
                long now = Stopwatch.GetTimestamp();
                if (due > now)
                    await Task.Delay(TimeSpan.FromTicks((due - now) * TimeSpan.TicksPerSecond / Stopwatch.Frequency));
                running.Add(One(client, expected, next++, due, tally));
                if (running.Count > 4096)
                    running.RemoveAll(t => t.IsCompleted);
            }
        }
        else
        {
            for (int c = 0; c < connections; c++)
                running.Add(Task.Run(async () =>
                {
                    while (Stopwatch.GetTimestamp() < end)
                        await One(client, expected, Interlocked.Increment(ref next) - 1, Stopwatch.GetTimestamp(), tally);
                }));
        }
        await Task.WhenAll(running);
        double elapsed = (Stopwatch.GetTimestamp() - start) / (double)Stopwatch.Frequency;
        tally.Latencies.Sort();
        if (latencies != null)
            File.AppendAllLines(latencies, tally.Latencies.Select(l => l.ToString("F3", System.Globalization.CultureInfo.InvariantCulture)));
        Console.WriteLine(JsonSerializer.Serialize(new Dictionary<string, object>
        {
            ["sent"] = tally.Sent,
            ["answered"] = tally.Answered,
            ["failed"] = tally.Failed,
            ["differing"] = tally.Differing,
            ["p50_ms"] = Percentile(tally.Latencies, 0.50),
            ["p99_ms"] = Percentile(tally.Latencies, 0.99),
            ["p999_ms"] = Percentile(tally.Latencies, 0.999),
            ["per_s"] = tally.Answered / elapsed,
            ["next"] = next,
            ["problems"] = tally.Problems,
        }));
        return 0;
    }

    static async Task<int> Main(string[] args)
    {
        if (args.Length == 3 && args[0] == "reference")
            return await Reference(args[1], args[2]);
        if ((args.Length == 8 || args.Length == 9) && args[0] == "run")
            return await Run(args[1], args[2], args[3], double.Parse(args[4]), double.Parse(args[5]),
                             int.Parse(args[6]), long.Parse(args[7]), args.Length == 9 ? args[8] : null);
        Console.Error.WriteLine("usage: soakload reference <url> <out> | run <url> <reference> <rate|closed> <seconds> <rate> <connections> <first>");
        return 2;
    }
}
