// TankProbe: a Unity MonoBehaviour that sends jitterlab one frame of
// telemetry per rendered frame (docs/guide/see-inside-your-game.md).
// It needs UnityEngine, so CI does not compile it: CI compiles and runs
// JitterlabProbe.cs beside it with Mono (telemetry/probe_test.go).
//
// Attach it to the player's tank; point `lab proxy --telemetry
// 127.0.0.1:7790` at the same port. The fields marked "your netcode" are
// what your client already knows: replace them with your own.

using Jitterlab;
using UnityEngine;

public class TankProbe : MonoBehaviour
{
    public string labHost = "127.0.0.1";
    public int labPort = 7790;
    public Transform predicted; // your netcode: the predicted tank, if it has its own transform

    JitterlabProbe probe;

    void OnEnable()
    {
        probe = new JitterlabProbe(labHost, labPort);
    }

    void OnDisable()
    {
        probe.Dispose();
    }

    // LateUpdate: after the frame's input is sampled and the tank moved.
    void LateUpdate()
    {
        var drawn = transform;
        var pred = predicted != null ? predicted : transform;
        probe.SendFrame(
            Time.realtimeSinceStartupAsDouble,
            Time.frameCount,
            Input.GetAxis("Vertical"),   // throttle
            Input.GetAxis("Horizontal"), // turn
            new Pose(drawn.position.x, drawn.position.z, drawn.eulerAngles.y),
            new Pose(pred.position.x, pred.position.z, pred.eulerAngles.y),
            0,     // your netcode: server tick seen - client tick
            0.02,  // your netcode: the interval you send inputs at now, seconds
            0,     // your netcode: the last tick the server acknowledged
            0);    // your netcode: inputs sent and not yet acknowledged
    }
}
