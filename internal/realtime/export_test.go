package realtime

// ListenerPID exposes the listening backend so that tests can kill it.
func (h *Hub) ListenerPID() uint32 { return h.pid.Load() }
