// The shape of Clrie.Tracing before issue 28: Enter found its point by its text, Finish took
// no point number. A plugin that called Shim.Needs here would make every traced method throw
// MissingMethodException.
namespace Clrie.Tracing
{
    public static class Shim
    {
        public static object? Enter(string point, object? instance, object?[] arguments) => null;

        public static void Finish(object? tracer, object? result, object? exception)
        {
        }
    }
}

internal static class StartupHook
{
    public static void Initialize()
    {
    }
}
