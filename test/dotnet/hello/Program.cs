// A small app whose output and exit code must not change when clrie is attached.
using System;
using System.Linq;

static class Program
{
    static int Main(string[] args)
    {
        Console.WriteLine("hello from .NET " + Environment.Version);
        int sum = Enumerable.Range(1, 100).Where(i => i % 3 == 0).Sum();
        Console.WriteLine("sum of multiples of 3 up to 100: " + sum);
        Console.Error.WriteLine("a line on stderr");
        return 3;
    }
}
