// An HTTP server on HttpListener (no ASP.NET Core), for test_opentelemetry.py: it answers
// `count` requests on 127.0.0.1:<port>, then exits. Store.Handle answers a request with
// Store.Lookup's item; an unknown item throws out of both (traced: two spans with the Error
// status), and the loop answers 500. Its output and exit code (0) must not change when traced.
using System;
using System.Collections.Generic;
using System.Net;
using System.Text;

namespace OtelServer
{
    public static class Store
    {
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

    public static class Program
    {
        public static int Main(string[] args)
        {
            int port = int.Parse(args[0]);
            int count = int.Parse(args[1]);
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
                    Store.Handle(context);
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
    }
}
