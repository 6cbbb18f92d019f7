// ProbeCheck sends N frames and N/4 ticks through JitterlabProbe, each
// field a value of its index i that probe_test.go computes the same way
// (one IEEE operation each, so both languages get the same double), then
// one frame whose visible x is NaN, which the lab must refuse.
// Usage: mono probecheck.exe HOST PORT N

using System;
using Jitterlab;

static class ProbeCheck
{
    static int Main(string[] args)
    {
        int port = int.Parse(args[1]);
        int count = int.Parse(args[2]);
        using (var probe = new JitterlabProbe(args[0], port))
        {
            for (int i = 0; i < count; i++)
            {
                var visible = new Pose(i * 0.1, i / -3.0, i * 2.5);
                var predicted = new Pose(i / 7.0, i * -0.3, 1e6 / (i + 1));
                probe.SendFrame(i / 144.0, 1000000000000L + i, ((i % 21) - 10) / 10.0, ((i % 7) - 3) / 3.0,
                    visible, predicted, (i % 11) - 5, 1.0 / (30 + i % 100), 4294967295u - (uint)i, i % 13);
                if (i % 4 == 0)
                {
                    probe.SendTick(i / 128.0, (uint)(i / 4), i * 3L, i / 5, i % 17, i % 9);
                }
            }
            probe.SendFrame(1, 1, 0, 0, new Pose(double.NaN, 0, 0), new Pose(0, 0, 0), 0, 0.01, 0, 0);
            Console.WriteLine("sent {0} failed {1}", probe.Sent, probe.Failed);
            return probe.Failed == 0 ? 0 : 1;
        }
    }
}
