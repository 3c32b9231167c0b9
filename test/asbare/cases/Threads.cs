// Threads, the GC and memory: finalizers under allocation pressure, Thread.Interrupt,
// thread-static and AsyncLocal values across await, monitors, stackalloc without zeroing, and
// the debugger API when no debugger is attached.
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Linq;
using System.Runtime.CompilerServices;
using System.Threading;
using System.Threading.Tasks;

static class Threads
{
    static int finalized;

    sealed class Finalizable
    {
        public readonly byte[] Payload = new byte[64];
        ~Finalizable() => Interlocked.Increment(ref finalized);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static WeakReference MakeGarbage(int count)
    {
        for (int i = 0; i < count; i++)
            _ = new Finalizable();
        return new WeakReference(new Finalizable());
    }

    public static int GcFinalizers(string[] args)
    {
        int gen2Before = GC.CollectionCount(2);
        var weak = MakeGarbage(10000);
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
        Console.WriteLine("finalized " + finalized + " of 10001, the weak reference is " +
                          (weak.IsAlive ? "alive" : "dead"));
        // Pressure: 400 MB in short-lived arrays, some kept for a while.
        var kept = new List<byte[]>();
        long total = 0;
        for (int i = 0; i < 4000; i++) {
            var block = new byte[100_000];
            block[i % block.Length] = 1;
            total += block.Length;
            if (i % 10 == 0)
                kept.Add(block);
            if (kept.Count > 50)
                kept.RemoveRange(0, 25);
        }
        var table = new ConditionalWeakTable<object, string>();
        var key = new object();
        table.Add(key, "value");
        GC.Collect(2, GCCollectionMode.Forced, blocking: true, compacting: true);
        Console.WriteLine("allocated " + total / 1_000_000 + " MB, kept " + kept.Count +
                          ", table still holds the key: " + table.TryGetValue(key, out _));
        GC.KeepAlive(key);
        Console.WriteLine("a full collection happened: " + (GC.CollectionCount(2) > gen2Before));
        return 0;
    }

    public static int Interrupt(string[] args)
    {
        var log = new List<string>();
        var sleeper = new Thread(() => {
            try {
                Thread.Sleep(Timeout.Infinite);
            } catch (ThreadInterruptedException e) {
                lock (log)
                    log.Add("sleeper: " + e.GetType().Name);
            }
        });
        sleeper.Start();
        while (sleeper.ThreadState != System.Threading.ThreadState.WaitSleepJoin)
            Thread.Sleep(1);
        sleeper.Interrupt();
        sleeper.Join();

        var gate = new object();
        var waiter = new Thread(() => {
            lock (gate) {
                try {
                    Monitor.Wait(gate);
                } catch (ThreadInterruptedException) {
                    lock (log)
                        log.Add("waiter: interrupted in Monitor.Wait, holds the lock again: " +
                                Monitor.IsEntered(gate));
                }
            }
        });
        waiter.Start();
        while (waiter.ThreadState != System.Threading.ThreadState.WaitSleepJoin)
            Thread.Sleep(1);
        waiter.Interrupt();
        waiter.Join();

        // An interrupt that arrives before the thread blocks waits for its next wait. The thread
        // is running its own code (spinning, no wait) when the interrupt comes, so that the
        // runtime's own waits while it starts and compiles the thread's method (which a
        // pending interrupt could meet first on a loaded machine) are behind it.
        int running = 0, interrupted = 0;
        var early = new Thread(() => {
            Volatile.Write(ref running, 1);
            while (Volatile.Read(ref interrupted) == 0)
                Thread.SpinWait(20);
            try {
                Thread.Sleep(10);
                lock (log)
                    log.Add("early: not interrupted (wrong)");
            } catch (ThreadInterruptedException) {
                lock (log)
                    log.Add("early: interrupted at its first wait");
            }
        });
        early.Start();
        while (Volatile.Read(ref running) == 0)
            Thread.SpinWait(20);
        early.Interrupt();
        Volatile.Write(ref interrupted, 1);
        early.Join();
        foreach (var line in log)
            Console.WriteLine(line);
        return 0;
    }

    [ThreadStatic]
    static int perThread;

    static readonly AsyncLocal<string?> Flowing = new();
    static readonly ThreadLocal<int> Local = new(() => 100);

    static async Task<string> Child()
    {
        string before = Flowing.Value ?? "null";
        Flowing.Value = "set by the child";
        await Task.Delay(1);
        return "child saw " + before + ", then " + Flowing.Value;
    }

