package realtime

import "github.com/google/uuid"

// ListenerPID exposes the listening backend so that tests can kill it.
func (h *Hub) ListenerPID() uint32 { return h.pid.Load() }

// Subscribers counts the local subscriptions of a device.
func (h *Hub) Subscribers(device uuid.UUID) int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.devices[device])
}
