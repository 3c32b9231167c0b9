// An HTTP client for test_opentelemetry.py: Shop.Run GETs /item/1 and /item/2 from the server
// on 127.0.0.1:<port> with HttpClient, each through Shop.Fetch (async: it awaits the request),
// which calls Shop.Check with the response; Check throws for the second one (the server answers
// 500). Its output and exit code (0) must not change when traced.
using System;
using System.Net.Http;
using System.Threading;
using System.Threading.Tasks;

namespace OtelClient
{
    public static class Shop
    {
        public static void Run(string port)
        {
            using var http = new HttpClient();
            foreach (string path in new[] { "/item/1", "/item/2" })
            {
                // a pause before the second request, in which the server exports the first
                // one's spans (test_opentelemetry.py)
                if (path != "/item/1")
                    Thread.Sleep(500);
                try
                {
                    string item = Fetch(http, "http://127.0.0.1:" + port + path).GetAwaiter().GetResult();
                    Console.WriteLine(path + ": " + item);
                }
                catch (HttpRequestException e)
                {
                    Console.WriteLine(path + ": error " + (int?)e.StatusCode);
                }
            }
        }

        public static async Task<string> Fetch(HttpClient http, string url)
        {
            using HttpResponseMessage response = await http.GetAsync(url);
            Check(response);
            return await response.Content.ReadAsStringAsync();
        }

        public static void Check(HttpResponseMessage response)
        {
            response.EnsureSuccessStatusCode();
        }
    }

    public static class Program
    {
        public static int Main(string[] args)
        {
            Shop.Run(args[0]);
            return 0;
        }
    }
}