    static async Task Across()
    {
        Flowing.Value = "outer";
        await Task.Yield();
        Console.WriteLine("after Yield: " + Flowing.Value);
        Console.WriteLine(await Child());
        Console.WriteLine("after the child: " + Flowing.Value);
        Console.WriteLine("in Task.Run: " + await Task.Run(() => Flowing.Value));
        // (A thread of its own: Task.Run's task may be run inline by the waiting thread.)
        string? suppressed = "not run";
        var thread = new Thread(() => suppressed = Flowing.Value ?? "null");
        using (ExecutionContext.SuppressFlow())
            thread.Start();
        thread.Join();
        Console.WriteLine("a thread started with the flow suppressed: " + suppressed);
    }

    public static int ThreadStaticAndAsyncLocal(string[] args)
    {
        perThread = 5;
        Local.Value = 7;
        int other = -1, otherLocal = -1;
        var thread = new Thread(() => {
            other = perThread;
            otherLocal = Local.Value;
            perThread = 9;
        });
        thread.Start();
        thread.Join();
        Console.WriteLine("thread-static: here " + perThread + ", there " + other);
        Console.WriteLine("ThreadLocal: here " + Local.Value + ", there " + otherLocal);
        Across().GetAwaiter().GetResult();
        return 0;
    }

    public static int MonitorWaitPulse(string[] args)
    {
        var queue = new Queue<int>();
        var gate = new object();
        long consumed = 0;
        const int items = 20000;
        var consumer = new Thread(() => {
            for (int n = 0; n < items; n++) {
                lock (gate) {
                    while (queue.Count == 0)
                        Monitor.Wait(gate);
                    consumed += queue.Dequeue();
                }
            }
        });
        consumer.Start();
        for (int i = 1; i <= items; i++) {
            lock (gate) {
                queue.Enqueue(i);
                Monitor.Pulse(gate);
            }
        }
        consumer.Join();
        Console.WriteLine("consumed " + consumed);

        var semaphore = new SemaphoreSlim(2);
        int inside = 0, most = 0;
        Parallel.For(0, 64, i => {
            semaphore.Wait();
            int now = Interlocked.Increment(ref inside);
            int seen;
            while ((seen = Volatile.Read(ref most)) < now && Interlocked.CompareExchange(ref most, now, seen) != seen) {
            }
            Thread.SpinWait(100);
            Interlocked.Decrement(ref inside);
            semaphore.Release();
        });
        Console.WriteLine("at most 2 inside the semaphore: " + (most <= 2));
        var barrier = new Barrier(3);
        var phases = new int[3];
        var workers = Enumerable.Range(0, 3).Select(t => new Thread(() => {
            for (int p = 0; p < 5; p++) {
                phases[t]++;
                barrier.SignalAndWait();
            }
        })).ToArray();
        foreach (var w in workers)
            w.Start();
        foreach (var w in workers)
            w.Join();
        Console.WriteLine("barrier phases: " + barrier.CurrentPhaseNumber + ", " + string.Join(" ", phases));
        return 0;
    }

    [SkipLocalsInit]
    [MethodImpl(MethodImplOptions.NoInlining)]
    static long SumOfSquares(int n)
    {
        Span<long> values = stackalloc long[n];
        for (int i = 0; i < n; i++)
            values[i] = (long)i * i;
        long sum = 0;
        foreach (long v in values)
            sum += v;
        return sum;
    }

    [SkipLocalsInit]
    [MethodImpl(MethodImplOptions.NoInlining)]
    static unsafe int Nested(int depth)
    {
        byte* buffer = stackalloc byte[128];
        for (int i = 0; i < 128; i++)
            buffer[i] = (byte)(depth + i);
        int here = buffer[127];
        return depth == 0 ? here : here + Nested(depth - 1);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static int Zeroed()
    {
        Span<int> zeros = stackalloc int[64];
        int sum = 0;
        foreach (int z in zeros)
            sum += z;
        return sum;
    }

    public static int StackallocSkipLocalsInit(string[] args)
    {
        Console.WriteLine("sum of squares: " + SumOfSquares(1000));
        Console.WriteLine("nested: " + Nested(50));
        Console.WriteLine("stackalloc with locals init is zeroed: " + (Zeroed() == 0));
        return 0;
    }

    public static int DebuggerGuarded(string[] args)
    {
        if (Debugger.IsAttached)
            Debugger.Break();
        Console.WriteLine("a debugger is attached: " + Debugger.IsAttached);
        Console.WriteLine("logging: " + Debugger.IsLogging());
        Debugger.Log(0, "asbare", "a message for a debugger\n");
        Debug.WriteLine("Debug.WriteLine (compiled out of Release)");
        Trace.WriteLine("Trace.WriteLine goes to the default listener");
        Console.WriteLine("still running");
        return 0;
    }
}
