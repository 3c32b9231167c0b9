using System.Globalization;
using Real.Core;
using Real.Shapes;
using Xunit;

namespace Real.Tests;

public class NumberTests
{
    [Theory]
    [InlineData(0, 1L)] [InlineData(1, 1L)] [InlineData(2, 2L)] [InlineData(3, 6L)] [InlineData(5, 120L)]
    [InlineData(10, 3628800L)] [InlineData(15, 1307674368000L)] [InlineData(20, 2432902008176640000L)]
    public void Factorial(int n, long expected) => Assert.Equal(expected, Numbers.Factorial(n));

    [Theory]
    [InlineData(21)] [InlineData(25)] [InlineData(30)] [InlineData(100)]
    public void FactorialOverflows(int n) => Assert.Throws<OverflowException>(() => Numbers.Factorial(n));

    [Theory]
    [InlineData(-1)] [InlineData(-100)]
    public void FactorialNegative(int n)
    {
        var e = Assert.Throws<ArgumentException>(() => Numbers.Factorial(n));
        Assert.Equal("n", e.ParamName);
    }

    public static IEnumerable<object[]> FibData() => Enumerable.Range(0, 60).Select(i => new object[] { i });

    [Theory]
    [MemberData(nameof(FibData))]
    public void FibonacciRecurrence(int i)
    {
        var f = Numbers.Fibonacci().Skip(i).Take(3).ToArray();
        Assert.Equal(f[0] + f[1], f[2]);
    }

    public static IEnumerable<object[]> GcdData()
    {
        var rnd = new Random(12345);
        for (int i = 0; i < 40; i++)
        {
            int g = rnd.Next(1, 50), a = rnd.Next(1, 1000), b = rnd.Next(1, 1000);
            yield return new object[] { a * g, b * g, g };
        }
    }

    [Theory]
    [MemberData(nameof(GcdData))]
    public void GcdDivides(int a, int b, int g)
    {
        int r = Numbers.Gcd(a, b);
        Assert.Equal(0, a % r); Assert.Equal(0, b % r); Assert.Equal(0, r % g);
        Assert.Equal((long)r, Numbers.Gcd((long)a, (long)b));
    }

    [Theory]
    [InlineData(10, new[] { 2, 3, 5, 7 })] [InlineData(2, new int[0])] [InlineData(20, new[] { 2, 3, 5, 7, 11, 13, 17, 19 })]
    public void Primes(int n, int[] expected) => Assert.Equal(expected, Numbers.Primes(n));

    [Theory]
    [InlineData(100, 25)] [InlineData(1000, 168)] [InlineData(10000, 1229)] [InlineData(100000, 9592)]
    public void PrimeCounts(int n, int count) => Assert.Equal(count, Numbers.Primes(n).Length);

    [Theory]
    [InlineData(null, "null")] [InlineData(-3, "negative int")] [InlineData(4, "even int")] [InlineData(7, "odd int")]
    [InlineData("", "empty string")] [InlineData("abc", "string of 3")] [InlineData(2.5, "2.50")] [InlineData('x', "Char")]
    [InlineData(true, "Boolean")] [InlineData(3L, "Int64")]
    public void Classify(object? o, string expected) => Assert.Equal(expected, Numbers.Classify(o));

    [Fact]
    public void ClassifyEnumerable() => Assert.Equal("ints: 6", Numbers.Classify(new List<int> { 1, 2, 3 }));

    [Theory]
    [InlineData(10, 2, 5)] [InlineData(-9, 3, -3)] [InlineData(7, 7, 1)] [InlineData(int.MaxValue, 1, int.MaxValue)]
    public void Divide(int a, int b, int q) => Assert.Equal(q, Numbers.SafeDivide(a, b));

    [Theory]
    [InlineData(1, 1, "divide by zero")] [InlineData(0, 2, "zero by zero")] [InlineData(-5, 1, "divide by zero")]
    public void DivideByZero(int a, int code, string message)
    {
        int before = Counter.Value;
        var e = Assert.Throws<LedgerException>(() => Numbers.SafeDivide(a, 0));
        Assert.Equal(code, e.Code);
        Assert.Equal(message, e.Message);
        Assert.IsType<DivideByZeroException>(e.InnerException);
        Assert.True(Counter.Value > before);
    }
}

public class StackTests
{
    public static IEnumerable<object[]> Sizes() => Enumerable.Range(1, 30).Select(i => new object[] { i });

    [Theory]
    [MemberData(nameof(Sizes))]
    public void PushPopInts(int n)
    {
        var s = new BoundedStack<int>(n);
        for (int i = 0; i < n; i++) s.Push(i);
        Assert.Throws<InvalidOperationException>(() => s.Push(-1));
        Assert.Equal(Enumerable.Range(0, n).Reverse(), s);
        for (int i = n - 1; i >= 0; i--) Assert.Equal(i, s.Pop());
        Assert.False(s.TryPop(out _));
    }

