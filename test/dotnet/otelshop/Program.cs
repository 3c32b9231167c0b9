// An HTTP server and its client, one process each, for test_opentelemetry.py (one app, so that
// the test builds one for each runtime):
//
//   otelshop server <port> <count>  answers <count> requests on 127.0.0.1:<port> with
//                                   HttpListener (no ASP.NET Core), then exits. Store.Handle
//                                   answers with Store.Lookup's item; an unknown item throws out
//                                   of both, and the loop answers 500.
//   otelshop client <port>          Shop.Run GETs /item/1 and /item/2 with HttpClient, each
//                                   through Shop.Fetch (async: it awaits the request), which
//                                   calls Shop.Check with the response; Check throws for the
//                                   second one. It pauses 0.5 s between the two.
//
// The output and exit code (0) of both must not change when traced.
using System;
using System.Collections.Generic;
using System.Net;
using System.Net.Http;
using System.Text;
using System.Threading;
using System.Threading.Tasks;

namespace OtelShop
{
    public static class Store
    {
        public static int Serve(int port, int count)
        {
            using var listener = new HttpListener();
            listener.Prefixes.Add("http://127.0.0.1:" + port + "/");
            listener.Start();
            Console.WriteLine("listening");
            for (int n = 0; n < count; n++)
            {
                HttpListenerContext context = listener.GetContext();
                string path = context.Request.Url!.AbsolutePath;
                try
                {
                    Handle(context);
                    Console.WriteLine("served " + path);
                }
                catch (KeyNotFoundException e)
                {
                    context.Response.StatusCode = 500;
                    context.Response.Close();
                    Console.WriteLine("failed " + path + ": " + e.Message);
                }
            }
            listener.Stop();
            return 0;
        }

        public static void Handle(HttpListenerContext context)
        {
            string item = Lookup(context.Request.Url!.AbsolutePath);
            byte[] body = Encoding.UTF8.GetBytes(item);
            context.Response.StatusCode = 200;
            context.Response.OutputStream.Write(body);
            context.Response.Close();
        }

        public static string Lookup(string path)
        {
            if (path == "/item/1")
                return "apple";
            throw new KeyNotFoundException("no item at " + path);
        }
    }

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
            if (args.Length == 3 && args[0] == "server")
                return Store.Serve(int.Parse(args[1]), int.Parse(args[2]));
            if (args.Length == 2 && args[0] == "client")
            {
                Shop.Run(args[1]);
                return 0;
            }
            Console.Error.WriteLine("usage: otelshop server <port> <count> | client <port>");
            return 2;
        }
    }
}
