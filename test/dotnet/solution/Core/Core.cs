using System.Globalization;
using System.Text;

namespace Real.Core;

/// <summary>A failure of the ledger.</summary>
public sealed class LedgerException : Exception
{
    /// <summary>Creates it.</summary>
    public LedgerException(string message, Exception? inner = null) : base(message, inner) { }
    /// <summary>The code.</summary>
    public int Code { get; init; }
}

/// <summary>A generic bounded stack.</summary>
public sealed class BoundedStack<T> : IEnumerable<T>
{
    private readonly T[] _items;
    private int _count;
    /// <summary>Creates it.</summary>
    public BoundedStack(int capacity)
    {
        if (capacity <= 0) throw new ArgumentOutOfRangeException(nameof(capacity), capacity, "capacity must be positive");
        _items = new T[capacity];
    }
    /// <summary>Count.</summary>
    public int Count => _count;
    /// <summary>Push.</summary>
    public void Push(T item)
    {
        if (_count == _items.Length) throw new InvalidOperationException($"stack full at {_count}");
        _items[_count++] = item;
    }
    /// <summary>Pop.</summary>
    public T Pop() => _count == 0 ? throw new InvalidOperationException("stack empty") : _items[--_count];
    /// <summary>TryPop.</summary>
    public bool TryPop(out T? item)
    {
        if (_count == 0) { item = default; return false; }
        item = _items[--_count];
        return true;
    }
    /// <summary>Enumerate.</summary>
    public IEnumerator<T> GetEnumerator()
    {
        for (int i = _count - 1; i >= 0; i--) yield return _items[i];
    }
    System.Collections.IEnumerator System.Collections.IEnumerable.GetEnumerator() => GetEnumerator();
}

/// <summary>Math helpers.</summary>
public static class Numbers
{
    /// <summary>Factorial with overflow check.</summary>
    public static long Factorial(int n)
    {
        if (n < 0) throw new ArgumentException("negative", nameof(n));
        long r = 1;
        checked { for (int i = 2; i <= n; i++) r *= i; }
        return r;
    }
    /// <summary>Fibonacci iterator.</summary>
    public static IEnumerable<long> Fibonacci()
    {
        long a = 0, b = 1;
        while (true) { yield return a; (a, b) = (b, a + b); }
    }
    /// <summary>GCD.</summary>
    public static T Gcd<T>(T a, T b) where T : System.Numerics.INumber<T>
    {
        while (b != T.Zero) (a, b) = (b, a % b);
        return T.Abs(a);
    }
    /// <summary>Primes below n.</summary>
    public static int[] Primes(int n)
    {
        var sieve = new bool[Math.Max(n, 2)];
        var result = new List<int>();
        for (int i = 2; i < n; i++)
        {
            if (sieve[i]) continue;
            result.Add(i);
            for (long j = (long)i * i; j < n; j += i) sieve[j] = true;
        }
        return result.ToArray();
    }
    /// <summary>Classify with a switch.</summary>
    public static string Classify(object? o) => o switch
    {
        null => "null",
        int i when i < 0 => "negative int",
        int i => i % 2 == 0 ? "even int" : "odd int",
        string { Length: 0 } => "empty string",
        string s => "string of " + s.Length,
        IEnumerable<int> e => "ints: " + e.Sum(),
        double d => d.ToString("F2", CultureInfo.InvariantCulture),
        _ => o.GetType().Name,
    };
    /// <summary>Divide, catching and wrapping.</summary>
    public static int SafeDivide(int a, int b)
    {
        try { return a / b; }
        catch (DivideByZeroException e) when (a == 0) { throw new LedgerException("zero by zero", e) { Code = 2 }; }
        catch (DivideByZeroException e) { throw new LedgerException("divide by zero", e) { Code = 1 }; }
        finally { Counter.Increment(); }
    }
}

/// <summary>Thread-safe counter.</summary>
public static class Counter
{
    private static int _value;
    /// <summary>Value.</summary>
    public static int Value => Volatile.Read(ref _value);
    /// <summary>Inc.</summary>
    public static int Increment() => Interlocked.Increment(ref _value);
}

/// <summary>Formatting helpers.</summary>
public static class Text
{
    /// <summary>Formats a table.</summary>
    public static string Table(IEnumerable<(string Name, decimal Amount)> rows)
    {
        var sb = new StringBuilder();
        foreach (var (name, amount) in rows)
            sb.AppendFormat(CultureInfo.InvariantCulture, "{0,-10}|{1,12:N2}|{2:X4}\n", name, amount, name.GetHashCode() & 0 | name.Length);
        return sb.ToString();
    }
    /// <summary>Word counts.</summary>
    public static Dictionary<string, int> WordCounts(string text)
    {
        var d = new Dictionary<string, int>(StringComparer.OrdinalIgnoreCase);
        foreach (var w in text.Split(new[] { ' ', ',', '.', ';', '\n' }, StringSplitOptions.RemoveEmptyEntries))
            d[w] = d.TryGetValue(w, out var c) ? c + 1 : 1;
        return d;
    }
    /// <summary>Reverse words.</summary>
    public static string ReverseWords(string s) => string.Join(' ', s.Split(' ').Reverse());
    /// <summary>Interpolation.</summary>
    public static string Describe(int i, double d, DateTime t) =>
        string.Create(CultureInfo.InvariantCulture, $"i={i:D5} d={d:E3} t={t:yyyy-MM-dd HH:mm} hex={i:x}");
    /// <summary>Caesar.</summary>
    public static string Caesar(string s, int shift)
    {
        Span<char> buf = s.Length < 256 ? stackalloc char[s.Length] : new char[s.Length];
        for (int i = 0; i < s.Length; i++)
        {
            char c = s[i];
            buf[i] = char.IsAsciiLetterLower(c) ? (char)('a' + (c - 'a' + shift % 26 + 26) % 26)
                   : char.IsAsciiLetterUpper(c) ? (char)('A' + (c - 'A' + shift % 26 + 26) % 26) : c;
        }
        return new string(buf);
    }
}

/// <summary>Async helpers.</summary>
public static class Async
{
    /// <summary>Sum with awaits.</summary>
    public static async Task<int> SumAsync(IEnumerable<int> values)
    {
        int total = 0;
        foreach (var v in values)
        {
            await Task.Yield();
            total += v;
        }
        return total;
    }
    /// <summary>Async enumerable.</summary>
    public static async IAsyncEnumerable<int> CountAsync(int n)
    {
        for (int i = 0; i < n; i++) { await Task.Delay(0); yield return i; }
    }
    /// <summary>Throws after awaiting.</summary>
    public static async ValueTask<int> FailAsync(string message)
    {
        await Task.Yield();
        throw new LedgerException(message) { Code = 42 };
    }
    /// <summary>WhenAll.</summary>
    public static async Task<int[]> ParallelSquares(int n)
    {
        var tasks = Enumerable.Range(0, n).Select(i => Task.Run(() => i * i));
        return await Task.WhenAll(tasks);
    }
}
