// Package timeline records what each pipeline stage and each device was
// doing (one Kind per stage boundary, see Kind), and analyses, exports and
// draws those records. It knows nothing of the engine.
//
//   - Recorder: a fixed ring of Events, offsets from the recorder's start on
//     the monotonic clock, safe for concurrent use, no allocation per event.
//     KERNEL_START/END come from the device's own clock, mapped onto the
//     recorder's timeline with DeviceClock. Tee copies every event to a log
//     as a "TIMELINE,..." line.
//   - Pair and Analyze: events become stage intervals (paired by job,
//     partition and worker); per device, kernel utilization (device time)
//     and lock utilization (host time under the device lock) side by side,
//     the gap histogram between kernels, the largest gaps with the events
//     around them, cross-job stalls; per stage, totals.
//   - WriteCSV / ReadCSV (the exchange format; ReadCSV is a decoder of
//     outside input and has a fuzz target), WriteTrace (Chrome trace JSON,
//     opens in Perfetto), WriteHTML (a self-contained waterfall page), and
//     Handler (serves a Recorder at a daemon's /timeline).
//   - Phase: a timed part of a device's Run or Prepare, as the device
//     reports it; the engine sums them per device for the status.
package timeline