    [Theory]
    [InlineData("a")] [InlineData("hello world")] [InlineData("x,y,z")]
    public void PushPopStrings(string text)
    {
        var parts = text.Split(',');
        var s = new BoundedStack<string>(parts.Length);
        foreach (var p in parts) s.Push(p);
        Assert.True(s.TryPop(out var last));
        Assert.Equal(parts[^1], last);
    }

    [Theory]
    [InlineData(0)] [InlineData(-1)]
    public void BadCapacity(int c)
    {
        var e = Assert.Throws<ArgumentOutOfRangeException>(() => new BoundedStack<object>(c));
        Assert.Equal(c, e.ActualValue);
    }

    [Fact]
    public void StructsAndNullables()
    {
        var s = new BoundedStack<(int, string?)>(2);
        s.Push((1, null)); s.Push((2, "b"));
        Assert.Equal((2, "b"), s.Pop());
        var t = new BoundedStack<decimal?>(1);
        t.Push(null);
        Assert.True(t.TryPop(out var d));
        Assert.Null(d);
    }
}

public class TextTests
{
    [Theory]
    [InlineData("a b a", "a", 2)] [InlineData("The the THE", "the", 3)] [InlineData("x, y. z; x", "x", 2)]
    [InlineData("one", "one", 1)] [InlineData("", "none", 0)]
    public void WordCounts(string text, string word, int count)
    {
        var d = Text.WordCounts(text);
        Assert.Equal(count, d.TryGetValue(word, out var c) ? c : 0);
    }

    public static IEnumerable<object[]> CaesarData()
    {
        string[] words = { "hello", "World", "xyz", "ABC", "mixed Case 123!", "" };
        foreach (var w in words)
            foreach (var k in new[] { 0, 1, 13, 25, -3, 52 })
                yield return new object[] { w, k };
    }

    [Theory]
    [MemberData(nameof(CaesarData))]
    public void CaesarRoundTrip(string s, int shift) => Assert.Equal(s, Text.Caesar(Text.Caesar(s, shift), -shift));

    [Theory]
    [InlineData("a b c", "c b a")] [InlineData("one", "one")] [InlineData("x  y", "y  x")]
    public void ReverseWords(string s, string r) => Assert.Equal(r, Text.ReverseWords(s));

    [Theory]
    [InlineData(5, 1.5, "i=00005 d=1.500E+000 t=2024-02-29 13:45 hex=5")]
    [InlineData(255, -0.001, "i=00255 d=-1.000E-003 t=2024-02-29 13:45 hex=ff")]
    [InlineData(-1, 1e300, "i=-00001 d=1.000E+300 t=2024-02-29 13:45 hex=ffffffff")]
    public void Describe(int i, double d, string expected) =>
        Assert.Equal(expected, Text.Describe(i, d, new DateTime(2024, 2, 29, 13, 45, 10)));

    [Fact]
    public void Table()
    {
        var t = Text.Table(new[] { ("alpha", 1234.5m), ("b", -0.125m) });
        Assert.Equal("alpha     |    1,234.50|0005\nb         |       -0.13|0001\n", t);
    }

    [Theory]
    [InlineData("en-US", 1234.5, "1,234.50")] [InlineData("de-DE", 1234.5, "1.234,50")] [InlineData("fr-FR", 0.5, "0,50")]
    [InlineData("", 1e6, "1,000,000.00")]
    public void CultureFormatting(string culture, double value, string expected)
    {
        var c = CultureInfo.GetCultureInfo(culture);
        Assert.Equal(expected.Replace(" ", "\u202f"), value.ToString("N2", c).Replace("\u00a0", "\u202f"));
    }
}

public class AsyncTests
{
    public static IEnumerable<object[]> Counts() => Enumerable.Range(0, 25).Select(i => new object[] { i * 3 });

    [Theory]
    [MemberData(nameof(Counts))]
    public async Task SumAsync(int n) => Assert.Equal(n * (n + 1) / 2, await Async.SumAsync(Enumerable.Range(1, n)));

    [Theory]
    [InlineData(0)] [InlineData(1)] [InlineData(10)] [InlineData(50)]
    public async Task CountAsync(int n)
    {
        var seen = new List<int>();
        await foreach (var i in Async.CountAsync(n)) seen.Add(i);
        Assert.Equal(Enumerable.Range(0, n), seen);
    }

    [Theory]
    [InlineData("boom")] [InlineData("bang")] [InlineData("")]
    public async Task FailAsync(string message)
    {
        var e = await Assert.ThrowsAsync<LedgerException>(async () => await Async.FailAsync(message));
        Assert.Equal(42, e.Code);
        Assert.Equal(message, e.Message);
    }

    [Theory]
    [InlineData(1)] [InlineData(8)] [InlineData(100)]
    public async Task ParallelSquares(int n)
    {
        var r = await Async.ParallelSquares(n);
        Assert.Equal(Enumerable.Range(0, n).Select(i => i * i), r);
    }

    [Fact]
    public async Task Cancellation()
    {
        using var cts = new CancellationTokenSource();
        cts.Cancel();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => Task.Delay(1000, cts.Token));
    }
}

