// JitterlabProbe sends a game's telemetry to jitterlab: one small UDP
// datagram per rendered frame from the game client (SendFrame), and, if the
// server has one to give, one per server step (SendTick). `lab proxy
// --telemetry HOST:PORT` receives them. The datagram is the flat JSON of
// docs/reference/telemetry.md, version 1.
//
// Dependency-free: only the .NET base library (System, System.Net.Sockets),
// so it drops into a Unity project or any .NET game as this one file. It
// never throws from a send and never blocks a frame: a datagram the
// socket cannot take now is counted in Failed and forgotten.
// Cost: one write of about 450 bytes per frame into a buffer it keeps, and
// a short string per number formatted.

using System;
using System.Globalization;
using System.Net;
using System.Net.Sockets;

namespace Jitterlab
{
    // A pose in the lab's units: metres, and degrees clockwise from +y (as
    // Unity's yaw). A Unity game passes (position.x, position.z, eulerAngles.y).
    public struct Pose
    {
        public double X, Y, RotDeg;

        public Pose(double x, double y, double rotDeg)
        {
            X = x;
            Y = y;
            RotDeg = rotDeg;
        }
    }

    public sealed class JitterlabProbe : IDisposable
    {
        // The largest datagram jitterlab accepts, in bytes.
        public const int MaxSize = 1200;

        // The protocol version this probe writes.
        public const int Version = 1;

        readonly Socket socket;
        readonly EndPoint to;
        readonly byte[] buf = new byte[MaxSize];
        int n;

        // Datagrams handed to the socket, and those it refused (a full
        // buffer, no route): a probe never stops the game.
        public long Sent { get; private set; }
        public long Failed { get; private set; }

        // host is an IP address or a name; port is --telemetry's port.
        public JitterlabProbe(string host, int port)
        {
            IPAddress ip;
            if (!IPAddress.TryParse(host, out ip))
            {
                ip = Dns.GetHostAddresses(host)[0];
            }
            to = new IPEndPoint(ip, port);
            socket = new Socket(ip.AddressFamily, SocketType.Dgram, ProtocolType.Udp);
            socket.Blocking = false;
        }

        // SendFrame sends one frame: call it once per rendered frame, after
        // the frame's input is sampled and the tank is drawn.
        //   timeS          the client's local time in seconds (any clock that only goes forward)
        //   frame          the rendered frame's number
        //   throttle, turn the input sampled this frame, each in [-1, 1]
        //   visible        where the player's tank is drawn
        //   predicted      where the client's prediction has it
        //   tickOffset     server tick seen - client tick, as the client's corrector reads it
        //   sendIntervalS  the interval the client sends inputs at now, seconds
        //   ackTick        the last tick the server acknowledged
        //   pendingInputs  inputs sent and not yet acknowledged
        public void SendFrame(double timeS, long frame, double throttle, double turn, Pose visible, Pose predicted,
            long tickOffset, double sendIntervalS, uint ackTick, long pendingInputs)
        {
            Begin("frame");
            Field("t_s", timeS);
            Field("frame", frame);
            Field("throttle", throttle);
            Field("turn", turn);
            Field("visible_x_m", visible.X);
            Field("visible_y_m", visible.Y);
            Field("visible_rot_deg", visible.RotDeg);
            Field("predicted_x_m", predicted.X);
            Field("predicted_y_m", predicted.Y);
            Field("predicted_rot_deg", predicted.RotDeg);
            Field("tick_offset", tickOffset);
            Field("send_interval_s", sendIntervalS);
            Field("ack_tick", (long)ackTick);
            Field("pending_inputs", pendingInputs);
            Send();
        }

        // SendTick sends one server step for one player. applied,
        // overwritten and starved count since the server started.
        public void SendTick(double timeS, uint tick, long applied, long overwritten, long starved, long depth)
        {
            Begin("tick");
            Field("t_s", timeS);
            Field("tick", (long)tick);
            Field("applied", applied);
            Field("overwritten", overwritten);
            Field("starved", starved);
            Field("depth", depth);
            Send();
        }

        public void Dispose()
        {
            socket.Close();
        }

        void Begin(string kind)
        {
            n = 0;
            Ascii("{\"v\":");
            Ascii(Version.ToString(CultureInfo.InvariantCulture));
            Ascii(",\"kind\":\"");
            Ascii(kind);
            Ascii("\"");
        }

        // A double as "G17": always reads back as the same double (and -0 as
        // "-0", which Mono writes "0"). NaN and the infinities come out as
        // "NaN" and "Infinity", which the lab refuses, naming the field.
        void Field(string name, double v)
        {
            Key(name);
            if (v == 0 && double.IsNegativeInfinity(1 / v))
            {
                Ascii("-0");
                return;
            }
            Ascii(v.ToString("G17", CultureInfo.InvariantCulture));
        }

        void Field(string name, long v)
        {
            Key(name);
            Ascii(v.ToString(CultureInfo.InvariantCulture));
        }

        void Key(string name)
        {
            Ascii(",\"");
            Ascii(name);
            Ascii("\":");
        }

        // Ascii appends s; what does not fit is cut, and the lab refuses the
        // datagram as not JSON (it cannot happen with this version's fields).
        void Ascii(string s)
        {
            for (int i = 0; i < s.Length && n < buf.Length; i++)
            {
                buf[n++] = (byte)s[i];
            }
        }

        void Send()
        {
            if (n < buf.Length)
            {
                buf[n++] = (byte)'}';
            }
            try
            {
                socket.SendTo(buf, 0, n, SocketFlags.None, to);
                Sent++;
            }
            catch (SocketException)
            {
                Failed++;
            }
            catch (ObjectDisposedException)
            {
                Failed++;
            }
        }
    }
}
