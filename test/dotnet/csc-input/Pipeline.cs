using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Threading;
using System.Threading.Tasks;

namespace CscInput;

public interface IStage<in TIn, out TOut>
{
    TOut Process(TIn input);
}

public sealed class Pipeline<T> where T : notnull
{
    private readonly List<Func<T, T>> stages = new();
    private int runs;

    public Pipeline<T> Then(Func<T, T> stage)
    {
        stages.Add(stage ?? throw new ArgumentNullException(nameof(stage)));
        return this;
    }

    public T Run(T input)
    {
        Interlocked.Increment(ref runs);
        T value = input;
        foreach (var stage in stages)
        {
            try
            {
                value = stage(value);
            }
            catch (Exception e) when (e is not OutOfMemoryException)
            {
                throw new InvalidOperationException($"stage failed after {runs} runs", e);
            }
        }
        return value;
    }

    public async Task<T> RunAsync(T input, CancellationToken token = default)
    {
        T value = input;
        foreach (var stage in stages)
        {
            token.ThrowIfCancellationRequested();
            await Task.Yield();
            value = stage(value);
        }
        return value;
    }

    public async IAsyncEnumerable<T> RunMany(IEnumerable<T> inputs,
                                             [EnumeratorCancellation] CancellationToken token = default)
    {
        foreach (var input in inputs)
            yield return await RunAsync(input, token);
    }
}

public static class Numbers
{
    public static T Sum<T>(ReadOnlySpan<T> values) where T : System.Numerics.INumber<T>
    {
        T total = T.Zero;
        foreach (var v in values)
            total += v;
        return total;
    }

    public static unsafe int Checksum(byte[] data)
    {
        int hash = 17;
        fixed (byte* p = data)
        {
            for (int i = 0; i < data.Length; i++)
                hash = unchecked(hash * 31 + p[i]);
        }
        return hash;
    }

    public static ref int Largest(int[] values)
    {
        int best = 0;
        for (int i = 1; i < values.Length; i++)
            if (values[i] > values[best])
                best = i;
        return ref values[best];
    }

    public static string Spell(int n) => n switch
    {
        < 0 => "minus " + Spell(-n),
        0 => "zero",
        1 => "one",
        2 => "two",
        3 => "three",
        >= 4 and < 10 => "several",
        _ => "many",
    };
}