public class ShapeTests
{
    public static IEnumerable<object[]> Radii() => Enumerable.Range(1, 20).Select(i => new object[] { i * 0.5 });

    [Theory]
    [MemberData(nameof(Radii))]
    public void CircleArea(double r)
    {
        var c = new Circle(r);
        Assert.Equal(Math.PI * r * r, c.Area, 10);
        Assert.Equal(c, new Circle(r));
        Assert.StartsWith("circle: area ", c.ToString());
    }

    [Theory]
    [InlineData(3, 4, 5, 6.0)] [InlineData(5, 5, 5, 10.825317547305483)] [InlineData(7, 24, 25, 84.0)]
    public void TriangleArea(double a, double b, double c, double area) => Assert.Equal(area, Triangle.Create(a, b, c).Area, 9);

    [Theory]
    [InlineData(1, 2, 3)] [InlineData(1, 1, 5)] [InlineData(10, 1, 1)]
    public void NoTriangle(double a, double b, double c)
    {
        var e = Assert.Throws<LedgerException>(() => Triangle.Create(a, b, c));
        Assert.Equal(7, e.Code);
    }

    [Theory]
    [InlineData(1, 2, 3, 4)] [InlineData(-1, 0, 1, 0)] [InlineData(100, 200, -100, -200)]
    public void VecInt(int x1, int y1, int x2, int y2)
    {
        var s = new Vec<int>(x1, y1) + new Vec<int>(x2, y2);
        Assert.Equal(new Vec<int>(x1 + x2, y1 + y2), s);
        Assert.Equal(x1 * x2 + y1 * y2, new Vec<int>(x1, y1).Dot(new Vec<int>(x2, y2)));
    }

    [Theory]
    [InlineData(0.5, 1.5)] [InlineData(-2.25, 4)]
    public void VecDouble(double x, double y) => Assert.Equal(x * x + y * y, new Vec<double>(x, y).Dot(new Vec<double>(x, y)));

    [Theory]
    [InlineData(3)] [InlineData(12)] [InlineData(30)] [InlineData(99)]
    public void Totals(int n)
    {
        var shapes = Catalog.Sample(n);
        var totals = Catalog.TotalAreaByKind(shapes);
        Assert.Equal(Math.Round(shapes.Sum(s => s.Area), 3), Math.Round(totals.Values.Sum(), 3));
        Assert.Equal(totals.Keys.OrderBy(k => k, StringComparer.Ordinal), totals.Keys);
        Assert.Equal(shapes.Max(s => s.Area), Catalog.Largest(shapes)!.Area);
    }

    [Theory]
    [InlineData(10)] [InlineData(50)]
    public void AppReport(int n)
    {
        var text = AppApi.Run(n);
        Assert.Contains("largest", text);
        Assert.EndsWith(string.Join(",", Numbers.Primes(n)), text);
    }
}

public class LinqDictionaryTests
{
    public static IEnumerable<object[]> Seeds() => Enumerable.Range(0, 30).Select(i => new object[] { i });

    [Theory]
    [MemberData(nameof(Seeds))]
    public void GroupJoinAggregate(int seed)
    {
        var rnd = new Random(seed);
        var items = Enumerable.Range(0, 200).Select(_ => (Key: rnd.Next(10), Value: rnd.Next(1000))).ToList();
        var grouped = items.GroupBy(x => x.Key).ToDictionary(g => g.Key, g => g.Select(x => x.Value).ToList());
        var lookup = items.ToLookup(x => x.Key, x => x.Value);
        foreach (var (k, list) in grouped)
            Assert.Equal(list.Sum(), lookup[k].Sum());
        var joined = grouped.Keys.Join(Enumerable.Range(0, 10), k => k, i => i, (k, i) => k * i).Sum();
        Assert.Equal(grouped.Keys.Sum(k => k * k), joined);
        var sorted = items.OrderBy(x => x.Value).ThenByDescending(x => x.Key).Select(x => x.Value).ToArray();
        Assert.True(sorted.Zip(sorted.Skip(1)).All(p => p.First <= p.Second));
        var agg = items.Aggregate(0L, (acc, x) => acc + x.Key * x.Value);
        Assert.Equal(items.Sum(x => (long)x.Key * x.Value), agg);
        var sd = new SortedDictionary<int, int>(grouped.ToDictionary(kv => kv.Key, kv => kv.Value.Count));
        Assert.Equal(200, sd.Values.Sum());
        Assert.Throws<KeyNotFoundException>(() => grouped[-1]);
        Assert.Throws<ArgumentException>(() => grouped.Add(grouped.Keys.First(), new List<int>()));
    }

    [Theory]
    [InlineData("a=1;b=2;c=3", "b", "2")] [InlineData("x=10", "x", "10")] [InlineData("k=v;k2=v2", "k2", "v2")]
    public void ParsePairs(string text, string key, string value)
    {
        var d = text.Split(';').Select(p => p.Split('=')).ToDictionary(p => p[0], p => p[1]);
        Assert.Equal(value, d[key]);
        Assert.Equal(text, string.Join(";", d.Select(kv => $"{kv.Key}={kv.Value}")));
    }
}
