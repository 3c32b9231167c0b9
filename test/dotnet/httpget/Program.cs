// An HTTP client calling a server on 127.0.0.1, both in this process: the server answers each
// connection with "hello <n>"; the client sends two GETs with HttpClient.SendAsync, which
// test_tracer.py traces (a framework method of System.Net.Http, precompiled with
// ReadyToRun). Its output and exit code (0) must not change when traced.
using System;
using System.Net;
using System.Net.Http;
using System.Net.Sockets;
using System.Text;
using System.Threading.Tasks;

namespace HttpGet
{
    public static class Program
    {
        static async Task Serve(TcpListener listener, int count)
        {
            for (int n = 1; n <= count; n++)
            {
                using TcpClient client = await listener.AcceptTcpClientAsync();
                using NetworkStream stream = client.GetStream();
                var request = new StringBuilder();
                var buffer = new byte[4096];
                while (!request.ToString().Contains("\r\n\r\n"))
                {
                    int read = await stream.ReadAsync(buffer);
                    if (read == 0)
                        break;
                    request.Append(Encoding.ASCII.GetString(buffer, 0, read));
                }
                string body = "hello " + n;
                byte[] answer = Encoding.ASCII.GetBytes(
                    "HTTP/1.1 200 OK\r\nContent-Length: " + body.Length +
                    "\r\nConnection: close\r\n\r\n" + body);
                await stream.WriteAsync(answer);
            }
        }

        static async Task<int> Main()
        {
            var listener = new TcpListener(IPAddress.Loopback, 0);
            listener.Start();
            int port = ((IPEndPoint)listener.LocalEndpoint).Port;
            Task server = Serve(listener, 2);
            using var http = new HttpClient();
            for (int i = 0; i < 2; i++)
            {
                using var request = new HttpRequestMessage(HttpMethod.Get,
                                                           "http://127.0.0.1:" + port + "/item/" + i);
                using HttpResponseMessage response = await http.SendAsync(request);
                Console.WriteLine((int)response.StatusCode + " " +
                                  await response.Content.ReadAsStringAsync());
            }
            await server;
            listener.Stop();
            return 0;
        }
    }
}
