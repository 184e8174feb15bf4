package engine

import (
	"errors"
	"fmt"

	"github.com/cuzk-project/cuzk/groth16"
)

// A device whose step fails with groth16.ErrDeviceLost takes no more work:
// its workers stop, and the unit it held goes back to synthesis (its staged
// witness and partial sums were the device's) for the devices left. With no
// device left, the units waiting for one fail with the loss.

// lostStep handles a failed step of u on device di: a device loss marks di
// lost and requeues u; any other error fails u's job (unitFailed). It
// returns false, as unitFailed does.
func (e *Engine) lostStep(di int, u *unit, step string, err error) bool {
	if !errors.Is(err, groth16.ErrDeviceLost) {
		return e.unitFailed(u, step, err)
	}
	if e.markLost(di, err) == 0 {
		return e.unitFailed(u, step, fmt.Errorf("%w (no proving device is left)", err))
	}
	e.resynthesize(u)
	return false
}

// markLost marks device di lost (the first loss's error is kept) and
// returns how many devices are left. At zero it fails every unit waiting
// for a device.
func (e *Engine) markLost(di int, err error) int {
	d := e.devs[di]
	d.lostErr.CompareAndSwap(nil, &err)
	left := e.liveDevices()
	if left == 0 {
		for _, u := range e.devQ.drain() {
			e.unitFailed(u, "device", fmt.Errorf("%w (no proving device is left)", *d.lostErr.Load()))
		}
	}
	return left
}

// liveDevices counts the devices not lost.
func (e *Engine) liveDevices() int {
	n := 0
	for _, d := range e.devs {
		if d.lostErr.Load() == nil {
			n++
		}
	}
	return n
}

// resynthesize sends u back to the synthesis queue: its assignment and
// reservation go (the dispatcher reserves again), the job keeps the unit.
func (e *Engine) resynthesize(u *unit) {
	e.endAhead(u)
	e.endClaim(u)
	u.res.Close()
	u.res, u.a = nil, nil
	if u.inflight {
		u.inflight = false
		if e.inflight.Add(-1) == 0 {
			e.synthQ.interruptWait()
		}
	}
	e.queue(e.synthQ, u)
}
