using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Threading.Tasks;
using Xunit;

public class LibraryTests
{
    [Theory]
    [InlineData(-5, "negative")]
    [InlineData(0, "zero")]
    [InlineData(7, "odd")]
    [InlineData(8, "even")]
    public void Classifies(int value, string expected) => Assert.Equal(expected, Library.Classify(value));

    [Fact]
    public void DividesByZeroAndCatches() => Assert.Equal(10000, Library.CountDivisionFailures(20000));

    [Fact]
    public void DividesByZeroInTheTest()
    {
        int zero = Environment.ProcessorCount - Environment.ProcessorCount;
        Assert.Throws<DivideByZeroException>(() => 1 / zero);
        Assert.Throws<OverflowException>(() => int.MinValue / (zero - 1));
    }

    [Fact]
    public void NullReferenceIsCaught()
    {
        string? nothing = null;
        Assert.Throws<NullReferenceException>(() => nothing!.Length);
    }

    [Fact]
    public void Filters()
    {
        Assert.Equal("x", Library.Filtered(new ArgumentException("m", "x")));
        Assert.Equal("other argument", Library.Filtered(new ArgumentException("m", "y")));
        Assert.Equal("any", Library.Filtered(new FormatException()));
        Assert.True(Library.FilterCalls >= 6);
    }

    [Fact]
    public void GenericMaxOfInts() => Assert.Equal(9, Library.Max(new[] { 3, 9, 2 }));

    [Fact]
    public void GenericMaxOfStrings() => Assert.Equal("pear", Library.Max(new[] { "apple", "pear", "fig" }));

    [Fact]
    public void GenericMaxOfStructs() =>
        Assert.Equal(3, Library.Max(new[] { new Pair { A = 1, B = 1 }, new Pair { A = 2, B = 3 } }).B);

    [Fact]
    public void GenericMaxOfNothingThrows() =>
        Assert.Throws<InvalidOperationException>(() => Library.Max(Array.Empty<int>()));

    [Fact]
    public async Task SumsAsync() => Assert.Equal(45, await Library.SumAsync(10, false));

    [Fact]
    public async Task FailsAsync()
    {
        var e = await Assert.ThrowsAsync<InvalidOperationException>(() => Library.SumAsync(3, true));
        Assert.Equal("failed after 3", e.Message);
    }

    [Fact]
    public void IteratorStopsEarly()
    {
        int before = Library.Disposed;
        Assert.Equal(new[] { 0, 2, 4 }, Library.Evens(100).Take(3).ToArray());
        Assert.Equal(before + 1, Library.Disposed);
    }

    [Theory]
    [InlineData(42, "big int")]
    [InlineData(3, "int")]
    [InlineData("", "empty string")]
    [InlineData("x", "string")]
    public void Shapes(object o, string expected) => Assert.Equal(expected, Library.Shape(o));

    [Fact]
    public void CheckedOverflowFallsBack() => Assert.Equal(4000000000000L, Library.Checked(2000000, 2000000));

    [Fact]
    public void StaticInitializer() => Assert.Equal("computed 1970", Lazy.Value);

    [Fact]
    public void ParallelWork()
    {
        long total = 0;
        System.Threading.Tasks.Parallel.For(0, 1000, i => System.Threading.Interlocked.Add(ref total, Library.SafeDivide(i, 1)));
        Assert.Equal(499500, total);
    }

    [Fact]
    public void LocalFunctionsAndClosures()
    {
        int captured = 2;
        int Twice(int x) => x * captured;
        Func<int, int> thrice = x => x * (captured + 1);
        Assert.Equal(14, Twice(3) + thrice(3) - 1);
    }

    // A .NET program this test starts inherits the profiler from the test host, as under the
    // collector every child does: its output must be its own (CLRIE_COVTESTS_CHILD names it).
    [Fact]
    public void ChildProcessOutputIsItsOwn()
    {
        string? child = Environment.GetEnvironmentVariable("CLRIE_COVTESTS_CHILD");
        if (string.IsNullOrEmpty(child))
            return;
        var start = new ProcessStartInfo("dotnet") {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        start.ArgumentList.Add(child);
        using var process = Process.Start(start)!;
        string output = process.StandardOutput.ReadToEnd();
        string error = process.StandardError.ReadToEnd();
        process.WaitForExit();
        Assert.Equal(3, process.ExitCode);
        Assert.StartsWith("hello from .NET", output);
        Assert.Equal("a line on stderr\n", error);
    }

    // Which instrumentation engine the test host loaded, for the script that runs the tests
    // (CLRIE_COVTESTS_MAPS names the file).
    [Fact]
    public void RecordsTheEngine()
    {
        string? file = Environment.GetEnvironmentVariable("CLRIE_COVTESTS_MAPS");
        if (string.IsNullOrEmpty(file))
            return;
        var engines = File.ReadAllLines("/proc/self/maps")
                          .Select(line => line.Split(' ', StringSplitOptions.RemoveEmptyEntries))
                          .Where(words => words.Length >= 6 && words[5].EndsWith("/libInstrumentationEngine.so"))
                          .Select(words => words[5])
                          .Distinct();
        File.WriteAllLines(file, engines);
    }
}
