using System.Globalization;
using Real.Core;
using Real.Shapes;

CultureInfo.DefaultThreadCurrentCulture = CultureInfo.InvariantCulture;
Console.WriteLine(Catalog.Report(args.Length > 0 ? int.Parse(args[0]) : 30));
Console.WriteLine(string.Join(",", Numbers.Fibonacci().Take(20)));
Console.WriteLine(Numbers.Gcd(1071, 462) + " " + Numbers.Gcd(1071L, 462L));
Console.WriteLine(Text.Table(new[] { ("alpha", 1234.5m), ("beta", -3m) }));
Console.WriteLine(await Async.SumAsync(Enumerable.Range(1, 100)));
try { Numbers.SafeDivide(1, 0); } catch (LedgerException e) { Console.WriteLine($"{e.Message} code {e.Code} inner {e.InnerException?.GetType().Name}"); }
var v = new Vec<int>(1, 2) + new Vec<int>(3, 4);
Console.WriteLine($"{v} dot {v.Dot(v)}");
string? maybe = args.Length > 5 ? args[5] : null;
if (args.Length > 5) Console.WriteLine(maybe.Length); // deliberate CS8602 warning
return 0;

/// <summary>Entry points for tests.</summary>
public static class AppApi
{
    /// <summary>Runs main-like logic into a string.</summary>
    public static string Run(int n) => Catalog.Report(n) + "\n" + string.Join(",", Numbers.Primes(n));
}
