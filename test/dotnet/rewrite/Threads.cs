// The same methods first called from several threads at once (the engine instruments
// methods concurrently); results are printed only after every thread has finished.
using System;
using System.Linq;
using System.Runtime.CompilerServices;
using System.Threading;
using System.Threading.Tasks;

static class Threads
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    static long Work(int seed)
    {
        long h = seed;
        for (int i = 0; i < 20_000; i++)
            h = (h * 6364136223846793005L + 1442695040888963407L) ^ (h >> 17);
        return h & 0xFFFF;
    }

    sealed class Worker
    {
        public long Result;
        readonly int seed;
        public Worker(int seed) => this.seed = seed;
        public void Run() => Result = Work(seed) + Helper(seed);
        [MethodImpl(MethodImplOptions.NoInlining)]
        static int Helper(int n) => n switch { 0 => 1, 1 => 2, _ => n * 3 };
    }

    public static void Run()
    {
        var workers = Enumerable.Range(0, 6).Select(i => new Worker(i)).ToArray();
        using var start = new ManualResetEventSlim(false);
        var threads = workers.Select(w => new Thread(() => { start.Wait(); w.Run(); })).ToArray();
        foreach (var t in threads)
            t.Start();
        start.Set();
        foreach (var t in threads)
            t.Join();
        Console.WriteLine("threads = " + string.Join(",", workers.Select(w => w.Result)));
        long total = 0;
        Parallel.For(0, 64, i => Interlocked.Add(ref total, Work(i) % 97));
        Console.WriteLine("parallel = " + total);
        var locked = 0;
        var gate = new object();
        Parallel.For(0, 100, i => { lock (gate) { locked += i; } });
        Console.WriteLine("locked = " + locked);
    }
}
